package ui

import (
	"context"
	"errors"
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// The viewer: a window of its own with the document large, and for an item
// with two or more versions, two of them side by side (the first file and
// the latest, until the reviewer picks others), zoom, pan, rotation and
// PDF pages locked together until unlocked. Rotation and zoom are how the picture is
// drawn, never a change to the file. Everything works from the keyboard
// (viewerKeys, also on the shortcut sheet).
var viewerKeys = [][2]string{
	{"v or double-click", "open the viewer on the item's document"},
	{"+ / − or the wheel", "viewer: zoom in / out"},
	{"0 / 1", "viewer: fit / 100 %"},
	{"arrows or drag", "viewer: pan"},
	{"] / [", "viewer: rotate 90° clockwise / anticlockwise (the view only)"},
	{"PgUp / PgDn", "viewer: previous / next PDF page"},
	{"s", "viewer: the other side (side by side)"},
	{"c", "viewer: the side's next version"},
	{"l", "viewer: lock / unlock the two sides"},
	{"Esc", "viewer: close"},
}

// viewerSize is the viewer's first size; a side's first view is scaled to
// it off the UI goroutine.
var viewerSize = fyne.NewSize(document.ViewerWidth, document.ViewerHeight)

type viewer struct {
	c        *Console
	src      Documents
	lim      document.Limits
	itemID   string
	win      fyne.Window
	ctx      context.Context
	stop     context.CancelFunc
	versions []review.DocumentVersion
	sides    []*side
	active   int
	locked   bool
	status   *textLabel
	heading  *textLabel // the item and its customer (viewerHeading)
	row      *fyne.Container
}

// viewerHeading names the item the viewer shows and its customer, as the
// panel knows them, so that the viewer is never read as another item's.
func viewerHeading(c *Console, itemID string) string {
	text := shown(itemID)
	if d := c.panel.detail; c.panel.loaded && d.ID == itemID && d.CustomerRef != "" {
		text += " · customer " + shown(d.CustomerRef)
	}
	return text
}

// side is one version in the viewer.
type side struct {
	v      *viewer
	idx    int // into v.versions
	gen    int
	cancel context.CancelFunc
	// state: "loading", "early" (a progressive JPEG's first scans'
	// picture while the rest is decoded: not a checked file), "shown",
	// "refused".
	state   string
	doc     *document.Doc
	page    int
	pw, ph  float64     // the page's size in its own pixels
	full    image.Image // the page at full size, once decoded
	reduced image.Image // a large JPEG's reduced decode, until full comes
	asked   bool        // the full size was asked for (needFull)
	turns   []int       // pages turned while the file still loads (-1, +1)
	fit     *image.RGBA // the page scaled to the window, for fit and below
	view    view
	raster  *canvas.Raster
	line    *textLabel
	title   *textLabel
	result  *textLabel
	other   *widget.Button
	area    *dragArea
	content fyne.CanvasObject
}

// view is how a side's page is drawn: zoom (screen pixels per page pixel;
// 0 fits), the page point at the view's centre, and quarter turns
// clockwise.
type view struct {
	zoom   float64
	cx, cy float64
	turns  int
}

func openViewer(c *Console, src Documents, lim document.Limits, itemID string) *viewer {
	if old := c.viewer; old != nil {
		c.viewer = nil  // replaced: the focus goes to the new one, not back
		old.win.Close() // one viewer: its pictures are large
	}
	v := &viewer{c: c, src: src, lim: lim, itemID: itemID, locked: true}
	v.ctx, v.stop = context.WithCancel(c.ctx)
	v.heading = newLabel(viewerHeading(c, itemID))
	v.heading.TextStyle.Bold = true
	v.win = fyne.CurrentApp().NewWindow("Document — " + v.heading.Text)
	v.status = newLabel("Loading the versions…")
	v.row = container.NewGridWithRows(1)
	v.win.SetContent(container.NewBorder(v.heading, v.status, nil, nil, v.row))
	v.win.Resize(viewerSize)
	v.win.SetOnClosed(func() {
		v.stop()
		if c.viewer == v {
			c.viewer = nil
			// The keys go back to the main window: without a window
			// manager nobody gives it the focus, and a manager may give
			// it elsewhere, so the first F1 after the viewer went nowhere.
			if c.ctx.Err() == nil {
				c.win.RequestFocus()
			}
		}
	})
	cv := v.win.Canvas()
	cv.SetOnTypedKey(v.onKey)
	cv.SetOnTypedRune(v.onRune)
	v.win.Show()
	c.background(func(context.Context) func() {
		vs, err := src.DocumentVersions(v.ctx, itemID)
		return func() {
			if err != nil && !errors.Is(err, context.Canceled) {
				// The versions' results are missing, not the document:
				// show the latest without them.
				v.say(documentLine(err))
			}
			v.setVersions(vs)
		}
	})
	c.viewer = v
	return v
}

func (v *viewer) setVersions(vs []review.DocumentVersion) {
	v.versions = vs
	if len(vs) == 0 {
		v.versions = []review.DocumentVersion{{}} // the latest, no record
	}
	picks := []int{0}
	if len(v.versions) >= 2 {
		picks = []int{0, len(v.versions) - 1} // the first file beside the latest
	}
	v.sides = nil
	v.row.RemoveAll()
	for i, p := range picks {
		s := v.newSide(i)
		v.sides = append(v.sides, s)
		v.row.Add(s.content)
		s.load(p)
	}
	v.row.Refresh()
	v.sayState()
}

func (v *viewer) newSide(i int) *side {
	s := &side{v: v, line: wrapped("Loading…"), title: newLabel(""), result: wrapped("")}
	s.title.TextStyle.Bold = true
	s.raster = canvas.NewRaster(s.draw)
	// The line spans the side and sits in its middle: centred at its
	// least width, a wrapping label is one letter wide, a column of
	// letters (as in the panel's preview).
	s.line.Alignment = fyne.TextAlignCenter
	line := container.NewVBox(layout.NewSpacer(), s.line, layout.NewSpacer())
	s.area = newDragArea(container.NewStack(s.raster, line), func(dx, dy float32) {
		v.c.sawInput() // claims_away.go
		v.activate(i)
		v.each(func(t *side) { t.pan(float64(dx), float64(dy)) })
	}, func(dy float32) {
		v.c.sawInput()
		v.activate(i)
		f := math.Pow(1.1, float64(dy)/10)
		v.each(func(t *side) { t.zoomBy(f) })
	})
	s.other = widget.NewButton("Other version (c)", func() { v.activate(i); s.nextVersion() })
	if len(v.versions) < 2 {
		s.other.Hide()
	}
	head := container.NewBorder(nil, nil, nil, s.other, s.title)
	s.content = container.NewBorder(head, s.result, nil, nil, s.area)
	return s
}

// each applies fn to the sides the keys act on: both when locked, else
// the active one.
func (v *viewer) each(fn func(*side)) {
	for i, s := range v.sides {
		if v.locked || i == v.active {
			fn(s)
			s.needFull()
			s.raster.Refresh()
		}
	}
	v.sayState()
}

func (v *viewer) activate(i int) {
	if i != v.active {
		v.active = i
		v.sayState()
	}
}

func (v *viewer) onKey(ev *fyne.KeyEvent) {
	v.c.sawInput() // claims_away.go
	switch ev.Name {
	case fyne.KeyEscape:
		v.win.Close()
	case fyne.KeyLeft:
		v.each(func(s *side) { s.pan(80, 0) })
	case fyne.KeyRight:
		v.each(func(s *side) { s.pan(-80, 0) })
	case fyne.KeyUp:
		v.each(func(s *side) { s.pan(0, 80) })
	case fyne.KeyDown:
		v.each(func(s *side) { s.pan(0, -80) })
	case fyne.KeyPageUp:
		v.each(func(s *side) { s.turnPage(-1) })
	case fyne.KeyPageDown:
		v.each(func(s *side) { s.turnPage(1) })
	}
}

func (v *viewer) onRune(r rune) {
	v.c.sawInput()
	switch r {
	case '+', '=':
		v.each(func(s *side) { s.zoomBy(1.25) })
	case '-', '−':
		v.each(func(s *side) { s.zoomBy(1 / 1.25) })
	case '0':
		v.each(func(s *side) { s.view.zoom = 0; s.centre() })
	case '1':
		v.each(func(s *side) { s.view.zoom = 1 })
	case ']':
		v.each(func(s *side) { s.view.turns = (s.view.turns + 1) % 4 })
	case '[':
		v.each(func(s *side) { s.view.turns = (s.view.turns + 3) % 4 })
	case 's':
		if len(v.sides) > 1 {
			v.activate((v.active + 1) % len(v.sides))
		}
	case 'c':
		if v.active < len(v.sides) {
			v.sides[v.active].nextVersion()
		}
	case 'l':
		if len(v.sides) > 1 {
			v.locked = !v.locked
			v.sayState()
		}
	}
}

func (v *viewer) say(s string) { v.status.SetText(s) }

// sayState is the status line: which side the keys act on, locked or not,
// the zoom and the turn.
func (v *viewer) sayState() {
	if len(v.sides) == 0 {
		return
	}
	var b strings.Builder
	if len(v.sides) > 1 {
		if v.locked {
			b.WriteString("Locked: zoom, pan, rotation and pages move both sides (l unlocks).")
		} else {
			b.WriteString("Unlocked: the keys move the " + []string{"left", "right"}[v.active] + " side (s switches, l locks).")
		}
		b.WriteString(" ")
	}
	s := v.sides[min(v.active, len(v.sides)-1)]
	if s.view.zoom == 0 {
		b.WriteString("Fit")
	} else {
		b.WriteString(strconv.Itoa(int(math.Round(s.view.zoom*100))) + " %")
	}
	if len(v.sides) > 1 && v.locked && v.sides[0].view.turns != v.sides[1].view.turns {
		// Locked after turning one side: both turn together from there,
		// each from its own angle.
		b.WriteString(", turned: left " + strconv.Itoa(v.sides[0].view.turns*90) + "°, right " + strconv.Itoa(v.sides[1].view.turns*90) + "°")
	} else if s.view.turns != 0 {
		b.WriteString(", turned " + strconv.Itoa(s.view.turns*90) + "°")
	}
	if s.doc != nil && s.doc.Orientation() > 1 {
		// A phone's photo, stored as its sensor saw it: shown upright as
		// the photo itself says (its EXIF orientation), before any turn of
		// hers. Said, so that she knows the file holds it otherwise.
		b.WriteString(". Shown upright as the photo's EXIF orientation asks (" + document.OrientationWords(s.doc.Orientation()) + "); the file itself is unchanged")
	}
	if s.state == "early" {
		// The first scans' picture of a progressive JPEG: blurred, and
		// not yet checked whole. Said, until the file is decoded whole
		// (then the picture is replaced by the refined one, or by the
		// refusal).
		b.WriteString(". " + sharpeningWords)
	}
	if s.doc != nil && s.doc.FontsSubstituted(s.page) {
		// Text in a font the PDF left out is drawn in another: said, so
		// that she does not judge the document by letters it never had.
		b.WriteString(". Page " + strconv.Itoa(s.page+1) + ": " + document.FontsSubstitutedWords)
	}
	b.WriteString(". Keys: + − 0 1, arrows, ] [ rotate, PgUp PgDn pages, c version, Esc closes.")
	v.say(b.String())
}

// sharpeningWords are what the viewer says while it shows a progressive
// JPEG's early picture.
const sharpeningWords = "Sharpening… this picture is drawn from the first part of the file while the rest is read and checked"

// viewerEarlyShown, when set (tests), is called on the decoding goroutine
// once a side's early picture is on screen, before the rest is decoded.
var viewerEarlyShown func()

// load fetches and decodes version index idx off the UI goroutine; a newer
// load of the same side drops the older one. A progressive JPEG's first
// scans' picture is shown while the rest is decoded (showEarly), then
// replaced by the whole file's first view or by its refusal.
func (s *side) load(idx int) {
	v := s.v
	if s.cancel != nil {
		s.cancel()
	}
	s.idx, s.page, s.doc, s.full, s.reduced, s.fit, s.asked, s.turns = idx, 0, nil, nil, nil, nil, false, nil
	s.gen++
	gen := s.gen
	ver := v.versions[idx]
	s.title.SetText(versionTitle(ver, idx, len(v.versions)))
	s.result.SetText(versionResult(ver))
	s.setLine("loading", "Loading "+strings.ToLower(versionName(ver, idx, len(v.versions)))+"…")
	ctx, cancel := context.WithCancel(v.ctx)
	s.cancel = cancel
	known := v.c.panel.preview.decoded(v.itemID, ver.Version) // nil: fetch
	early := func(e document.Early) {
		v.c.onUI(true, func() {
			if gen == s.gen && s.state == "loading" {
				s.showEarly(e)
			}
		})
		if viewerEarlyShown != nil {
			viewerEarlyShown()
		}
	}
	v.c.background(func(context.Context) func() {
		doc, base, isFull, fit, err := loadSide(ctx, v.src, v.lim, v.itemID, ver.Version, 0, known, early)
		return func() {
			if gen != s.gen {
				return
			}
			cancel()
			s.cancel = nil
			if err != nil {
				// An early picture goes with the load: the refusal
				// replaces it, never left as if the file were sound.
				s.reduced, s.fit = nil, nil
				s.title.SetText(versionTitle(ver, idx, len(v.versions)))
				if !errors.Is(err, context.Canceled) {
					s.setLine("refused", documentLine(err))
				} else if s.state == "early" {
					s.setLine("loading", "")
				}
				v.sayState()
				return
			}
			s.doc = doc
			// Pages turned while it loaded (the renderer's first start
			// takes seconds): the page asked for last is drawn, not the
			// first.
			p := 0
			for _, d := range s.turns {
				p = min(max(p+d, 0), doc.Pages-1)
			}
			s.turns = nil
			if p != 0 {
				s.drawPage(p)
				return
			}
			s.showPage(base, isFull, fit)
		}
	})
}

// loadSide fetches and opens a version (unless doc is given) for the
// window's size, and draws page i: its base picture (a large JPEG's
// reduced decode, isFull false, or the page at full size) and the page
// scaled to the window. A progressive JPEG's early picture goes to early
// (when not nil) while the rest is decoded.
func loadSide(ctx context.Context, src Documents, lim document.Limits, itemID string, version, i int, doc *document.Doc, early func(document.Early)) (_ *document.Doc, base image.Image, isFull bool, _ *image.RGBA, _ error) {
	w, h := int(viewerSize.Width), int(viewerSize.Height)
	if doc == nil {
		f, err := src.Document(ctx, itemID, version)
		if err != nil {
			return nil, nil, false, nil, err
		}
		if doc, err = document.OpenViewEarly(ctx, f.MediaType, f.Data, lim, w, h, early); err != nil {
			return nil, nil, false, nil, err
		}
	}
	// As reviewer render draws it (document.FirstView).
	base, isFull, fit, err := doc.FirstView(ctx, i, w, h)
	if err != nil {
		return nil, nil, false, nil, err
	}
	return doc, base, isFull, fit, nil
}

func (s *side) showPage(base image.Image, isFull bool, fit *image.RGBA) {
	s.full, s.reduced, s.fit, s.state = nil, nil, fit, "shown"
	if isFull {
		s.full = base
	} else {
		s.reduced = base
	}
	b := base.Bounds()
	s.pw, s.ph = float64(b.Dx()), float64(b.Dy())
	if w, h := s.doc.Size(); w > 0 && s.page == 0 {
		s.pw, s.ph = float64(w), float64(h)
	}
	s.centre()
	s.needFull()
	s.line.Hide()
	s.title.SetText(versionTitle(s.v.versions[s.idx], s.idx, len(s.v.versions)))
	if s.doc != nil && s.doc.Pages > 1 {
		s.title.SetText(versionTitle(s.v.versions[s.idx], s.idx, len(s.v.versions)) + " · page " + strconv.Itoa(s.page+1) + " of " + strconv.Itoa(s.doc.Pages))
	}
	s.raster.Refresh()
	s.v.sayState()
}

// showEarly shows a progressive JPEG's early picture (its first scans',
// enlarged to the window) while the rest of the file is decoded: drawn as
// the first view is, with "Sharpening…" on the side's title and the
// status line. There is no document yet: nothing asks for the full size.
func (s *side) showEarly(e document.Early) {
	s.state, s.full, s.reduced, s.fit = "early", nil, e.Fit, e.Fit
	s.pw, s.ph = float64(e.W), float64(e.H)
	s.centre()
	s.line.Hide()
	s.title.SetText(versionTitle(s.v.versions[s.idx], s.idx, len(s.v.versions)) + " · Sharpening…")
	s.raster.Refresh()
	s.v.sayState()
}

func (s *side) setLine(state, text string) {
	s.state = state
	s.line.SetText(text)
	s.line.Show()
	s.raster.Refresh()
}

func (s *side) nextVersion() {
	if len(s.v.versions) < 2 {
		return
	}
	s.load((s.idx + 1) % len(s.v.versions))
}

// turnPage draws the previous or next page of a PDF, off the UI goroutine.
// While the file still loads, the turn is kept for when it is open.
func (s *side) turnPage(d int) {
	if s.doc == nil && (s.state == "loading" || s.state == "early") {
		s.turns = append(s.turns, d)
		return
	}
	if s.doc == nil || s.doc.Pages < 2 {
		return
	}
	p := s.page + d
	if p < 0 || p >= s.doc.Pages {
		return
	}
	s.drawPage(p)
}

// drawPage draws page p of the side's PDF off the UI goroutine; a newer
// page or version drops it.
func (s *side) drawPage(p int) {
	if s.cancel != nil {
		s.cancel()
	}
	s.page = p
	s.gen++
	gen, doc := s.gen, s.doc
	ctx, cancel := context.WithCancel(s.v.ctx)
	s.cancel = cancel
	s.setLine("loading", "Drawing page "+strconv.Itoa(p+1)+"…")
	s.v.c.background(func(context.Context) func() {
		_, base, isFull, fit, err := loadSide(ctx, nil, s.v.lim, "", 0, p, doc, nil)
		return func() {
			if gen != s.gen {
				return
			}
			cancel()
			s.cancel = nil
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					s.setLine("refused", documentLine(err))
				}
				return
			}
			s.showPage(base, isFull, fit)
		}
	})
}

