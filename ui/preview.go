package ui

import (
	"context"
	"errors"
	"image"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/review"
)

// Documents is what the window asks of the workflow about documents. A
// service that offers none answers so (review.DocumentError), and the panel
// says it. The errors are shown in their own words, on one line.
type Documents interface {
	// Document fetches a version (0: the latest).
	Document(ctx context.Context, itemID string, version int) (review.Document, error)
	// DocumentVersions lists the item's versions, oldest first, each with
	// the result the console recorded for it.
	DocumentVersions(ctx context.Context, itemID string) ([]review.DocumentVersion, error)
}

// noDocuments is the line for a service that offers no documents.
const noDocuments = "The service offers no documents: only the results are shown."

// previewMax is the size the panel's picture is scaled to, off the UI
// goroutine (room for the panel on a high-density screen).
const previewMax = 720

// previewRest is how long she rests on an item before its document is
// fetched.
const previewRest = 80 * time.Millisecond

// previewHeight is the picture's height in the panel.
const previewHeight = 220

// preview is the document in the item panel: fetched when an item is shown,
// off the UI goroutine, with a line in its place while it loads or when it
// cannot be shown. A newer item cancels the older load, and the older
// result, if it comes anyway, is dropped by its generation.
type preview struct {
	c   *Console
	src Documents
	lim document.Limits

	// UI goroutine only:
	itemID string
	gen    int
	cancel context.CancelFunc
	state  string    // "", "loading", "shown", "refused"
	stamp  time.Time // the item's last change when its document was fetched
	shown  image.Image
	pages  int
	// doc is the shown item's document, decoded, and its version: the
	// viewer opened on it starts from it instead of fetching and decoding
	// again (a 10 MiB JPEG's first view is then one scale).
	doc        *document.Doc
	docVersion int

	img     *canvas.Image
	line    *textLabel
	content *docArea

	// first is the item the window showed by itself as it opened; its
	// document loads only once the reviewer moves to an item or presses
	// v (armed): a document is loaded when it is looked at, not because
	// the window started (docs/performance.md: the window's memory).
	first string
	armed bool

	// rested, when set, is called on the UI goroutine once she has rested
	// on the item, if it is still this preview's, before its document is
	// fetched: the panel draws the words of the rows beside it ahead
	// (words.go).
	rested func()
}

// notArmed is the line in place of the document of the item the window
// opened on.
const notArmed = "The document shows when you move to an item, or press v."

func newPreview(c *Console) *preview {
	lim := c.opts.DocumentLimits
	if lim == (document.Limits{}) {
		lim, _ = document.LimitsFromEnv() // a bad value keeps the default
	}
	p := &preview{c: c, src: c.opts.Documents, lim: lim, line: wrapped("")}
	p.img = canvas.NewImageFromImage(nil)
	p.img.FillMode = canvas.ImageFillContain
	p.img.ScaleMode = canvas.ImageScaleSmooth
	p.img.Hide()
	p.line.Hide()
	// The line spans the area and sits in its middle: centred at its least
	// width, a wrapping label is one letter wide, a column of letters.
	p.line.Alignment = fyne.TextAlignCenter
	line := container.NewVBox(layout.NewSpacer(), p.line, layout.NewSpacer())
	p.content = newDocArea(container.NewStack(p.img, line), previewHeight, p.openViewer)
	p.content.Hide()
	return p
}

// show loads item id's latest document ("" clears). The same item is not
// fetched again.
func (p *preview) show(id string) {
	if id == p.itemID && p.state != "" && p.state != "refused" {
		return
	}
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
	p.gen++
	if id != p.itemID {
		p.stamp = time.Time{}
	}
	p.itemID, p.shown, p.pages, p.doc = id, nil, 0, nil
	if id == "" {
		p.state = ""
		p.content.Hide()
		return
	}
	p.content.Show()
	if p.src == nil {
		p.setLine("refused", noDocuments)
		return
	}
	if !p.armed {
		if p.first == "" {
			p.first = id
		}
		if id == p.first {
			p.setLine("waiting", notArmed)
			if p.rested == nil {
				return
			}
		} else {
			p.armed = true
		}
	}
	// The window's first item rests without its document (not armed):
	// only the words beside it are made ready.
	wordsOnly := !p.armed
	if !wordsOnly {
		p.setLine("loading", "Loading the document…")
	}
	gen := p.gen
	ctx, cancel := context.WithCancel(p.c.ctx)
	p.cancel = cancel
	src, lim := p.src, p.lim
	w, h, fitted := p.pixels()
	p.c.background(func(context.Context) func() {
		// The item's words are drawn first (panel.go); the document
		// waits for her to rest on the item a moment, so that its fetch
		// and decode do not take the cores from that frame, and an item
		// she passes with ↓ held is never fetched (a newer item cancels
		// ctx).
		select {
		case <-ctx.Done():
			return func() {}
		case <-time.After(previewRest):
		}
		if p.rested != nil {
			p.c.onUI(true, func() {
				if gen == p.gen && id == p.itemID {
					p.rested()
				}
			})
		}
		if wordsOnly {
			cancel()
			return nil
		}
		img, doc, version, err := loadFirstView(ctx, src, lim, id, 0, w, h)
		return func() {
			if gen != p.gen || id != p.itemID || (p.c.panel != nil && id != p.c.panel.itemID) {
				return // another item is shown: this one's picture is dropped
			}
			p.cancel = nil
			cancel()
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return
				}
				p.setLine("refused", documentLine(err))
				return
			}
			pages := doc.Pages
			p.shown, p.pages, p.state = img, pages, "shown"
			p.doc, p.docVersion = doc, version
			p.img.Image = img
			// Fitted to the area's pixels off the UI goroutine: Fyne would
			// scale it again (Catmull-Rom, on the UI goroutine) to the
			// area's whole size for its texture.
			p.img.ScaleMode = canvas.ImageScaleSmooth
			if fitted {
				p.img.ScaleMode = canvas.ImageScaleFastest
			}
			p.img.Show()
			p.img.Refresh()
			p.line.Hide()
			if pages > 1 {
				p.setCaption("PDF, page 1 of " + strconv.Itoa(pages) + ": v or a double click shows the others.")
			} else {
				p.setCaption("v or a double click: zoom, turn, and the versions side by side.")
			}
			p.content.Refresh()
		}
	})
}

