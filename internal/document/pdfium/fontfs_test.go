package pdfium

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/internal/document/pdfproto"
	"github.com/trustscreen/reviewer/internal/document/pdftest"
)

// The renderer sees the folders of fonts and nothing else: not a file
// beside them, not a file above them, and a folder above them lists only
// the way down. And nothing can be written: an fs.FS has no writes.
func TestTheRendererSeesOnlyTheFontFolders(t *testing.T) {
	root := t.TempDir()
	fonts := filepath.Join(root, "share", "fonts")
	if err := os.MkdirAll(filepath.Join(fonts, "truetype"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		filepath.Join(fonts, "truetype", "a.ttf"): "font",
		filepath.Join(root, "share", "secret"):    "token",
		filepath.Join(root, "secret"):             "token",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := newFontFS(atOwnPaths(fonts, filepath.Join(root, "absent")))
	rel := strings.TrimPrefix(filepath.ToSlash(root), "/")

	if b, err := fs.ReadFile(f, rel+"/share/fonts/truetype/a.ttf"); err != nil || string(b) != "font" {
		t.Fatalf("a font: %q, %v", b, err)
	}
	for _, name := range []string{rel + "/secret", rel + "/share/secret", rel + "/absent", "etc/passwd", "../" + rel + "/secret"} {
		if _, err := f.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want not there", name, err)
		}
	}
	ents, err := fs.ReadDir(f, rel+"/share")
	if err != nil || len(ents) != 1 || ents[0].Name() != "fonts" || !ents[0].IsDir() {
		t.Fatalf("the folder above the fonts lists %v (%v), want only fonts/", ents, err)
	}
	if ents, err := fs.ReadDir(f, "."); err != nil || len(ents) != 1 {
		t.Fatalf("the root lists %v (%v), want only the way down", ents, err)
	}
}

func atOwnPaths(dirs ...string) []pdfproto.FontFolder {
	var out []pdfproto.FontFolder
	for _, d := range dirs {
		out = append(out, pdfproto.FontFolder{Guest: d, Host: d})
	}
	return out
}

// Windows' and macOS's folders of fonts are seen at paths PDFium's Linux
// font loader scans (under /usr/share/fonts), and nothing else is: not
// the folder's own path, not a file beside it.
func TestTheRendererSeesAFontFolderAtAPathPDFiumScans(t *testing.T) {
	root := t.TempDir()
	win := filepath.Join(root, "Windows", "Fonts")
	if err := os.MkdirAll(win, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		filepath.Join(win, "msgothic.ttc"):        "font",
		filepath.Join(root, "Windows", "win.ini"): "secret",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := newFontFS([]pdfproto.FontFolder{{Guest: "/usr/share/fonts/windows", Host: win}, {Guest: "/usr/share/fonts/windows-user", Host: filepath.Join(root, "absent")}})
	if b, err := fs.ReadFile(f, "usr/share/fonts/windows/msgothic.ttc"); err != nil || string(b) != "font" {
		t.Fatalf("a Windows font at /usr/share/fonts/windows: %q, %v", b, err)
	}
	if ents, err := fs.ReadDir(f, "usr/share/fonts"); err != nil || len(ents) != 1 || ents[0].Name() != "windows" {
		t.Fatalf("/usr/share/fonts lists %v (%v), want only windows/ (the user's folder does not exist)", ents, err)
	}
	rel := strings.TrimPrefix(filepath.ToSlash(root), "/")
	for _, name := range []string{rel + "/Windows/Fonts/msgothic.ttc", rel + "/Windows/win.ini", "usr/share/fonts/windows/../win.ini", "usr/share/fonts/windows-user"} {
		if _, err := f.Open(name); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("%s: %v, want not there", name, err)
		}
	}
}

// Where none of the font folders exists (Windows, macOS, a machine with
// no fonts installed), the renderer still starts and draws a page.
func TestTheRendererDrawsWithoutAnyFontFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the PDF renderer (seconds)")
	}
	r, err := Start(Config{MemoryMiB: 256, CacheDir: filepath.Join(t.TempDir(), "cache"), FontDirs: []string{filepath.Join(t.TempDir(), "none")}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, subst, err := r.Page(pdftest.TwoPagePDF(), 0, 1<<24)
	if err != nil {
		t.Fatal(err)
	}
	// Page 1's blue square, at its lower left quarter; no text, no font.
	b := img.Bounds()
	if c := img.RGBAAt(b.Dx()/4, b.Dy()*3/4); c.B < 200 || c.R > 50 || subst {
		t.Fatalf("the page's lower left is %v, fonts substituted %v", c, subst)
	}
}
