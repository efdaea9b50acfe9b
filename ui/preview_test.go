package ui

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// fakeDocs is a workflow's documents: real PNG bytes, decoded by the real
// decoder; a gate holds an item's fetch until released (a big file on a
// slow line), and every fetch is announced on started.
type fakeDocs struct {
	mu       sync.Mutex
	files    map[string][]review.Document // by item, oldest first
	versions map[string][]review.DocumentVersion
	errs     map[string]error
	gates    map[string]chan struct{}
	started  chan string
	fetches  int
}

func newFakeDocs() *fakeDocs {
	return &fakeDocs{files: map[string][]review.Document{}, versions: map[string][]review.DocumentVersion{}, errs: map[string]error{},
		gates: map[string]chan struct{}{}, started: make(chan string, 100)}
}

func (f *fakeDocs) add(id, mediaType string, data []byte, ver review.DocumentVersion) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.files[id]) + 1
	f.files[id] = append(f.files[id], review.Document{ItemID: id, Version: n, MediaType: mediaType, Data: data})
	ver.Version = n
	f.versions[id] = append(f.versions[id], ver)
}

func (f *fakeDocs) Document(ctx context.Context, id string, version int) (review.Document, error) {
	f.mu.Lock()
	gate, err, files, started := f.gates[id], f.errs[id], f.files[id], f.started
	f.fetches++
	f.mu.Unlock()
	started <- id
	if gate != nil {
		<-gate // deliberately deaf to ctx: the late answer must be dropped by the window
	}
	if err != nil {
		return review.Document{}, err
	}
	if len(files) == 0 {
		return review.Document{}, errors.New("no document for this item")
	}
	if version == 0 {
		return files[len(files)-1], nil
	}
	return files[version-1], nil
}

func (f *fakeDocs) DocumentVersions(ctx context.Context, id string) ([]review.DocumentVersion, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]review.DocumentVersion(nil), f.versions[id]...), nil
}

// cardPNG is a card of colour bg with a dark box on its left third.
func cardPNG(t *testing.T, w, h int, bg color.RGBA) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := bg
			if x < w/3 {
				c = color.RGBA{10, 10, 10, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	blue = color.RGBA{20, 40, 220, 255}
	red  = color.RGBA{220, 30, 20, 255}
)

// colourAt is the colour of the preview's picture at a fraction of it.
func colourAt(img image.Image, fx, fy float64) color.RGBA {
	b := img.Bounds()
	return color.RGBAModel.Convert(img.At(b.Min.X+int(fx*float64(b.Dx())), b.Min.Y+int(fy*float64(b.Dy())))).(color.RGBA)
}

func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int { return max(int(x), int(y)) - min(int(x), int(y)) }
	return d(a.R, b.R) < 20 && d(a.G, b.G) < 20 && d(a.B, b.B) < 20
}

func docConsole(t *testing.T, docs Documents, items ...review.ItemView) *Console {
	t.Helper()
	wf := &fakeWorkflow{items: items}
	var opts Options
	if docs != nil {
		opts.Documents = docs
	}
	c := newTestConsoleWith(t, wf, opts)
	c.apply(c.panel.preview.arm) // as moving to an item, or v, does
	c.Settle()
	return c
}

func waitFor(t *testing.T, docs *fakeDocs, want string) {
	t.Helper()
	docs.mu.Lock()
	ch := docs.started
	docs.mu.Unlock()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("no fetch of %s", want)
		}
	}
}

