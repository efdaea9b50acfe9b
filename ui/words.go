package ui

import (
	"context"
	"fmt"
	"image"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// itemWords are the lines that name an item and say its state, at the top
// of the panel: what changes from one item to the next as she goes down
// the list. The panel draws one set (panel.go); wordsAhead draws two more,
// for the rows beside hers, out of sight.
type itemWords struct {
	title     *textLabel
	subtitle  *textLabel
	verdict   *textLabel
	triage    *textLabel // the band of a score, or the age of a wait (ageing.go)
	explain   *textLabel
	reported  *textLabel
	nextActor *textLabel
}

func newItemWords() itemWords {
	w := itemWords{title: wrapped("No item selected"), subtitle: wrapped(""), verdict: wrapped(""), triage: wrapped(""),
		explain: wrapped(""), reported: wrapped(""), nextActor: wrapped("")}
	w.title.TextStyle.Bold = true
	w.verdict.TextStyle.Bold = true
	return w
}

// set draws item d's words. me is the reviewer at this window, for who acts
// next on an item another reviewer holds.
func (w *itemWords) set(d review.Detail, me string, now time.Time) {
	setText(w.title, shown(d.FileName))
	kind := "ID document"
	if d.Kind == policy.KindSelfie {
		kind = "Selfie"
	}
	setText(w.subtitle, fmt.Sprintf("%s · %s · %s · attempt %d", kind, shown(d.ID), shown(d.CustomerRef), d.Attempt))
	text, imp := verdictText(d.Item)
	setLook(w.verdict, withBand(text, d.ItemView), imp) // ageing.go
	imp, text = panelTriage(d.ItemView)
	setLook(w.triage, text, imp)
	showIf(w.triage, text != "")
	explain := safetext.Line(policy.Describe(d.Item), safetext.Message)
	if d.ErrorCode != "" {
		explain += " (code " + shown(string(d.ErrorCode)) + ")"
	}
	setText(w.explain, explain)
	setOrHide(w.reported, reportedText(d.Item))
	next := ""
	if d.Status == policy.StatusError || d.Status == policy.StatusInvalid {
		actor := policy.Info(d.ErrorCode).NextActor
		next = "Who acts next: the " + string(actor) + "."
		if c := d.HeldByOther(me, now); c != nil && actor == policy.ActorReviewer {
			next = "Who acts next: " + holderName(*c) + ", the reviewer who holds it." // claims.go
		}
	}
	setOrHide(w.nextActor, next)
}

// clear leaves only the title, which says what the panel waits for.
func (w *itemWords) clear(title string) {
	setText(w.title, title)
	w.triage.Hide()
	for _, l := range []*textLabel{w.subtitle, w.verdict, w.explain, w.reported, w.nextActor} {
		setText(l, "")
	}
}

func (w *itemWords) objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{w.title, w.subtitle, w.verdict, w.triage, w.explain, w.reported, w.nextActor}
}

func showIf(o fyne.CanvasObject, shown bool) {
	if shown {
		o.Show()
	} else {
		o.Hide()
	}
}

// aheadRest is how long she rests on an item before the words of the rows
// beside it are made ready: ↓ held moves through items without paying
// for them.
const aheadRest = previewRest

// wordsAhead makes the words of the rows above and below hers ready before
// she moves there. Fyne keeps the texture of every text it has drawn, by its
// words, size, style and colour, and shapes and rasterises a new one inside
// the frame that first draws it: 0.3 to 1 ms a line, and an item brings 5
// to 9 new lines, in the frame that answers her ↓ (docs/performance.md,
// latency9). Once she has rested on an item (aheadRest), the two rows'
// words are drawn as the panel would draw them (same labels, width, styles
// and colours), off the window's edge, where no one sees them and no
// pointer reaches; once Fyne has painted them (the sentinel raster, which
// it paints after them), they are hidden again, so that no other frame
// draws them. A row's words that differ from what the panel then shows
// (its detail changed meanwhile) cost only what they would have.
type wordsAhead struct {
	p    *itemPanel
	rows [2]itemWords
	// layers are the rows' forensic layers' lines, as the panel draws
	// them beside their bars.
	layers [2]*fyne.Container
	box    *fyne.Container
	// painted is last in box: Fyne calls its generator when it paints
	// it, after the rows' words.
	painted *canvas.Raster
	of      [2]string // the items whose words the box holds
	gen     int
}

// offWindow is where the words ahead are drawn: left of the window, by far.
const offWindow = -100000

func newWordsAhead(p *itemPanel) *wordsAhead {
	a := &wordsAhead{p: p, rows: [2]itemWords{newItemWords(), newItemWords()},
		layers: [2]*fyne.Container{container.NewVBox(), container.NewVBox()}}
	a.painted = canvas.NewRaster(func(w, h int) image.Image {
		// Painted: hidden once this frame is over (the hand-over to
		// the UI goroutine runs after it).
		a.p.c.background(func(context.Context) func() { return a.hide })
		return image.NewNRGBA(image.Rect(0, 0, 1, 1)) // transparent
	})
	a.painted.SetMinSize(fyne.NewSize(1, 1))
	objs := append(a.rows[0].objects(), a.rows[1].objects()...)
	a.box = container.NewVBox(append(objs, a.layers[0], a.layers[1], a.painted)...)
	a.box.Hide()
	return a
}

// rest makes the words of the rows beside item id ready once she has
// rested on it, unless she has left it by then.
func (a *wordsAhead) rest(id string) {
	a.gen++
	gen := a.gen
	a.p.c.background(func(ctx context.Context) func() {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(aheadRest):
		}
		return func() {
			if gen == a.gen && id == a.p.itemID {
				a.prepare()
			}
		}
	})
}

// prepare draws the rows beside the selected one, as the panel draws a row
// while its detail is read, at the panel's width.
func (a *wordsAhead) prepare() {
	t, c := a.p.c.items, a.p.c
	width := a.p.title.Size().Width
	if t.row < 0 || width <= 0 || c.panelOff {
		return
	}
	var of [2]string
	for i, r := range []int{t.row - 1, t.row + 1} {
		w, layers := &a.rows[i], a.layers[i]
		layers.RemoveAll()
		if r < 0 || r >= len(t.rows) {
			for _, o := range w.objects() {
				o.Hide()
			}
			continue
		}
		d := review.Detail{ItemView: t.rows[r]}
		of[i] = d.ID
		for _, o := range w.objects() {
			o.Show()
		}
		w.set(d, c.wf.Team.Reviewer(), c.opts.Now())
		for _, n := range layerNames(d) {
			layers.Add(newLabel(layerText(n, d.Layers[n])))
		}
	}
	if of == [2]string{} {
		return
	}
	a.of = of
	a.box.Show()
	a.box.Resize(fyne.NewSize(width, a.box.MinSize().Height))
	a.box.Move(fyne.NewPos(offWindow, 0))
	a.painted.Refresh() // painted anew in the next frame: then hidden
}

// hide leaves the words ahead out of the frames to come. It sets the box
// hidden without Hide's refresh: a refresh would draw the whole window once
// more for nothing on it that she sees; the next frame, drawn for whatever
// changed, leaves the box out.
func (a *wordsAhead) hide() { a.box.Hidden = true }

// aside lays its first object out over the whole of its space, and the
// others where they were moved: the words ahead, off the window. Its least
// size is the first object's.
type aside struct{}

func (aside) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.Position{})
	objs[0].Resize(size)
}

func (aside) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }
