package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/internal/document/pdfproto"
	"github.com/trustscreen/reviewer/internal/document/pdftest"
)

// The PDF tests run the real renderer: reviewer-pdf built once per test
// binary (with the shared build cache) into a folder removed at the end
// (pdftest, which the window's tests share).

func TestMain(m *testing.M) {
	code := m.Run()
	pdftest.Cleanup()
	os.Exit(code)
}

// rendererHelper builds cmd/reviewer-pdf (once) and returns its path.
func rendererHelper(t testing.TB) string {
	t.Helper()
	bin, _ := pdftest.Renderer(t)
	return bin
}

// rendererCache is the compiled-code cache the test binary's runs share.
func rendererCache(t testing.TB) string {
	t.Helper()
	_, cache := pdftest.Renderer(t)
	return cache
}

// pdfLimits are the default limits with the built renderer and a private
// compiled-code cache shared by the test binary's runs.
func pdfLimits(t testing.TB) Limits {
	l := DefaultLimits()
	l.Renderer = rendererHelper(t)
	l.RendererCache = rendererCache(t)
	return l
}

// fakeRenderer writes a shell script that stands in for the renderer (a
// real process on real pipes) and behaves as body says.
func fakeRenderer(t *testing.T, body string) Limits {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-renderer")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	l := DefaultLimits()
	l.Renderer = p
	return l
}

// forgetRenderer stops the running renderer, so that the next PDF starts
// the one its limits name.
func forgetRenderer() {
	renderer.mu.Lock()
	c := renderer.child
	renderer.mu.Unlock()
	if c != nil {
		drop(c)
		<-c.gone
	}
}

func TestAPDFShowsEveryPageFirstPageFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	forgetRenderer()
	defer forgetRenderer()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	lim := pdfLimits(t)
	d, err := Open(ctx, "application/pdf", twoPagePDF(), lim)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pages != 2 {
		t.Fatalf("%d pages", d.Pages)
	}
	for i, want := range []string{"blue", "red"} {
		p, err := d.Page(ctx, i)
		if err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		b := p.Bounds()
		// A6 at 150 dpi.
		if b.Dx() < 600 || b.Dx() > 640 || b.Dy() < 860 || b.Dy() > 890 {
			t.Fatalf("page %d: %v", i+1, b)
		}
		r, g, bl, _ := p.At(b.Dx()/4, b.Dy()*3/4).RGBA()
		got := map[bool]string{true: "blue", false: "red"}[bl > r]
		if g>>8 > 30 || got != want {
			t.Fatalf("page %d lower left is %d,%d,%d, want %s", i+1, r>>8, g>>8, bl>>8, want)
		}
		if r, g, bl, _ := p.At(b.Dx()*3/4, b.Dy()/4).RGBA(); r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
			t.Fatalf("page %d upper right is not white", i+1)
		}
	}
	if _, err := d.Page(ctx, 2); err == nil {
		t.Fatal("a third page was drawn")
	}
	// The page obeys the pixel limit the console asks for.
	small := *d
	small.lim.MaxPixels = 100_000
	if p, err := small.Page(ctx, 0); err != nil || p.Bounds().Dx()*p.Bounds().Dy() > 100_000 {
		t.Fatalf("within 0.1 megapixels: %v %v", p, err)
	}

	// The renderer is a child process whose address space is limited.
	renderer.mu.Lock()
	pid := renderer.child.cmd.Process.Pid
	renderer.mu.Unlock()
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	wantAS := fmt.Sprintf("%d", uint64(2*512+2048)<<20)
	if !strings.Contains(string(limits), "Max address space") || !strings.Contains(string(limits), wantAS) {
		t.Fatalf("the renderer's limits:\n%s", limits)
	}

	// A damaged PDF is an error; and the renderer still works after it.
	for _, bad := range [][]byte{[]byte("%PDF-1.4\nnothing else"), twoPagePDF()[:60]} {
		if _, err := Open(ctx, "application/pdf", bad, lim); !errors.Is(err, ErrDamaged) {
			t.Fatalf("%q: %v", bad[:10], err)
		}
	}

	// Drawing is bounded in time: a deadline that has passed draws
	// nothing; a page over the time limit kills the child, and the next
	// page is drawn by a fresh one.
	short, stop := context.WithTimeout(ctx, time.Nanosecond)
	<-short.Done()
	if _, err := d.Page(short, 0); err == nil {
		t.Fatal("drew past its deadline")
	}
	stop()
	renderer.mu.Lock()
	first := renderer.child
	renderer.mu.Unlock()
	tight := d.lim
	tight.PDFTimeout = time.Microsecond
	slow := &Doc{MediaType: PDF, Pages: 2, pdf: d.pdf, lim: tight}
	if _, err := slow.Page(ctx, 1); !errors.Is(err, ErrTimeout) {
		t.Fatalf("time limit: %v", err)
	}
	select {
	case <-first.gone:
	case <-ctx.Done():
		t.Fatal("the child over its time limit was not killed")
	}
	if _, err := d.Page(ctx, 1); err != nil {
		t.Fatalf("after a killed child: %v", err)
	}
	if !RendererStarted() {
		t.Fatal("no renderer running")
	}
}

