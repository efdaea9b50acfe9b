package pdfium

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	f := newFontFS([]string{fonts, filepath.Join(root, "absent")})
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
