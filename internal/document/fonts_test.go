package document

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/internal/document/pdfproto"
)

// On Windows and macOS the fonts are not where PDFium's font loader looks:
// the console hands the renderer each folder with a path it scans
// (pdfproto.FontFolders). Here, a folder of CJK fonts mounted as Windows'
// would be, at /usr/share/fonts/windows and as the only folder: a real
// PDF's Japanese text in a font it does not embed (pdf.js's
// noembed-eucjp.pdf) is drawn from it, and is not when the folder there is
// empty.
func TestTheRendererFindsFontsInAFolderMountedAsWindowsFontsFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	cjk := "/usr/share/fonts/truetype/wqy"
	if _, err := os.Stat(cjk); err != nil {
		t.Fatal("fonts-wqy-microhei is not installed (make deps-test)")
	}
	saved := fontFolders
	defer func() { fontFolders = saved; forgetRenderer() }()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	lim := pdfLimits(t)
	ref := popplerPage(t, "noembed-eucjp.pdf")
	want, box := ink(ref, ref.Bounds())
	drawn := func(host string) int {
		t.Helper()
		forgetRenderer()
		fontFolders = func() []pdfproto.FontFolder {
			return []pdfproto.FontFolder{{Guest: "/usr/share/fonts/windows", Host: host}}
		}
		d, err := Open(ctx, PDF, readSample(t, "pdfs/noembed-eucjp.pdf"), lim)
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.Page(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ink(p, box.Inset(-8))
		return got
	}
	with, without := drawn(cjk), drawn(filepath.Join(t.TempDir(), "empty"))
	t.Logf("%d dark pixels with the folder, %d without, poppler's %d", with, without, want)
	if with*10 < want*6 || without*10 > want*3 {
		t.Fatalf("%d dark pixels with the fonts at /usr/share/fonts/windows, %d without, where poppler draws %d", with, without, want)
	}
}