// needFull asks for the page at full size, off the UI goroutine, when the
// zoom in force shows more than the reduced decode holds (100 %, or
// zoomed past it); the reduced picture is drawn, upscaled, until it comes.
// The full size is decoded once, kept in the document, and only when
// asked: the first view never waits for it.
func (s *side) needFull() {
	if s.full != nil || s.reduced == nil || s.asked || s.doc == nil || s.pw == 0 {
		return
	}
	sz := s.raster.Size()
	z := s.scale(float64(sz.Width), float64(sz.Height)) * float64(s.v.win.Canvas().Scale())
	if z <= float64(s.reduced.Bounds().Dx())/s.pw*1.001 {
		return
	}
	s.asked = true
	gen, doc, page, ctx := s.gen, s.doc, s.page, s.v.ctx
	s.v.c.background(func(context.Context) func() {
		full, err := doc.Page(ctx, page)
		return func() {
			if gen != s.gen {
				return
			}
			if err != nil {
				s.asked = false
				if !errors.Is(err, context.Canceled) {
					s.v.say(documentLine(err))
				}
				return
			}
			s.full, s.reduced = full, nil
			s.raster.Refresh()
		}
	})
}

func (s *side) size() (float64, float64) {
	if s.full == nil && s.reduced == nil {
		return 0, 0
	}
	return s.pw, s.ph
}

