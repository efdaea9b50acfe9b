package ui

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// luminance is WCAG 2's relative luminance of an opaque colour.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	ch := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(b)
}

// over paints c (which may be translucent) over an opaque background.
func over(c, bg color.Color) color.Color {
	r, g, b, a := c.RGBA()
	br, bgG, bb, _ := bg.RGBA()
	mix := func(f, k uint32) uint8 { return uint8((f + k*(0xffff-a)/0xffff) >> 8) }
	return color.NRGBA{R: mix(r, br), G: mix(g, bgG), B: mix(b, bb), A: 0xff}
}

func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// Every text/background pair of the window reaches 4.5:1 in
// the light and the dark theme, computed from the theme's own colours.
func TestEveryTextReachesAContrastOf4Point5InBothThemes(t *testing.T) {
	type pair struct{ text, bg fyne.ThemeColorName }
	pairs := []pair{
		// labels (importances) on the window, the inputs, the table header, menus, dialogs
		{theme.ColorNameForeground, theme.ColorNameBackground},
		{theme.ColorNameForeground, theme.ColorNameInputBackground},
		{theme.ColorNameForeground, theme.ColorNameHeaderBackground},
		{theme.ColorNameForeground, theme.ColorNameButton},
		{theme.ColorNameForeground, theme.ColorNameMenuBackground},
		{theme.ColorNameForeground, theme.ColorNameOverlayBackground},
		{theme.ColorNamePrimary, theme.ColorNameBackground},
		{theme.ColorNameHyperlink, theme.ColorNameBackground},
		{theme.ColorNameSuccess, theme.ColorNameBackground},
		{theme.ColorNameWarning, theme.ColorNameBackground},
		{theme.ColorNameError, theme.ColorNameBackground},
		{theme.ColorNameError, theme.ColorNameOverlayBackground}, // refusals in dialogs
		{theme.ColorNamePlaceHolder, theme.ColorNameInputBackground},
		// text on filled buttons and bars
		{theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary},
		{theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess},
		{theme.ColorNameForegroundOnWarning, theme.ColorNameWarning},
		{theme.ColorNameForegroundOnError, theme.ColorNameError},
	}
	// Translucent highlights under text: the selected and hovered rows.
	layered := []fyne.ThemeColorName{theme.ColorNameSelection, theme.ColorNameHover, theme.ColorNameFocus}
	textOn := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNameError}
	for _, pref := range []string{"light", "dark"} {
		th := newTheme(pref)
		for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
			col := func(n fyne.ThemeColorName) color.Color { return th.Color(n, v) }
			for _, p := range pairs {
				bg := over(col(p.bg), col(theme.ColorNameBackground))
				if r := contrast(over(col(p.text), bg), bg); r < 4.5 {
					t.Errorf("%s theme: %s on %s is %.2f:1", pref, p.text, p.bg, r)
				}
			}
			for _, l := range layered {
				bg := over(col(l), col(theme.ColorNameBackground))
				for _, txt := range textOn {
					if r := contrast(col(txt), bg); r < 4.5 {
						t.Errorf("%s theme: %s on %s is %.2f:1", pref, txt, l, r)
					}
				}
			}
		}
	}
	// The variant preference is obeyed whatever the system says.
	if newTheme("dark").Color(theme.ColorNameBackground, theme.VariantLight) == newTheme("light").Color(theme.ColorNameBackground, theme.VariantLight) {
		t.Fatal("the dark theme shows the light background")
	}
}
