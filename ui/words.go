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
	setLookOrHide(w.triage, text, imp)
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

// objects are the words' labels, in the order the panel draws them.
func (w *itemWords) objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{w.title, w.subtitle, w.verdict, w.triage, w.explain, w.reported, w.nextActor}
}

// showIf shows o, or hides it.
func showIf(o fyne.CanvasObject, shown bool) {
	if shown {
		o.Show()
	} else {
		o.Hide()
	}
}

// wordsAhead makes the words of the rows above and below hers ready before
// she moves there. Fyne shapes and rasterises a text the first time it
// draws it, inside that frame, and keeps the texture by its words, size,
// style and colour for a minute after it was last drawn (FYNE_CACHE): 0.3
// to 1 ms a line, and an item brings 5 to 9 new lines, in the frame that
// answers her ↓ (docs/performance.md, latency9 and latency10). Once she
// has rested on an item (the document's rest, previewRest: an item passed
// with ↓ held pays for neither), the two rows' words are drawn as the
// panel would draw them (the same labels, width, styles and colours), off
// the window's edge, where no one sees them and no pointer reaches. Fyne
// draws every visible object, in sight or not: once it has painted them
// (the raster after them in the box), they are hidden again, so that no
// other frame draws them. A row's words that differ from what the panel
// then shows (its detail changed meanwhile) cost only what they would
// have. The item the window opens on rests too, though its document waits
// (preview.go: not armed).
//
// The rest is the document's job (preview.show), not a timer of its own:
// the window's Settle waits for it, and it ends with the console, so
// nothing of it runs after a test has settled or after the window closed.
// Nor are the words drawn again while she stays (only a reload of an item
// whose document was refused, which fetches it again, rests again): after
// a minute of reading an item, her ↓ pays for its lines as before. A
// window without documents (none in Options, nor from the workflow) has
// no rest, and draws no words ahead.
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
	// frame asks Fyne for a frame that paints o anew: the canvas's own
	// Refresh, which marks the window to be drawn. (canvas.Refresh finds
	// the window through Fyne's cache of what it drew lately, which a box
	// hidden for a minute, or never drawn, is not in: no frame came.)
	frame func(o fyne.CanvasObject)
	shown int // the box's showings: a hide for an earlier one is dropped
}

// offWindow is where the words ahead are drawn: left of the window, by far.
const offWindow = -100000

func newWordsAhead(p *itemPanel) *wordsAhead {
	a := &wordsAhead{p: p, rows: [2]itemWords{newItemWords(), newItemWords()},
		layers: [2]*fyne.Container{container.NewVBox(), container.NewVBox()}}
	a.frame = func(o fyne.CanvasObject) { p.c.win.Canvas().Refresh(o) }
	a.painted = canvas.NewRaster(func(w, h int) image.Image {
		// Painted, inside Fyne's frame: hidden once the frame is over.
		// A job (Settle counts it) hands the hiding back to the UI
		// goroutine, where it runs after this frame.
		n := a.shown
		a.p.c.background(func(context.Context) func() {
			return func() {
				if n == a.shown {
					a.hide()
				}
			}
		})
		return image.NewNRGBA(image.Rect(0, 0, 1, 1)) // transparent
	})
	a.painted.SetMinSize(fyne.NewSize(1, 1))
	objs := append(a.rows[0].objects(), a.rows[1].objects()...)
	a.box = container.NewVBox(append(objs, a.layers[0], a.layers[1], a.painted)...)
	a.box.Hide()
	return a
}

// prepare draws the rows beside the selected one, as the panel draws a row
// while its detail is read, at the panel's width: once she has rested on
// it (the document's rest, preview.go), if the panel still shows it.
func (a *wordsAhead) prepare() {
	t, c := a.p.c.items, a.p.c
	width := a.p.title.Size().Width
	if t.row < 0 || t.row >= len(t.rows) || t.rows[t.row].ID != a.p.itemID || width <= 0 || c.panelOff {
		return // the panel shows an item that is not the selected row's
	}
	some := false
	for i, r := range []int{t.row - 1, t.row + 1} {
		w, layers := &a.rows[i], a.layers[i]
		layers.RemoveAll()
		in := r >= 0 && r < len(t.rows)
		for _, o := range w.objects() {
			showIf(o, in)
		}
		if !in {
			continue
		}
		some = true
		d := review.Detail{ItemView: t.rows[r]}
		w.set(d, c.wf.Team.Reviewer(), c.opts.Now())
		for _, n := range layerNames(d) {
			layers.Add(newLabel(layerText(n, d.Layers[n])))
		}
	}
	if !some {
		return
	}
	a.shown++
	a.box.Show()
	a.box.Resize(fyne.NewSize(width, a.box.MinSize().Height))
	a.box.Move(fyne.NewPos(offWindow, 0))
	a.frame(a.painted) // painted anew in the next frame: then hidden
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
