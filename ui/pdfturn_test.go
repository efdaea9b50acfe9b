package ui

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/internal/document/pdfproto"
	"github.com/trustscreen/reviewer/internal/document/pdftest"
	"github.com/trustscreen/reviewer/review"
)

// The viewer's PDF pages, drawn by the real renderer: reviewer-pdf built
// once for the test binary (pdftest, shared with internal/document's
// tests) and started, once, by the first PDF the window shows. Its first
// start takes seconds (PDFium is compiled); each test waits on the
// console's background work (Settle), however long that takes, never on
// a time.

func TestMain(m *testing.M) {
	code := m.Run()
	pdftest.Cleanup()
	os.Exit(code)
}

// pdfConsole is a console on docs whose PDFs the real renderer draws.
func pdfConsole(t *testing.T, docs Documents, items ...review.ItemView) *Console {
	t.Helper()
	lim := document.DefaultLimits()
	lim.Renderer, lim.RendererCache = pdftest.Renderer(t)
	c := newTestConsoleWith(t, &fakeWorkflow{items: items}, Options{Documents: docs, DocumentLimits: lim})
	c.apply(c.panel.preview.arm) // as moving to an item, or v, does
	c.Settle()
	return c
}

var (
	pdfBlue  = color.RGBA{0, 0, 255, 255} // page 1's square
	pdfRed   = color.RGBA{255, 0, 0, 255} // page 2's
	pdfWhite = color.RGBA{255, 255, 255, 255}
)

// pageOf says which page of pdftest.TwoPagePDF a picture of it is: its
// lower left quarter is blue on page 1, red on page 2, and its upper
// right white on both.
func pageOf(img image.Image) int {
	if img == nil || !near(colourAt(img, 0.75, 0.25), pdfWhite) {
		return 0
	}
	switch c := colourAt(img, 0.25, 0.75); {
	case near(c, pdfBlue):
		return 1
	case near(c, pdfRed):
		return 2
	}
	return 0
}

// onScreen counts the pixels of the viewer's window, as drawn, that are
// near c.
func onScreen(v *viewer, c color.RGBA) int {
	img := v.win.Canvas().Capture()
	b, n := img.Bounds(), 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if near(color.RGBAModel.Convert(img.At(x, y)).(color.RGBA), c) {
				n++
			}
		}
	}
	return n
}

// key presses k on the viewer as the UI goroutine would: one widget
// update at a time.
func (v *viewer) key(k fyne.KeyName) { v.c.apply(func() { v.onKey(&fyne.KeyEvent{Name: k}) }) }

// wantPage checks that side s shows page want of two: its title, its
// picture at full size and as the raster draws it.
func wantPage(t *testing.T, s *side, want int) {
	t.Helper()
	var title string
	var full, drawn int
	s.v.c.apply(func() {
		title, full, drawn = s.title.Text, pageOf(s.full), pageOf(s.draw(300, 424))
	})
	if s.state != "shown" || s.page != want-1 || full != want || drawn != want ||
		!strings.HasSuffix(title, " · page "+string(rune('0'+want))+" of 2") {
		t.Fatalf("want page %d: state %q (%q), page %d, title %q, the picture is page %d, drawn page %d",
			want, s.state, s.line.Text, s.page+1, title, full, drawn)
	}
}

func pdfDocs() *fakeDocs {
	docs := newFakeDocs()
	docs.add("itm_1", document.PDF, pdftest.TwoPagePDF(), review.DocumentVersion{MediaType: document.PDF})
	return docs
}

