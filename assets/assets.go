// Package assets holds the files embedded in the binary: the icon.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

//go:embed window-icon.png
var windowIconPNG []byte

// Icon is the application icon (256 × 256: the desktop bundle's, see
// FyneApp.toml).
var Icon = fyne.NewStaticResource("icon.png", iconPNG)

// WindowIcon is the same icon at 64 × 64, for the window's title bar and
// task bar: the window decodes its icon and sends it to the X server (as
// a property of 4 bytes per pixel) before it is mapped; at 256 × 256 that
// was 10 ms of the window's start (median of 10 pairs under Xvfb).
var WindowIcon = fyne.NewStaticResource("window-icon.png", windowIconPNG)
