package pdfproto

import (
	"reflect"
	"testing"
)

// The font folders per system: where each is on the host, and the path
// the renderer's PDFium sees it at (one its Linux font loader scans).
func TestTheFontFoldersOfEachSystem(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		name, goos string
		env        map[string]string
		home       string
		want       []FontFolder
	}{
		{"linux", "linux", nil, "/home/ana", []FontFolder{
			{"/usr/share/fonts", "/usr/share/fonts"},
			{"/usr/share/X11/fonts/Type1", "/usr/share/X11/fonts/Type1"},
			{"/usr/share/X11/fonts/TTF", "/usr/share/X11/fonts/TTF"},
			{"/usr/local/share/fonts", "/usr/local/share/fonts"},
		}},
		{"windows", "windows", map[string]string{"WINDIR": `C:\WINDOWS`, "LOCALAPPDATA": `C:\Users\ana\AppData\Local`}, `C:\Users\ana`, []FontFolder{
			{"/usr/share/fonts/windows", `C:\WINDOWS\Fonts`},
			{"/usr/share/fonts/windows-user", `C:\Users\ana\AppData\Local\Microsoft\Windows\Fonts`},
		}},
		{"windows, SystemRoot only, no user folder", "windows", map[string]string{"SystemRoot": `D:\Win\`}, "", []FontFolder{
			{"/usr/share/fonts/windows", `D:\Win\Fonts`},
		}},
		{"windows, no environment", "windows", nil, "", []FontFolder{
			{"/usr/share/fonts/windows", `C:\Windows\Fonts`},
		}},
		{"macOS", "darwin", nil, "/Users/ana/", []FontFolder{
			{"/usr/share/fonts/macos-system", "/System/Library/Fonts"},
			{"/usr/share/fonts/macos-library", "/Library/Fonts"},
			{"/usr/share/fonts/macos-user", "/Users/ana/Library/Fonts"},
		}},
		{"macOS, no home", "darwin", nil, "", []FontFolder{
			{"/usr/share/fonts/macos-system", "/System/Library/Fonts"},
			{"/usr/share/fonts/macos-library", "/Library/Fonts"},
		}},
	} {
		got := FontFolders(c.goos, env(c.env), c.home)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		for _, f := range got {
			// Each goes to the renderer as an argument and back.
			if back, ok := ParseFontArg(FontArg(f)); !ok || back != f {
				t.Errorf("%s: %q read back as %q (%v)", c.name, FontArg(f), back, ok)
			}
		}
	}
}

// A -font argument whose guest path PDFium would not scan, or that climbs
// out of one, is refused.
func TestAFontArgumentOutsidePDFiumsFoldersIsRefused(t *testing.T) {
	for _, a := range []string{"/etc=/etc", "/usr/share/fonts/../../../etc=/x", "/usr/share/fontsx=/x", "/usr/share/fonts/a=", "nothing", "/usr/share/fonts/a/=/x"} {
		if f, ok := ParseFontArg(a); ok {
			t.Errorf("%q read as %q", a, f)
		}
	}
}