func (s *side) centre() {
	w, h := s.size()
	s.view.cx, s.view.cy = w/2, h/2
}

// scale is the zoom in force for a view of w × h pixels.
func (s *side) scale(w, h float64) float64 {
	if s.view.zoom > 0 {
		return s.view.zoom
	}
	iw, ih := s.size()
	if s.view.turns%2 == 1 {
		iw, ih = ih, iw
	}
	if iw == 0 || ih == 0 || w == 0 || h == 0 {
		return 1
	}
	return math.Min(w/iw, h/ih)
}

// zoomBy zooms by f from the zoom in force (fit included), within 1 % and
// 3200 %.
func (s *side) zoomBy(f float64) {
	if s.full == nil && s.reduced == nil {
		return
	}
	sz := s.raster.Size()
	z := s.scale(float64(sz.Width), float64(sz.Height)) * f
	s.view.zoom = math.Min(32, math.Max(0.01, z))
}

// pan moves the picture by dx, dy screen units (the page moves with the
// pointer, whatever the turn).
func (s *side) pan(dx, dy float64) {
	if s.full == nil && s.reduced == nil {
		return
	}
	sz := s.raster.Size()
	z := s.scale(float64(sz.Width), float64(sz.Height))
	px, py := unturn(-dx/z, -dy/z, s.view.turns)
	w, h := s.size()
	s.view.cx = math.Min(w, math.Max(0, s.view.cx+px))
	s.view.cy = math.Min(h, math.Max(0, s.view.cy+py))
}