// The viewer opens a two-page PDF on page 1, drawn; Page Down shows page
// 2 and stays there at the end; Page Up comes back to page 1.
func TestTheViewerTurnsAPDFsPages(t *testing.T) {
	c := pdfConsole(t, pdfDocs(), errorItem("itm_1", "DECODE_FAILED"))
	pv := c.panel.preview
	if pv.state != "shown" || pv.pages != 2 || pageOf(pv.shown) != 1 {
		t.Fatalf("the panel: state %q (%q), %d pages", pv.state, pv.line.Text, pv.pages)
	}
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v := c.viewer
	if v == nil || len(v.sides) != 1 {
		t.Fatalf("viewer %+v", v)
	}
	s := v.sides[0]
	wantPage(t, s, 1)
	if blue, red := onScreen(v, pdfBlue), onScreen(v, pdfRed); blue < 1000 || red != 0 {
		t.Fatalf("page 1 on screen: %d blue pixels, %d red", blue, red)
	}

	v.key(fyne.KeyPageDown)
	c.Settle()
	wantPage(t, s, 2)
	if blue, red := onScreen(v, pdfBlue), onScreen(v, pdfRed); red < 1000 || blue != 0 {
		t.Fatalf("page 2 on screen: %d blue pixels, %d red", blue, red)
	}
	v.key(fyne.KeyPageDown) // there is no page 3
	c.Settle()
	wantPage(t, s, 2)
	v.key(fyne.KeyPageUp)
	c.Settle()
	wantPage(t, s, 1)
	if blue, red := onScreen(v, pdfBlue), onScreen(v, pdfRed); blue < 1000 || red != 0 {
		t.Fatalf("page 1 again on screen: %d blue pixels, %d red", blue, red)
	}
}

// Turning pages faster than they are drawn ends on the page asked for
// last: a page still being drawn when another is asked for is never shown
// after it, and a turn asked for while the PDF's first page is still
// loading is not lost.
func TestTheLastPageAskedForIsTheOneShown(t *testing.T) {
	docs := pdfDocs()
	docs.add("itm_2", document.PDF, pdftest.TwoPagePDF(), review.DocumentVersion{MediaType: document.PDF})
	c := pdfConsole(t, docs, errorItem("itm_1", "DECODE_FAILED")) // the panel's PDF starts the renderer
	if pv := c.panel.preview; pv.state != "shown" {
		t.Fatalf("the panel: %q (%q)", pv.state, pv.line.Text)
	}
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v := c.viewer
	s := v.sides[0]
	wantPage(t, s, 1)

	// Page 2 is asked for, then page 1 while page 2 is being drawn (the
	// two keys in one turn of the UI goroutine: page 2's picture cannot
	// have come back in between).
	c.apply(func() {
		v.onKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
		if s.state != "loading" || !strings.Contains(s.line.Text, "Drawing page 2") {
			t.Errorf("while page 2 is drawn: %q %q", s.state, s.line.Text)
		}
		v.onKey(&fyne.KeyEvent{Name: fyne.KeyPageUp})
	})
	c.Settle()
	wantPage(t, s, 1)
	// Down, up, down: page 2.
	c.apply(func() {
		for _, k := range []fyne.KeyName{fyne.KeyPageDown, fyne.KeyPageUp, fyne.KeyPageDown} {
			v.onKey(&fyne.KeyEvent{Name: k})
		}
	})
	c.Settle()
	wantPage(t, s, 2)

	// A viewer on another item, whose file is still on its way: Page
	// Down then is page 2 once the PDF is open.
	gate := make(chan struct{})
	docs.mu.Lock()
	docs.gates["itm_2"] = gate
	docs.started = make(chan string, 100) // only the viewer's fetches from here
	docs.mu.Unlock()
	c.apply(func() { v = openViewer(c, docs, c.panel.preview.lim, "itm_2") })
	waitFor(t, docs, "itm_2")
	s = v.sides[0]
	v.key(fyne.KeyPageDown)
	close(gate)
	c.Settle()
	wantPage(t, s, 2)
}

