// Package assets holds the files embedded in the binary: the window's icon.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed window-icon.png
var windowIconPNG []byte

// WindowIcon is the application's icon at 64 × 64 (icon.png, 256 × 256,
// is the desktop bundle's: FyneApp.toml), for the window's title bar and
// task bar: the window decodes its icon and sends it to the X server (as
// a property of 4 bytes per pixel) before it is mapped; at 256 × 256 that
// was 10 ms of the window's start (median of 10 pairs under Xvfb).
var WindowIcon = fyne.NewStaticResource("window-icon.png", windowIconPNG)