func TestAMissingRendererIsOnePlainLineAndImagesStillWork(t *testing.T) {
	forgetRenderer()
	lim := DefaultLimits()
	lim.Renderer = filepath.Join(t.TempDir(), "no-such-"+RendererName)
	_, err := Open(context.Background(), PDF, twoPagePDF(), lim)
	if !errors.Is(err, ErrNoRenderer) {
		t.Fatalf("got %v", err)
	}
	if err.Error() != "PDF pages cannot be shown: the PDF renderer (reviewer-pdf) is not installed" {
		t.Fatalf("the line: %q", err.Error())
	}
	if _, err := Open(context.Background(), PNG, encPNG(t, card(8, 8)), lim); err != nil {
		t.Fatalf("an image: %v", err)
	}
	if RendererStarted() {
		t.Fatal("a renderer runs")
	}
}

// A renderer that crashes, stops early or answers outside the protocol
// (more than was asked, words that are not of it) is a damaged or
// unreadable PDF, and the next PDF gets a fresh renderer.
func TestABrokenRendererIsADamagedPDFNeverACrash(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ready = "echo 'reviewer-pdf 2 ready'; read req; "
	for _, tc := range []struct {
		name, script string
		want         error
	}{
		{"crashes at once", "exit 3", ErrRenderer},
		{"another protocol", "echo 'reviewer-pdf 3 ready'; exec cat >/dev/null", ErrRenderer},
		{"crashes on the page", ready + "kill -SEGV $$", ErrDamaged},
		{"asks for more pixels than asked", ready + "echo 'page 8000 8000 0'; exec cat >/dev/null", ErrDamaged},
		{"a page over the side", ready + "echo 'page 100000 1 0'; exec cat >/dev/null", ErrDamaged},
		{"ends mid-page", ready + "echo 'page 10 10 0'; printf 'abcd'; exit 0", ErrDamaged},
		{"a page line of version 1", ready + "echo 'page 10 10'; head -c 400 /dev/zero; exec cat >/dev/null", ErrDamaged},
		{"a font flag neither 0 nor 1", ready + "echo 'page 10 10 2'; head -c 400 /dev/zero; exec cat >/dev/null", ErrDamaged},
		{"says the document", ready + "echo \"error $req\"; exec cat >/dev/null", ErrDamaged},
		{"a long line", ready + "head -c 100000 /dev/zero | tr '\\0' a; exec cat >/dev/null", ErrDamaged},
	} {
		forgetRenderer()
		lim := fakeRenderer(t, tc.script)
		d := &Doc{MediaType: PDF, Pages: 1, pdf: twoPagePDF(), lim: lim}
		_, err := d.Page(ctx, 0)
		if !errors.Is(err, tc.want) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if strings.Contains(err.Error(), "%PDF") || strings.Contains(err.Error(), "page 0") {
			t.Fatalf("%s: the line carries the request: %q", tc.name, err)
		}
		if RendererStarted() {
			renderer.mu.Lock()
			c := renderer.child
			renderer.mu.Unlock()
			if !c.ended() {
				t.Fatalf("%s: the broken renderer is kept", tc.name)
			}
		}
	}
	forgetRenderer()
}