// pixels is the size the picture is fitted to: the area's, in the
// screen's pixels, once it is laid out (fitted); previewMax before.
func (p *preview) pixels() (w, h int, fitted bool) {
	s := p.img.Size()
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(p.content); c != nil {
		scale = c.Scale()
	}
	w, h = int(math.Ceil(float64(s.Width*scale))), int(math.Ceil(float64(s.Height*scale)))
	if w < 16 || h < 16 || w > previewMax || h > previewMax {
		return previewMax, previewMax, false
	}
	return w, h, true
}

// changed is told the shown item's last change: a later one (a
// replacement, a new result) fetches the document again.
func (p *preview) changed(updated time.Time) {
	if p.stamp.IsZero() || updated.IsZero() {
		p.stamp = updated
		return
	}
	if updated.After(p.stamp) {
		id := p.itemID
		p.itemID = "" // fetch again, even for the same item
		p.show(id)
		p.stamp = updated
	}
}

// setCaption shows a line under the picture (the page count of a PDF).
func (p *preview) setCaption(s string) { p.content.caption(s) }

func (p *preview) setLine(state, text string) {
	p.state = state
	p.img.Hide()
	p.img.Image = nil
	p.content.caption("")
	p.line.SetText(text)
	p.line.Show()
	p.content.Refresh()
}

// loadFirstView fetches, checks, decodes and scales one version's first
// page: all of it off the UI goroutine, all of it stopped by ctx. A large
// JPEG is decoded reduced (document.OpenView).
func loadFirstView(ctx context.Context, src Documents, lim document.Limits, id string, version, w, h int) (*image.RGBA, *document.Doc, int, error) {
	f, err := src.Document(ctx, id, version)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	// Opened for the viewer's size, which covers the panel's: a large
	// JPEG is decoded reduced once, and the viewer opened on it starts
	// from the same decode.
	d, err := document.OpenView(ctx, f.MediaType, f.Data, lim, max(w, int(viewerSize.Width)), max(h, int(viewerSize.Height)))
	if err != nil {
		return nil, nil, 0, err
	}
	img, err := d.View(ctx, 0, w, h)
	return img, d, f.Version, err
}

// decoded is the shown item's decoded document when it is version (0: the
// latest) of item id, or nil.
func (p *preview) decoded(id string, version int) *document.Doc {
	if p.doc == nil || p.itemID != id || p.state != "shown" || (version != 0 && version != p.docVersion) {
		return nil
	}
	return p.doc
}

// documentLine is why a document cannot be shown, in one plain line: the
// document's own refusal, or the workflow's error in its words (which
// never hold the document's bytes).
func documentLine(err error) string {
	if e, ok := document.AsError(err); ok {
		return shownLong(e.Error())
	}
	var de *review.DocumentError
	if errors.As(err, &de) && de.Problem == review.DocNotOffered {
		return noDocuments
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "The document took too long to arrive."
	}
	s := strings.TrimSpace(oneLine(err.Error()))
	return capitalize(safetext.Line(s, safetext.Value))
}

// openViewer opens the larger viewer on the shown item (v, or a double
// click on the picture).
func (p *preview) openViewer() {
	if p.itemID == "" || p.src == nil {
		if p.itemID != "" {
			p.c.strip.say(noDocuments)
		}
		return
	}
	p.arm()
	openViewer(p.c, p.src, p.lim, p.itemID)
}

// arm loads documents from now on, the shown item's first.
func (p *preview) arm() {
	if p.armed {
		return
	}
	p.armed = true
	if p.state == "waiting" {
		p.state = ""
		p.show(p.itemID)
	}
}

// docArea is a fixed-height area that opens the viewer on a double click,
// with a caption line under it.
type docArea struct {
	widget.BaseWidget
	body   fyne.CanvasObject
	cap    *textLabel
	height float32
	open   func()
}

func newDocArea(body fyne.CanvasObject, height float32, open func()) *docArea {
	// The caption wraps: at its full length it would widen the panel.
	a := &docArea{body: body, cap: wrapped(""), height: height, open: open}
	a.cap.Hide()
	a.ExtendBaseWidget(a)
	return a
}

func (a *docArea) caption(s string) {
	a.cap.SetText(s)
	if s == "" {
		a.cap.Hide()
	} else {
		a.cap.Show()
	}
}

func (a *docArea) DoubleTapped(*fyne.PointEvent) {
	if a.open != nil {
		a.open()
	}
}

func (a *docArea) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, a.cap, nil, nil,
		container.New(&fixedHeight{a.height}, a.body)))
}

// fixedHeight lays its objects over each other at a minimum height.
type fixedHeight struct{ h float32 }

func (f *fixedHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
}

func (f *fixedHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	w := float32(0)
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	return fyne.NewSize(w, f.h)
}