func TestThePanelShowsTheItemsDocument(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 900, 600, blue), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	pv := c.panel.preview
	if pv.itemID != "itm_1" || pv.state != "shown" || !pv.img.Visible() || pv.line.Visible() {
		t.Fatalf("item %q state %q line %q", pv.itemID, pv.state, pv.line.Text)
	}
	// Scaled off the UI goroutine to the panel's size, proportions kept.
	if b := pv.shown.Bounds(); b.Dx() != previewMax || b.Dy() != previewMax*2/3 {
		t.Fatalf("preview %v", b)
	}
	if !near(colourAt(pv.shown, 0.8, 0.5), blue) || !near(colourAt(pv.shown, 0.1, 0.5), color.RGBA{10, 10, 10, 255}) {
		t.Fatalf("preview colours %v %v", colourAt(pv.shown, 0.8, 0.5), colourAt(pv.shown, 0.1, 0.5))
	}
}

// A big file on a slow line for one item never blocks the window, and its
// picture, when it arrives late, is not shown for the item now on screen.
func TestSwitchingItemsWhileABigFileLoadsShowsOnlyTheCurrentItem(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	docs.add("itm_2", "image/png", cardPNG(t, 300, 200, red), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED"))
	pv := c.panel.preview
	if pv.state != "shown" || !near(colourAt(pv.shown, 0.8, 0.5), blue) {
		t.Fatalf("first item: %q", pv.state)
	}

	gate := make(chan struct{})
	docs.mu.Lock()
	docs.gates["itm_2"] = gate
	docs.mu.Unlock()
	c.apply(func() { c.panel.show("itm_2") })
	waitFor(t, docs, "itm_2")
	if pv.state != "loading" || pv.img.Visible() || !strings.Contains(pv.line.Text, "Loading") {
		t.Fatalf("while loading: state %q, picture shown %v, %q", pv.state, pv.img.Visible(), pv.line.Text)
	}

	// Back to the first item while the second still loads: not blocked.
	switched := make(chan struct{})
	go func() { c.apply(func() { c.panel.show("itm_1") }); close(switched) }()
	select {
	case <-switched:
	case <-time.After(30 * time.Second):
		t.Fatal("switching items waited for the big file")
	}
	waitFor(t, docs, "itm_1")
	close(gate) // the second item's file arrives, late
	c.Settle()
	if pv.itemID != "itm_1" || pv.state != "shown" || !near(colourAt(pv.shown, 0.8, 0.5), blue) {
		t.Fatalf("item %q state %q colour %v: the late file of itm_2 was shown", pv.itemID, pv.state, colourAt(pv.shown, 0.8, 0.5))
	}
	if !near(colourAt(pv.img.Image, 0.8, 0.5), blue) {
		t.Fatal("the picture on screen is not the item's")
	}
}

// When the document cannot be shown, the panel says why in one line, and
// nothing looks like a picture.
func TestThePanelSaysInOneLineWhyTheDocumentCannotBeShown(t *testing.T) {
	for _, tc := range []struct {
		name string
		docs func(*fakeDocs) Documents
		want string
	}{
		{"1.0 service", func(*fakeDocs) Documents { return nil }, "The service offers no documents"},
		{"offline", func(d *fakeDocs) Documents {
			d.errs["itm_1"] = errors.New("offline, and this document is not kept for offline review")
			return d
		}, "Offline, and this document is not kept for offline review."},
		{"lying type", func(d *fakeDocs) Documents {
			d.add("itm_1", "image/jpeg", cardPNG(t, 30, 20, blue), review.DocumentVersion{})
			return d
		}, "Refused: the service said a JPEG image, but the file's first bytes are a PNG image."},
		{"damaged", func(d *fakeDocs) Documents {
			b := cardPNG(t, 300, 200, blue)
			d.add("itm_1", "image/png", b[:len(b)/2], review.DocumentVersion{})
			return d
		}, "The file is damaged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := docConsole(t, tc.docs(newFakeDocs()), errorItem("itm_1", "DECODE_FAILED"))
			pv := c.panel.preview
			if pv.state != "refused" || pv.img.Visible() || !pv.line.Visible() || !strings.HasPrefix(pv.line.Text, tc.want) {
				t.Fatalf("state %q picture %v line %q", pv.state, pv.img.Visible(), pv.line.Text)
			}
			if strings.Contains(pv.line.Text, "\n") {
				t.Fatalf("more than one line: %q", pv.line.Text)
			}
		})
	}
}