// The renderer gets nothing of the console's environment: the API token
// least of all.
func TestTheRendererGetsNoEnvironment(t *testing.T) {
	forgetRenderer()
	defer forgetRenderer()
	t.Setenv("REVIEWER_API_TOKEN", "tok_secret")
	lim := fakeRenderer(t, `echo 'reviewer-pdf 2 ready'; read req
if [ -z "$REVIEWER_API_TOKEN" ] && [ -z "$HOME" ]; then echo 'pages 1'; else echo 'pages 7'; fi
exec cat >/dev/null`)
	n, err := pdfPages(context.Background(), twoPagePDF(), lim)
	if err != nil || n != 1 {
		t.Fatalf("the renderer saw the environment: %d pages, %v", n, err)
	}
}

// The console finds reviewer-pdf beside its own executable first (where
// make build and the bundle put it), before REVIEWER_PDF_RENDERER: this
// test binary, copied beside the built renderer, opens a PDF with a
// Renderer that names a broken one.
func TestTheRendererIsFoundBesideTheConsole(t *testing.T) {
	if os.Getenv("REVIEWER_TEST_BESIDE") == "1" {
		lim := fakeRenderer(t, "exit 3")
		lim.RendererCache = os.Getenv("REVIEWER_TEST_CACHE")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		d, err := Open(ctx, PDF, twoPagePDF(), lim)
		if err != nil || d.Pages != 2 {
			t.Fatalf("beside the console: %v", err)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	helper := rendererHelper(t)
	dir := t.TempDir()
	for src, dst := range map[string]string{os.Args[0]: "console", helper: RendererName} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(dir, "console"), "-test.run=^TestTheRendererIsFoundBesideTheConsole$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "REVIEWER_TEST_BESIDE=1", "REVIEWER_TEST_CACHE="+rendererCache(t))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// A renderer that never answers is killed on the page's time limit, even
// one that ignores its pipes; the next page starts a fresh one.
func TestAHungRendererIsKilledOnTheTimeLimit(t *testing.T) {
	forgetRenderer()
	defer forgetRenderer()
	lim := fakeRenderer(t, "echo 'reviewer-pdf 2 ready'; exec sleep 600")
	lim.PDFTimeout = 300 * time.Millisecond
	d := &Doc{MediaType: PDF, Pages: 1, pdf: twoPagePDF(), lim: lim}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := d.Page(ctx, 0); !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v", err)
	}
	renderer.mu.Lock()
	c := renderer.child
	renderer.mu.Unlock()
	if c != nil {
		t.Fatal("the hung renderer is kept")
	}
}

// The renderer itself refuses what is not of the protocol: a request it
// does not know ends it, and a PDF over the limit is refused unread.
func TestTheRendererRefusesWhatIsNotOfItsProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	lim := pdfLimits(t)
	run := func(in string) (string, error) {
		cmd := exec.Command(lim.Renderer, "-cache", lim.RendererCache)
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.Output()
		return string(out), err
	}
	out, err := run("page 0 0 3\nabc" + "pages 3\n%PD" + "hello\n")
	want := pdfproto.Ready + "\nerror badrequest\nerror unopenable\nerror badrequest\n"
	var ee *exec.ExitError
	if out != want || !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Fatalf("answered %q (%v), want %q and exit 4", out, err, want)
	}
	big := strings.Repeat("x", pdfproto.MaxInput+1)
	out, err = run(fmt.Sprintf("pages %d\n%s", len(big), big))
	if out != pdfproto.Ready+"\nerror toolarge\n" || err != nil {
		t.Fatalf("answered %q (%v)", out, err)
	}
}

