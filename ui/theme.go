package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// compactTheme is Fyne's default theme with slightly smaller text and
// padding, so that the triage table fits beside the batches and the panel,
// and with colours that keep every text at a 4.5:1 contrast or more on its
// background in both variants (Fyne's own light green, orange and light
// blue do not). variant forces light or dark; "" follows the system.
type compactTheme struct{ variant string }

// newTheme is the theme for a preference value: system, light or dark.
func newTheme(pref string) fyne.Theme {
	switch pref {
	case "light", "dark":
		return compactTheme{variant: pref}
	}
	return compactTheme{}
}

func hex(r, g, b uint8) color.Color { return color.NRGBA{R: r, G: g, B: b, A: 0xff} }

// palette overrides Fyne's colours, per variant.
var palette = map[fyne.ThemeVariant]map[fyne.ThemeColorName]color.Color{
	theme.VariantLight: {
		theme.ColorNamePrimary:             hex(0x15, 0x65, 0xc0),
		theme.ColorNameHyperlink:           hex(0x15, 0x65, 0xc0),
		theme.ColorNameForegroundOnPrimary: hex(0xff, 0xff, 0xff),
		theme.ColorNameSuccess:             hex(0x1b, 0x5e, 0x20),
		theme.ColorNameForegroundOnSuccess: hex(0xff, 0xff, 0xff),
		theme.ColorNameWarning:             hex(0x8a, 0x40, 0x00),
		theme.ColorNameForegroundOnWarning: hex(0xff, 0xff, 0xff),
		theme.ColorNameError:               hex(0xb7, 0x1c, 0x1c),
		theme.ColorNameForegroundOnError:   hex(0xff, 0xff, 0xff),
		theme.ColorNamePlaceHolder:         hex(0x6b, 0x6b, 0x6b),
		theme.ColorNameForeground:          hex(0x2e, 0x2e, 0x2e),
		theme.ColorNameSelection:           color.NRGBA{R: 0x15, G: 0x65, B: 0xc0, A: 0x2a},
		theme.ColorNameFocus:               color.NRGBA{R: 0x15, G: 0x65, B: 0xc0, A: 0x2a},
		theme.ColorNameHover:               color.NRGBA{A: 0x0c},
	},
	theme.VariantDark: {
		theme.ColorNamePrimary:             hex(0x64, 0xb5, 0xf6),
		theme.ColorNameHyperlink:           hex(0x64, 0xb5, 0xf6),
		theme.ColorNameForegroundOnPrimary: hex(0x17, 0x17, 0x18),
		theme.ColorNameSuccess:             hex(0x66, 0xbb, 0x6a),
		theme.ColorNameForegroundOnSuccess: hex(0x17, 0x17, 0x18),
		theme.ColorNameWarning:             hex(0xff, 0xa7, 0x26),
		theme.ColorNameForegroundOnWarning: hex(0x17, 0x17, 0x18),
		theme.ColorNameError:               hex(0xff, 0x7a, 0x75),
		theme.ColorNameSelection:           color.NRGBA{R: 0x64, G: 0xb5, B: 0xf6, A: 0x30},
		theme.ColorNameFocus:               color.NRGBA{R: 0x64, G: 0xb5, B: 0xf6, A: 0x30},
		theme.ColorNameForegroundOnError:   hex(0x17, 0x17, 0x18),
	},
}

func (t compactTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch t.variant {
	case "light":
		v = theme.VariantLight
	case "dark":
		v = theme.VariantDark
	}
	if c, ok := palette[v][n]; ok {
		return c
	}
	return theme.DefaultTheme().Color(n, v)
}
func (compactTheme) Font(s fyne.TextStyle) fyne.Resource     { return theme.DefaultTheme().Font(s) }
func (compactTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }
func (compactTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 13
	case theme.SizeNamePadding:
		return 3
	case theme.SizeNameInnerPadding:
		return 6
	}
	return theme.DefaultTheme().Size(n)
}