// Side by side, Page Up and Page Down follow the lock as zoom, pan and
// rotation do: locked, they turn both sides; unlocked, the side chosen
// with s. An image beside a PDF has no page to turn and stays as it is.
func TestPagesFollowTheLockSideBySide(t *testing.T) {
	docs := newFakeDocs()
	pdf := review.DocumentVersion{MediaType: document.PDF}
	docs.add("itm_1", document.PDF, pdftest.TwoPagePDF(), pdf)
	docs.add("itm_1", document.PDF, pdftest.TwoPagePDF(), pdf)
	docs.add("itm_2", "image/png", cardPNG(t, 600, 400, blue), review.DocumentVersion{MediaType: "image/png"})
	docs.add("itm_2", document.PDF, pdftest.TwoPagePDF(), pdf)
	c := pdfConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED"))
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v := c.viewer
	if len(v.sides) != 2 {
		t.Fatalf("%d sides", len(v.sides))
	}
	l, r := v.sides[0], v.sides[1]
	wantPage(t, l, 1)
	wantPage(t, r, 1)
	if locked, _, _ := strings.Cut(v.status.Text, "(l unlocks)"); !strings.Contains(locked, "pages") {
		t.Errorf("the locked line does not say that the pages move both sides: %q", v.status.Text)
	}
	step := func(runes string, k fyne.KeyName, left, right int) {
		t.Helper()
		c.apply(func() { typeOn(v.win, runes) })
		v.key(k)
		c.Settle()
		wantPage(t, l, left)
		wantPage(t, r, right)
	}
	step("", fyne.KeyPageDown, 2, 2)  // locked: both
	step("l", fyne.KeyPageUp, 1, 2)   // unlocked: the left side, active
	step("", fyne.KeyPageDown, 2, 2)  // the left again
	step("s", fyne.KeyPageUp, 2, 1)   // s: the right side
	step("l", fyne.KeyPageDown, 2, 2) // locked again: the left is at its end
	step("", fyne.KeyPageUp, 1, 1)
	c.apply(func() { pressOn(v.win, fyne.KeyEscape) })

	// An image beside a PDF.
	c.apply(func() { c.items.move(1) })
	c.Settle()
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v = c.viewer
	l, r = v.sides[0], v.sides[1]
	img := l.full
	image := func() {
		t.Helper()
		if l.state != "shown" || l.full != img || !near(colourAt(l.full, 0.8, 0.5), blue) || l.line.Visible() {
			t.Fatalf("the image side: %q (%q)", l.state, l.line.Text)
		}
	}
	image()
	wantPage(t, r, 1)
	c.apply(func() { v.onKey(&fyne.KeyEvent{Name: fyne.KeyPageDown}) }) // locked
	c.Settle()
	image()
	wantPage(t, r, 2)
	c.apply(func() { typeOn(v.win, "l") }) // unlocked, the image active
	v.key(fyne.KeyPageUp)
	c.Settle()
	image()
	wantPage(t, r, 2)
	c.apply(func() { typeOn(v.win, "s") })
	v.key(fyne.KeyPageUp)
	c.Settle()
	image()
	wantPage(t, r, 1)
}

// Without the renderer, a PDF is one plain line, in the panel and in the
// viewer, where Page Down does nothing; the rest of the console works:
// the next item's image shows, in the panel and in the viewer.
func TestAMissingRendererIsOneLineAndTheConsoleWorks(t *testing.T) {
	if !inOwnProcess(t, nil) { // where no PDF has started the renderer
		return
	}
	const line = "PDF pages cannot be shown: the PDF renderer (reviewer-pdf) is not installed"
	docs := pdfDocs()
	docs.add("itm_2", "image/png", cardPNG(t, 600, 400, blue), review.DocumentVersion{MediaType: "image/png"})
	lim := document.DefaultLimits()
	lim.Renderer = filepath.Join(t.TempDir(), "no-such-"+document.RendererName)
	c := newTestConsoleWith(t, &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED")}},
		Options{Documents: docs, DocumentLimits: lim})
	c.apply(c.panel.preview.arm)
	c.Settle()
	pv := c.panel.preview
	if pv.state != "refused" || pv.line.Text != line || pv.img.Visible() || pv.pages != 0 {
		t.Fatalf("the panel: %q %q, picture %v", pv.state, pv.line.Text, pv.img.Visible())
	}

	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v := c.viewer
	s := v.sides[0]
	if s.state != "refused" || s.line.Text != line || !s.line.Visible() || s.full != nil {
		t.Fatalf("the viewer: %q %q", s.state, s.line.Text)
	}
	v.key(fyne.KeyPageDown)
	c.Settle()
	if s.state != "refused" || s.line.Text != line || s.page != 0 || len(s.turns) != 0 {
		t.Fatalf("after Page Down: %q %q, page %d", s.state, s.line.Text, s.page+1)
	}
	var drawn image.Image
	c.apply(func() { drawn = s.draw(60, 60) })
	if !near(colourAt(drawn, 0.5, 0.5), viewerBackground) || onScreen(v, pdfBlue) != 0 {
		t.Fatal("a PDF that cannot be drawn shows a picture")
	}
	c.apply(func() { pressOn(v.win, fyne.KeyEscape) })
	if c.viewer != nil {
		t.Fatal("Esc did not close the viewer")
	}

	c.apply(func() { c.items.move(1) })
	c.Settle()
	if pv.itemID != "itm_2" || pv.state != "shown" || !near(colourAt(pv.shown, 0.8, 0.5), blue) {
		t.Fatalf("the next item's image: %q %q", pv.state, pv.line.Text)
	}
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	if s := c.viewer.sides[0]; s.state != "shown" || !near(colourAt(s.full, 0.8, 0.5), blue) {
		t.Fatalf("the viewer on the image: %q %q", s.state, s.line.Text)
	}
	if document.RendererStarted() {
		t.Fatal("a renderer runs")
	}
}