// A reviewer who moves on cancels the page: the renderer finishes it
// within its limit and is kept, so that the next PDF pays no new start.
func TestACancelledPageKeepsTheRenderer(t *testing.T) {
	forgetRenderer()
	defer forgetRenderer()
	dir := t.TempDir()
	got, goOn := filepath.Join(dir, "got"), filepath.Join(dir, "go")
	for _, p := range []string{got, goOn} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// It says when it has the request, waits to be let go, then answers
	// it and, ahead of time, the next one.
	lim := fakeRenderer(t, fmt.Sprintf(`echo 'reviewer-pdf 2 ready'; read req
echo got > %s; read x < %s
echo 'pages 1'; echo 'pages 2'; exec cat >/dev/null`, got, goOn))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := pdfPages(ctx, []byte("%PDF-1.4"), lim); errc <- err }()
	if _, err := os.ReadFile(got); err != nil { // blocks until the renderer has the request
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if err := os.WriteFile(goOn, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := pdfPages(context.Background(), []byte("%PDF-1.4"), lim)
	if err != nil || n != 2 {
		t.Fatalf("the next PDF: %d pages, %v (a fresh renderer would not answer)", n, err)
	}
}

// A PDF locked with a password to open it (py-pdf's sample, saved by
// LibreOffice Writer with "openpassword") is sound: it is said to be
// protected, with what to ask the customer for, never called damaged.
func TestAPasswordProtectedPDFIsSaidToBeProtectedNotDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	forgetRenderer()
	defer forgetRenderer()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	_, err := Open(ctx, PDF, readSample(t, "pdfs/libreoffice-writer-password.pdf"), pdfLimits(t))
	if !errors.Is(err, ErrProtected) || errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v, want the PDF said to be protected by a password", err)
	}
	for _, w := range []string{"protected by a password", "Ask the customer for the same document saved without a password"} {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%q does not say %q", err, w)
		}
	}
}

// pagePixels counts the pixels of page p (a page of pw × ph points, drawn
// whole) within the rectangle x0,y0–x1,y1 in PDF points (origin at the
// lower left) that match, and how many there are.
func pagePixels(p image.Image, pw, ph, x0, y0, x1, y1 float64, match func(r, g, b uint8) bool) (n, of int) {
	b := p.Bounds()
	sx, sy := float64(b.Dx())/pw, float64(b.Dy())/ph
	for y := int((ph - y1) * sy); y < int((ph-y0)*sy); y++ {
		for x := int(x0 * sx); x < int(x1*sx); x++ {
			r, g, bl, _ := p.At(b.Min.X+x, b.Min.Y+y).RGBA()
			if match(uint8(r>>8), uint8(g>>8), uint8(bl>>8)) {
				n++
			}
			of++
		}
	}
	return n, of
}

// What the customer filled in and stamped is drawn: pdf.js's
// annotation-tx3.pdf, a filled text field (light blue, four lines of
// black text) drawn through PDFium's form-fill environment, and
// red_stamp.pdf, a red stamp annotation drawn with FPDF_ANNOT. Both pages
// were white (0 pixels of either colour).
func TestAPDFsFormFieldsAndStampsAreDrawn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	forgetRenderer()
	defer forgetRenderer()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	lim := pdfLimits(t)
	page := func(name string) image.Image {
		d, err := Open(ctx, PDF, readSample(t, "pdfs/"+name), lim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := d.Page(ctx, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p
	}

	tx := page("annotation-tx3.pdf")
	// The field is at 16.7,44.7–316.6,778.3 on a 612 × 792 page, its
	// background 0.67,0.75,1 and its text black, from the top.
	blue, inField := pagePixels(tx, 612, 792, 26, 55, 306, 768, func(r, g, b uint8) bool { return b > 230 && r < 200 && r > 140 })
	if blue < inField/2 {
		t.Fatalf("annotation-tx3.pdf: %d of %d pixels of the field are its light blue", blue, inField)
	}
	text, _ := pagePixels(tx, 612, 792, 17, 700, 316, 778, func(r, g, b uint8) bool { return r < 90 && g < 90 && b < 90 })
	if text < 200 {
		t.Fatalf("annotation-tx3.pdf: %d dark pixels where the field's first lines are", text)
	}

	stamp := page("red_stamp.pdf")
	// The page's crop box (55.5,447–359.3,762) lies within the stamp
	// (4.8,381.7–410.3,787.3): the page is the stamp's red.
	red, inStamp := pagePixels(stamp, 1, 1, 0, 0, 1, 1, func(r, g, b uint8) bool { return r > 150 && g < 110 && b < 110 })
	if red < inStamp*9/10 {
		t.Fatalf("red_stamp.pdf: %d of %d pixels of the stamp are red", red, inStamp)
	}
	t.Logf("field: %d of %d light blue, %d dark; stamp: %d of %d red", blue, inField, text, red, inStamp)
}

// ink counts the dark pixels (luma under 128) of p within box, and
// returns the box around all of p's dark pixels.
func ink(p image.Image, box image.Rectangle) (n int, around image.Rectangle) {
	b := p.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := p.At(x, y).RGBA()
			if (299*r+587*g+114*bl)/1000 >= 128<<8 {
				continue
			}
			pt := image.Pt(x-b.Min.X, y-b.Min.Y)
			around = around.Union(image.Rectangle{pt, pt.Add(image.Pt(1, 1))})
			if pt.In(box) {
				n++
			}
		}
	}
	return n, around
}

// popplerPage is page 1 of the sample file drawn by poppler's pdftoppm at
// the renderer's 150 dpi, with the system's fonts (fontconfig).
func popplerPage(t *testing.T, name string) image.Image {
	t.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Fatal("pdftoppm is not installed: make deps-test installs poppler-utils")
	}
	out := filepath.Join(t.TempDir(), "page")
	if b, err := exec.Command("pdftoppm", "-r", "150", "-f", "1", "-l", "1", "-singlefile", "-png", filepath.Join("testdata", "pdfs", name), out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm %s: %v: %s", name, err, b)
	}
	f, err := os.Open(out + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// Text in a font the PDF does not embed (Chinese and Japanese, as a
// customer's documents from there often are) is drawn in a font of the
// system's, read-only, and the page says so. pdf.js's four such files:
// within the box around poppler's ink, the page drawn by the console has
// at least 60 % of poppler's dark pixels. Before the renderer was given
// the system's fonts it had 0 % (issue8372.pdf, noembed-eucjp.pdf), 5 %
// (XiaoBiaoSong.pdf) and 31 % (issue11555.pdf, its Latin text only).
// Needs a CJK font (make deps-test installs fonts-wqy-microhei) and
// poppler-utils.
func TestAPDFsTextInFontsItDoesNotEmbedIsDrawnAndSaidToBeSubstituted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the PDF renderer (seconds)")
	}
	if out, err := exec.Command("fc-list", ":lang=zh").Output(); err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Fatal("no Chinese font is installed (fc-list :lang=zh): make deps-test installs fonts-wqy-microhei")
	}
	forgetRenderer()
	defer forgetRenderer()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	lim := pdfLimits(t)
	for _, name := range []string{"issue8372.pdf", "issue11555.pdf", "noembed-eucjp.pdf", "XiaoBiaoSong.pdf"} {
		d, err := Open(ctx, PDF, readSample(t, "pdfs/"+name), lim)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := d.Page(ctx, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref := popplerPage(t, name)
		want, box := ink(ref, ref.Bounds())
		if want < 500 {
			t.Fatalf("%s: poppler drew only %d dark pixels: are a CJK font and poppler-data installed (make deps-test)?", name, want)
		}
		// The two renderers round the page's size apart by a pixel, and place vertical text a few apart.
		got, _ := ink(p, box.Inset(-8))
		t.Logf("%s: %d dark pixels in %v against poppler's %d (%.0f %%)", name, got, box, want, 100*float64(got)/float64(want))
		if got*10 < want*6 {
			t.Errorf("%s: %d dark pixels where poppler draws %d: the text in its substituted font is missing", name, got, want)
		}
		if !d.FontsSubstituted(0) {
			t.Errorf("%s: the page does not say its fonts were substituted", name)
		}
	}
	// A page whose only font is one of the standard 14 (Helvetica, which
	// every reader has) is not said to be substituted.
	d, err := Open(ctx, PDF, readSample(t, "pdfs/annotation-tx3.pdf"), lim)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Page(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if d.FontsSubstituted(0) {
		t.Error("annotation-tx3.pdf (Helvetica) is said to have a font substituted")
	}
}