// unturn maps a vector on the screen to the page under t quarter turns
// clockwise.
func unturn(x, y float64, t int) (float64, float64) {
	switch t % 4 {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

var viewerBackground = color.RGBA{0x30, 0x30, 0x30, 0xff}

// draw is the raster's generator: each screen pixel samples the page point
// under it (turned, zoomed, panned). Below the scaled copy's size it
// samples the copy (averaged off the UI goroutine), above it the full page.
func (s *side) draw(w, h int) image.Image {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(out.Pix); i += 4 {
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = viewerBackground.R, viewerBackground.G, viewerBackground.B, 255
	}
	if (s.full == nil && s.reduced == nil) || (s.state != "shown" && s.state != "early") || w == 0 || h == 0 {
		return out
	}
	// The raster draws in device pixels; zoom is per device pixel too.
	scaleToPx := float64(w) / math.Max(1, float64(s.raster.Size().Width))
	if s.raster.Size().Width == 0 {
		scaleToPx = 1
	}
	z := s.scale(float64(w)/scaleToPx, float64(h)/scaleToPx) * scaleToPx
	iw, _ := s.size()
	src := s.full
	k := 1.0 // page pixels to src pixels
	if src == nil {
		// The full size is on its way (needFull): the reduced decode,
		// upscaled meanwhile, never a blank.
		src = s.reduced
		k = float64(src.Bounds().Dx()) / iw
	}
	if s.fit != nil && iw > 0 && float64(s.fit.Bounds().Dx())/iw >= z*0.999 {
		src = s.fit
		k = float64(s.fit.Bounds().Dx()) / iw
	}
	sb := src.Bounds()
	at := pixelReader(src)
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			dx, dy := (float64(px)+0.5-float64(w)/2)/z, (float64(py)+0.5-float64(h)/2)/z
			ux, uy := unturn(dx, dy, s.view.turns)
			sx, sy := int(math.Floor((s.view.cx+ux)*k)), int(math.Floor((s.view.cy+uy)*k))
			if sx < 0 || sy < 0 || sx >= sb.Dx() || sy >= sb.Dy() {
				continue
			}
			o := out.Pix[py*out.Stride+px*4 : py*out.Stride+px*4+4 : py*out.Stride+px*4+4]
			o[0], o[1], o[2], o[3] = at(sb.Min.X+sx, sb.Min.Y+sy)
		}
	}
	return out
}