// typeOn types runes into a window, on the UI goroutine as Fyne's driver
// would (at once when the caller is on it): a key typed beside the
// loop's work raced with it (a viewer opened by v was once not yet there
// when the test looked).
func typeOn(w fyne.Window, runes string) {
	asUI(func() {
		on := w.Canvas().(interface{ OnTypedRune() func(rune) }).OnTypedRune()
		for _, r := range runes {
			on(r)
		}
	})
}

// pressOn presses a key in a window, on the UI goroutine (typeOn).
func pressOn(w fyne.Window, k fyne.KeyName) {
	asUI(func() {
		w.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: k})
	})
}

func twoVersions(t *testing.T) *fakeDocs {
	docs := newFakeDocs()
	score := 87
	sent := time.Date(2026, 3, 2, 10, 4, 0, 0, time.Local)
	docs.add("itm_1", "image/png", cardPNG(t, 600, 400, blue), review.DocumentVersion{MediaType: "image/png", When: sent,
		Recorded: review.DocumentResult{Status: policy.StatusError, Code: "DECODE_FAILED", Score: &score, Band: policy.BandCritical, When: sent.Add(time.Minute)}})
	docs.add("itm_1", "image/png", cardPNG(t, 600, 400, red), review.DocumentVersion{MediaType: "image/png", When: sent.Add(time.Hour),
		Recorded: review.DocumentResult{Status: policy.StatusScored, Score: &score, Band: policy.BandCritical, When: sent.Add(time.Hour + time.Minute)}})
	return docs
}

// The viewer opens from the keyboard on the first file beside the latest,
// each with the result recorded for it; zoom, pan and rotation move both
// until unlocked; Esc closes.
func TestTheViewerPutsTheFirstFileBesideTheReplacementLocked(t *testing.T) {
	c := docConsole(t, twoVersions(t), errorItem("itm_1", "DECODE_FAILED"))
	typeOn(c.win, "v")
	c.Settle()
	v := c.viewer
	if v == nil || len(v.sides) != 2 {
		t.Fatalf("viewer %v", v)
	}
	l, r := v.sides[0], v.sides[1]
	for _, s := range v.sides {
		if s.state != "shown" || s.line.Visible() {
			t.Fatalf("side %q: %q", s.title.Text, s.line.Text)
		}
	}
	if !strings.Contains(l.title.Text, "Version 1 (the first file)") || !strings.Contains(r.title.Text, "Version 2 (the latest)") {
		t.Fatalf("titles %q, %q", l.title.Text, r.title.Text)
	}
	// Under each: status, then score or code, and when. An error shows its
	// code and never a score, even one the record carries.
	if got := l.result.Text; !strings.HasPrefix(got, "Result: error, DECODE_FAILED, at 2 Mar 10:05") || strings.Contains(got, "87") || strings.Contains(got, "critical") {
		t.Fatalf("first: %q", got)
	}
	if got := r.result.Text; got != "Result: scored, score 87 · critical, at 2 Mar 11:05." {
		t.Fatalf("latest: %q", got)
	}
	// The pictures: the first file is blue, the replacement red.
	if !near(colourAt(l.draw(400, 300), 0.7, 0.5), blue) || !near(colourAt(r.draw(400, 300), 0.7, 0.5), red) {
		t.Fatal("the sides do not show their versions")
	}

	// Locked: one key turns and zooms both.
	typeOn(v.win, "]+")
	if l.view.turns != 1 || r.view.turns != 1 || l.view.zoom == 0 || l.view.zoom != r.view.zoom {
		t.Fatalf("locked: %+v %+v", l.view, r.view)
	}
	pressOn(v.win, fyne.KeyRight)
	if l.view.cx != r.view.cx || l.view.cy != r.view.cy || (l.view.cx == 300 && l.view.cy == 200) {
		t.Fatalf("locked pan: %+v %+v", l.view, r.view)
	}
	// Unlocked: the keys move the side chosen with s.
	typeOn(v.win, "ls]")
	if v.locked || v.active != 1 || r.view.turns != 2 || l.view.turns != 1 {
		t.Fatalf("unlocked: %+v %+v", l.view, r.view)
	}
	typeOn(v.win, "0")
	if r.view.zoom != 0 || l.view.zoom == 0 {
		t.Fatalf("fit: %+v %+v", l.view, r.view)
	}
	// Locked again, the line says each side's turn, not only the active one's.
	typeOn(v.win, "l")
	if got := v.status.Text; !strings.Contains(got, "turned: left 90°, right 180°") {
		t.Fatalf("locked with two turns: %q", got)
	}
	typeOn(v.win, "l")
	// The rotation is the view's: the bytes are the same.
	if l.full.Bounds().Dx() != 600 || r.full.Bounds().Dx() != 600 {
		t.Fatal("the page changed")
	}
	// A quarter turn clockwise puts the card's dark left third on top.
	l.view = view{turns: 1}
	l.centre()
	img := l.draw(300, 600)
	if !near(colourAt(img, 0.5, 0.15), color.RGBA{10, 10, 10, 255}) || !near(colourAt(img, 0.5, 0.8), blue) {
		t.Fatalf("turned: top %v bottom %v", colourAt(img, 0.5, 0.15), colourAt(img, 0.5, 0.8))
	}
	// The reviewer chooses the versions: c gives the side its next one.
	typeOn(v.win, "c")
	c.Settle()
	if r.idx != 0 || r.state != "shown" || !near(colourAt(r.draw(400, 300), 0.5, 0.5), blue) {
		t.Fatalf("next version: %d", r.idx)
	}
	pressOn(v.win, fyne.KeyEscape)
	if v.ctx.Err() == nil || c.viewer != nil {
		t.Fatal("Esc did not close the viewer")
	}
}

// The viewer's states for one version: loading, refused and offline say
// so in words and draw no picture.
func TestTheViewersStatesSayWhatTheyAre(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 60, 40, blue), review.DocumentVersion{})
	docs.add("itm_2", "image/png", cardPNG(t, 60, 40, blue), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED")) // the panel shows itm_1

	gate := make(chan struct{})
	docs.mu.Lock()
	docs.gates["itm_2"] = gate
	docs.started = make(chan string, 100) // only the viewer's fetches from here
	docs.mu.Unlock()
	v := openViewer(c, docs, c.panel.preview.lim, "itm_2")
	waitFor(t, docs, "itm_2")
	// The fetch starts once the versions are applied: the side exists.
	s := v.sides[0]
	if s.state != "loading" || !strings.Contains(s.line.Text, "Loading") {
		t.Fatalf("loading: %q %q", s.state, s.line.Text)
	}
	close(gate)
	c.Settle()
	if s.state != "shown" || s.line.Visible() {
		t.Fatalf("shown: %q %q", s.state, s.line.Text)
	}
	docs.add("itm_3", "image/webp", cardPNG(t, 60, 40, blue), review.DocumentVersion{})
	v = openViewer(c, docs, c.panel.preview.lim, "itm_3")
	c.Settle()
	if s := v.sides[0]; s.state != "refused" || !strings.HasPrefix(s.line.Text, "Refused: the service said a WebP image") {
		t.Fatalf("refused: %q %q", s.state, s.line.Text)
	}
	if img := v.sides[0].draw(40, 40); !near(colourAt(img, 0.5, 0.5), viewerBackground) {
		t.Fatal("a refused file drew a picture")
	}
	docs.mu.Lock()
	docs.errs["itm_4"] = errors.New("offline, and this document is not kept for offline review")
	docs.mu.Unlock()
	old := v
	v = openViewer(c, docs, c.panel.preview.lim, "itm_4")
	c.Settle()
	if old.ctx.Err() == nil || c.viewer != v {
		t.Fatal("a second viewer left the first open")
	}
	if s := v.sides[0]; s.state != "refused" || s.line.Text != "Offline, and this document is not kept for offline review." {
		t.Fatalf("offline: %q %q", s.state, s.line.Text)
	}
}

