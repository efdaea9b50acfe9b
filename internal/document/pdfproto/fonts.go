package pdfproto

import "strings"

// A FontFolder is a folder of this computer's fonts (Host, in its own
// system's form) and the path the PDF renderer's WebAssembly module sees
// it at (Guest): one of the folders PDFium's Linux font loader scans, the
// only loader its WebAssembly build has, or a folder under
// /usr/share/fonts, which it scans down to the last folder. The console
// finds them (it has the environment; the renderer is started with none)
// and hands them to the renderer (FontArg), which mounts each read-only.
type FontFolder struct {
	Guest, Host string
}

// linuxFontFolders are the folders PDFium's Linux font loader scans (its
// compiled-in defaults), each seen at its own path.
var linuxFontFolders = []string{"/usr/share/fonts", "/usr/share/X11/fonts/Type1", "/usr/share/X11/fonts/TTF", "/usr/local/share/fonts"}

// FontFolders are the system's and the user's font folders on goos, read
// from its environment (getenv) and the user's home folder (home, "" when
// unknown): on Windows %WINDIR%\Fonts (else %SystemRoot%'s, else
// C:\Windows's) and the fonts installed for the user alone,
// %LOCALAPPDATA%\Microsoft\Windows\Fonts; on macOS /System/Library/Fonts,
// /Library/Fonts and ~/Library/Fonts; elsewhere Linux's. A folder that
// does not exist is left to the renderer to pass over.
func FontFolders(goos string, getenv func(string) string, home string) []FontFolder {
	var out []FontFolder
	switch goos {
	case "windows":
		win := getenv("WINDIR")
		if win == "" {
			win = getenv("SystemRoot")
		}
		if win == "" {
			win = `C:\Windows`
		}
		out = append(out, FontFolder{"/usr/share/fonts/windows", winJoin(win, "Fonts")})
		if local := getenv("LOCALAPPDATA"); local != "" {
			out = append(out, FontFolder{"/usr/share/fonts/windows-user", winJoin(local, `Microsoft\Windows\Fonts`)})
		}
	case "darwin", "ios":
		out = append(out,
			FontFolder{"/usr/share/fonts/macos-system", "/System/Library/Fonts"},
			FontFolder{"/usr/share/fonts/macos-library", "/Library/Fonts"})
		if home != "" {
			out = append(out, FontFolder{"/usr/share/fonts/macos-user", strings.TrimRight(home, "/") + "/Library/Fonts"})
		}
	default:
		for _, d := range linuxFontFolders {
			out = append(out, FontFolder{d, d})
		}
	}
	return out
}

func winJoin(dir, rest string) string { return strings.TrimRight(dir, `\/`) + `\` + rest }

// FontArg is f as the renderer's -font argument: GUEST=HOST.
func FontArg(f FontFolder) string { return f.Guest + "=" + f.Host }

// ParseFontArg reads a -font argument; false when it is not one: the guest
// path must be one PDFium scans (a Linux folder of fonts, or one under
// /usr/share/fonts), plain, and the host folder not empty.
func ParseFontArg(s string) (FontFolder, bool) {
	guest, host, ok := strings.Cut(s, "=")
	if !ok || host == "" || strings.Contains(guest, "..") || strings.Contains(guest, "//") || strings.HasSuffix(guest, "/") {
		return FontFolder{}, false
	}
	for _, d := range linuxFontFolders {
		if guest == d || strings.HasPrefix(guest, d+"/") {
			return FontFolder{guest, host}, true
		}
	}
	return FontFolder{}, false
}