// pixelReader reads 8-bit RGBA quickly from the decoded types.
func pixelReader(img image.Image) func(x, y int) (r, g, b, a uint8) {
	switch m := img.(type) {
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			p := m.Pix[m.PixOffset(x, y):]
			return p[0], p[1], p[2], 255
		}
	case *image.YCbCr:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			r, g, b := color.YCbCrToRGB(m.Y[m.YOffset(x, y)], m.Cb[m.COffset(x, y)], m.Cr[m.COffset(x, y)])
			return r, g, b, 255
		}
	}
	return func(x, y int) (uint8, uint8, uint8, uint8) {
		c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
		return c.R, c.G, c.B, 255
	}
}

func versionName(ver review.DocumentVersion, idx, n int) string {
	switch {
	case ver.Version == 0:
		return "The latest version"
	case idx == 0 && n > 1:
		return "Version " + strconv.Itoa(ver.Version) + " (the first file)"
	case idx == n-1 && n > 1:
		return "Version " + strconv.Itoa(ver.Version) + " (the latest)"
	}
	return "Version " + strconv.Itoa(ver.Version)
}

func versionTitle(ver review.DocumentVersion, idx, n int) string {
	t := versionName(ver, idx, n)
	if !ver.When.IsZero() {
		t += ", sent " + ver.When.Local().Format("2 Jan 15:04")
	}
	return t
}