// inOwnProcess runs the test again in a test binary of its own, with the
// environment env gives (asked in this run only), and reports whether
// this is that run: the renderer, once a PDF started it, runs for the
// whole process whatever the limits say, so a test that needs another
// renderer (none, or one it holds) cannot share the process.
func inOwnProcess(t *testing.T, env func() []string) bool {
	t.Helper()
	if os.Getenv("REVIEWER_TEST_OWN_PROCESS") == t.Name() {
		if document.RendererStarted() {
			t.Fatal("a renderer runs already")
		}
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), "REVIEWER_TEST_OWN_PROCESS="+t.Name())
	if env != nil {
		cmd.Env = append(cmd.Env, env()...)
	}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%v\n%s", err, out)
	}
	return false
}

// pageGate is the real renderer behind a relay in the test: once armed,
// the next page drawn comes back to the console only when the test lets
// it, so that a page is, for as long as the test needs, still being
// drawn. It counts the pages drawn.
type pageGate struct {
	held    chan int      // a page is drawn and held: its width
	release chan struct{} // lets it go
	armed   atomic.Bool
	pages   atomic.Int64
}

// gatedRenderer writes a renderer (a shell script) that runs the real one
// with its answers sent to a relay in this process, and starts the relay.
func gatedRenderer(t *testing.T, real string) (string, *pageGate) {
	t.Helper()
	dir := t.TempDir()
	out, back := filepath.Join(dir, "answers"), filepath.Join(dir, "let-through")
	for _, p := range []string{out, back} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, document.RendererName)
	// (An asynchronous command's stdin is /dev/null unless given: fd 3
	// carries the console's requests to it.)
	body := fmt.Sprintf("#!/bin/sh\nexec 3<&0\n'%s' \"$@\" <&3 >'%s' 3<&- &\nexec cat '%s' 3<&-\n", real, out, back)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	h := &pageGate{held: make(chan int), release: make(chan struct{})}
	go func() {
		// Each opens when the script's side does: the renderer's start.
		o, err := os.Open(out)
		if err != nil {
			return
		}
		b, err := os.OpenFile(back, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		r := bufio.NewReaderSize(o, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			msg := []byte(line)
			if f, err := pdfproto.Fields(strings.TrimSuffix(line, "\n"), "page", 3, 1<<14); err == nil {
				px := make([]byte, f[0]*f[1]*4)
				if _, err := io.ReadFull(r, px); err != nil {
					return
				}
				msg = append(msg, px...)
				h.pages.Add(1)
				if h.armed.CompareAndSwap(true, false) {
					h.held <- int(f[0])
					<-h.release
				}
			}
			if _, err := b.Write(msg); err != nil {
				return
			}
		}
	}()
	return script, h
}

// hold holds the next page the renderer draws.
func (h *pageGate) hold() { h.armed.Store(true) }

// drawn waits until the renderer has drawn a page and holds it.
// The console's work ending first means that no page was asked for.
func (h *pageGate) drawn(t *testing.T, c *Console) {
	t.Helper()
	settled := make(chan struct{})
	go func() { c.Settle(); close(settled) }()
	select {
	case <-h.held:
	case <-settled:
		t.Fatal("no page was asked for")
	case <-time.After(rendererWait): // the renderer's first start, on a loaded machine, under -race
		t.Fatal("the renderer drew no page")
	}
}