// A replacement (the item changed) shows its new file in the panel; a
// double click on the picture opens the viewer, which then puts the first
// file beside it.
func TestAReplacementShowsItsNewFileAndADoubleClickOpensTheViewer(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED")}}
	c := newTestConsoleWith(t, wf, Options{Documents: docs})
	c.apply(c.panel.preview.arm) // as v does
	c.Settle()
	pv := c.panel.preview
	if pv.state != "shown" || !near(colourAt(pv.shown, 0.8, 0.5), blue) {
		t.Fatalf("first file: %q", pv.state)
	}
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, red), review.DocumentVersion{})
	c.apply(c.panel.refresh) // nothing changed yet: no fetch
	c.Settle()
	if !near(colourAt(pv.shown, 0.8, 0.5), blue) {
		t.Fatal("fetched again with no change")
	}
	wf.mu.Lock()
	wf.items[0].Item.UpdatedAt = wf.items[0].Item.UpdatedAt.Add(time.Minute)
	wf.mu.Unlock()
	c.apply(c.panel.refresh)
	c.Settle()
	if pv.state != "shown" || !near(colourAt(pv.shown, 0.8, 0.5), red) {
		t.Fatalf("after the replacement: %q %v", pv.state, colourAt(pv.shown, 0.8, 0.5))
	}

	test.DoubleTap(pv.content)
	c.Settle()
	if c.viewer == nil || len(c.viewer.sides) != 2 || c.viewer.sides[1].state != "shown" {
		t.Fatalf("viewer %+v", c.viewer)
	}
}

// The viewer opened on the item the panel shows starts from the preview's
// decoded file: no second fetch nor decode, only a scale to the window.
func TestTheViewerStartsFromThePreviewsDecodedFile(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 900, 600, blue), review.DocumentVersion{Recorded: review.DocumentResult{Status: policy.StatusScored}})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	docs.mu.Lock()
	before := docs.fetches
	docs.mu.Unlock()
	typeOn(c.win, "v")
	c.Settle()
	docs.mu.Lock()
	after := docs.fetches
	docs.mu.Unlock()
	s := c.viewer.sides[0]
	if s.state != "shown" || s.full.Bounds().Dx() != 900 || after != before {
		t.Fatalf("state %q, fetched %d more", s.state, after-before)
	}
	if s.doc != c.panel.preview.doc {
		t.Fatal("decoded again")
	}
}

// The item the window opens on shows no document until the reviewer moves
// to an item or presses v: nothing is fetched or decoded because the
// window started.
func TestTheFirstItemsDocumentWaitsUntilSheLooks(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	docs.add("itm_2", "image/png", cardPNG(t, 300, 200, red), review.DocumentVersion{})
	c := newTestConsoleWith(t, &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED")}},
		Options{Documents: docs})
	c.Settle()
	pv := c.panel.preview
	if pv.itemID != "itm_1" || pv.state != "waiting" || pv.line.Text != notArmed || nFetches(docs) != 0 {
		t.Fatalf("at start: item %q state %q line %q, %d fetches", pv.itemID, pv.state, pv.line.Text, nFetches(docs))
	}
	c.apply(func() { c.items.move(1) })
	c.Settle()
	if pv.itemID != "itm_2" || pv.state != "shown" || nFetches(docs) != 1 {
		t.Fatalf("after a move: item %q state %q, %d fetches", pv.itemID, pv.state, nFetches(docs))
	}
}

func nFetches(f *fakeDocs) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetches
}