// versionResult is the result the console recorded for a version: status,
// then score or code, and when. An error or an invalid answer never shows
// a score; a version with no record says so.
func versionResult(ver review.DocumentVersion) string {
	r := ver.Recorded
	if r.Status == "" {
		return "No result recorded for this version."
	}
	var b strings.Builder
	b.WriteString("Result: " + shown(statusWord(r.Status)))
	switch r.Status {
	case policy.StatusScored:
		if r.Score != nil {
			b.WriteString(", score " + strconv.Itoa(*r.Score))
			if word, _ := bandLook(r.Band); word != "" {
				b.WriteString(" · " + word)
			}
		}
	case policy.StatusError, policy.StatusInvalid:
		if r.Code != "" {
			b.WriteString(", " + shown(string(r.Code)))
		}
	}
	if !r.When.IsZero() {
		b.WriteString(", at " + r.When.Local().Format("2 Jan 15:04"))
	}
	return b.String() + "."
}

// dragArea passes drags and the wheel of its content to the viewer.
type dragArea struct {
	widget.BaseWidget
	body   fyne.CanvasObject
	drag   func(dx, dy float32)
	scroll func(dy float32)
}

func newDragArea(body fyne.CanvasObject, drag func(dx, dy float32), scroll func(dy float32)) *dragArea {
	a := &dragArea{body: body, drag: drag, scroll: scroll}
	a.ExtendBaseWidget(a)
	return a
}

func (a *dragArea) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(a.body) }
func (a *dragArea) Dragged(ev *fyne.DragEvent)          { a.drag(ev.Dragged.DX, ev.Dragged.DY) }
func (a *dragArea) DragEnd()                            {}
func (a *dragArea) Scrolled(ev *fyne.ScrollEvent)       { a.scroll(ev.Scrolled.DY) }