// pass lets the held page go.
func (h *pageGate) pass(t *testing.T) {
	t.Helper()
	select {
	case h.release <- struct{}{}:
	case <-time.After(rendererWait):
		t.Fatal("no page is held")
	}
}

// A page asked for while the one before it is still being drawn is the
// one shown: the earlier page, drawn after she asked for the later one,
// never replaces it.
func TestAPageStillBeingDrawnNeverReplacesTheOneAskedForAfter(t *testing.T) {
	if !inOwnProcess(t, func() []string { // the renderer this binary built, and its compiled code
		bin, cache := pdftest.Renderer(t)
		return []string{"REVIEWER_TEST_RENDERER=" + bin, "REVIEWER_TEST_RENDERER_CACHE=" + cache}
	}) {
		return
	}
	lim := document.DefaultLimits()
	lim.RendererCache = os.Getenv("REVIEWER_TEST_RENDERER_CACHE")
	var h *pageGate
	lim.Renderer, h = gatedRenderer(t, os.Getenv("REVIEWER_TEST_RENDERER"))
	c := newTestConsoleWith(t, &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED")}},
		Options{Documents: pdfDocs(), DocumentLimits: lim})
	c.apply(c.panel.preview.arm) // the panel's page 1
	c.Settle()
	before := h.pages.Load()
	c.apply(func() { typeOn(c.win, "v") }) // the viewer's page 1
	c.Settle()
	v := c.viewer
	s := v.sides[0]
	wantPage(t, s, 1)
	// The renderer draws a page once for the viewer (a PDF page takes it
	// up to the PDF time limit): the window's fit is scaled from it.
	if n := h.pages.Load() - before; n != 1 {
		t.Errorf("the viewer's first page was drawn %d times", n)
	}

	// Page 2 is drawn, and held on its way back; she asks for page 1.
	h.hold()
	v.key(fyne.KeyPageDown)
	h.drawn(t, c)
	if s.state != "loading" || !strings.Contains(s.line.Text, "Drawing page 2") {
		t.Fatalf("while page 2 is drawn: %q %q", s.state, s.line.Text)
	}
	v.key(fyne.KeyPageUp)
	h.pass(t) // page 2 comes back, late; then page 1 is drawn
	c.Settle()
	wantPage(t, s, 1)

	// And the other way: page 1 on its way back while she asked for 2.
	v.key(fyne.KeyPageDown)
	c.Settle()
	wantPage(t, s, 2)
	h.hold()
	v.key(fyne.KeyPageUp)
	h.drawn(t, c)
	v.key(fyne.KeyPageDown)
	h.pass(t)
	c.Settle()
	wantPage(t, s, 2)
}

// rendererWait is the longest wait for a page: the renderer's first start
// (PDFium compiled) on two loaded cores, under -race.
const rendererWait = 3 * time.Minute

// A page whose text is in a font the PDF does not embed (pdf.js's
// issue8372.pdf: Chinese, drawn in the system's CJK font) says so on the
// viewer's status line; a page without one does not.
func TestTheViewerSaysWhenAPagesFontWasSubstituted(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "internal", "document", "testdata", "pdfs", "issue8372.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	docs := newFakeDocs()
	docs.add("itm_1", document.PDF, data, review.DocumentVersion{MediaType: document.PDF})
	c := pdfConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	c.apply(func() { typeOn(c.win, "v") })
	c.Settle()
	v := c.viewer
	if v == nil || len(v.sides) != 1 || v.sides[0].state != "shown" {
		t.Fatalf("viewer %+v", v)
	}
	var st string
	c.apply(func() { st = v.status.Text })
	if !strings.Contains(st, "Page 1: the PDF does not include a font its text uses") {
		t.Fatalf("the status line does not say the font was substituted: %q", st)
	}

	c2 := pdfConsole(t, pdfDocs(), errorItem("itm_1", "DECODE_FAILED"))
	c2.apply(func() { typeOn(c2.win, "v") })
	c2.Settle()
	c2.apply(func() { st = c2.viewer.status.Text })
	if strings.Contains(st, "font") {
		t.Fatalf("a page without text says a font was substituted: %q", st)
	}
}
