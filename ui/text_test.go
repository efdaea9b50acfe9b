package ui

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// asLabel is the label an object is, whichever of the window's label
// types it is.
func asLabel(o fyne.CanvasObject) (*widget.Label, bool) {
	switch l := o.(type) {
	case *widget.Label:
		return l, true
	case *textLabel:
		return &l.Label, true
	case *tipLabel:
		return &l.Label, true
	}
	return nil, false
}

// outsideText is what the service, the cache and a file can put before a
// reviewer: a name, a note, a customer reference, a file name, an error.
type outsideText struct {
	name, note, ref, file, err string
}

// outsideWorkflow is the fake workflow serving those values: the name as
// the service's /v1/me, on the claim, the notes and the audit; the note on
// the item; the reference and the file name on the rows; the error as the
// answer for item "b" and as the last error of an action.
type outsideWorkflow struct {
	*fakeWorkflow
	in outsideText
}

func (w *outsideWorkflow) Reviewer() string          { return w.in.name }
func (w *outsideWorkflow) ReviewerFromService() bool { return true }
func (w *outsideWorkflow) APIVersion() string        { return "1.1" }

func (w *outsideWorkflow) Item(ctx context.Context, id string) (review.Detail, error) {
	if id == "b" {
		return review.Detail{}, errors.New(w.in.err)
	}
	d, err := w.fakeWorkflow.Item(ctx, id)
	at := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	d.NoteRows = []store.NoteRow{
		{ItemID: id, Author: w.in.name, Text: w.in.note, State: policy.ActionDone, CreatedAt: at},
		{ItemID: id, Author: "ben", Text: w.in.note, State: policy.ActionFailed, LastErrorCode: policy.Code(w.in.err), CreatedAt: at},
	}
	d.Audit = []store.AuditEntry{{At: at, Reviewer: w.in.name, ItemID: id, Event: "note", Detail: w.in.note}}
	return d, err
}

func outsideConsole(t *testing.T, in outsideText) *Console {
	t.Helper()
	a := errorItem("a", "DECODE_FAILED")
	a.FileName, a.CustomerRef = in.file, in.ref
	a.Layers = map[string]float64{in.name: 0.5}
	held := errorItem("h", "DECODE_FAILED")
	held.FileName, held.CustomerRef = in.file, in.ref
	held.Holder = &policy.Claim{Reviewer: in.name, ExpiresAt: time.Now().Add(time.Hour)}
	b := errorItem("b", "DECODE_FAILED")
	b.FileName = in.file
	fw := &fakeWorkflow{items: []review.ItemView{a, held, b},
		batches: []store.BatchSummary{{ID: "bat_1", CustomerRef: in.ref, MatchFile: in.file, MatchItem: in.file}}}
	wf := &outsideWorkflow{fakeWorkflow: fw, in: in}
	t.Setenv("LANG", "en_US.UTF-8")
	app := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: app.Preferences()})
	c.apply(c.reload)
	c.Settle()
	return c
}

// drawnTexts is every text the window's canvas draws: the leaves of its
// object tree, through every widget's renderer, the overlays included.
func drawnTexts(c *Console) []string {
	var out []string
	add := func(t *canvas.Text) { out = append(out, t.Text) }
	cv := c.win.Canvas()
	eachText(cv.Content(), add)
	for _, o := range cv.Overlays().List() {
		eachText(o, add)
	}
	return out
}

// eachText calls fn with every text drawn under o, through every widget's
// renderer; what is hidden is left out.
func eachText(o fyne.CanvasObject, fn func(*canvas.Text)) {
	if o == nil || !o.Visible() {
		return
	}
	switch v := o.(type) {
	case *canvas.Text:
		fn(v)
	case *fyne.Container:
		for _, k := range v.Objects {
			eachText(k, fn)
		}
	case fyne.Widget:
		for _, k := range test.WidgetRenderer(v).Objects() {
			eachText(k, fn)
		}
	}
}

// unsafeRune is a rune no text of the window may draw: a control
// character (the newline too: a drawn text is one line), a bidi control
// or any other format character, a line or paragraph separator, or what
// stands for a byte that is not UTF-8.
func unsafeRune(s string) (rune, bool) {
	if !utf8.ValidString(s) {
		return utf8.RuneError, true
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return r, true
		}
	}
	return 0, false
}

// checkDrawn fails when any text the window draws holds an unsafe rune.
func checkDrawn(t *testing.T, c *Console, where string) int {
	t.Helper()
	var texts []string
	c.apply(func() { texts = drawnTexts(c) })
	for _, s := range texts {
		if r, bad := unsafeRune(s); bad {
			t.Fatalf("%s: the window draws %q, which holds %U raw", where, s, r)
		}
	}
	return len(texts)
}

// The service's name for the reviewer held a right-to-left override: the
// strip's own words after it read "(ecivres gnineercs eht morf)". A note
// with an override and its pop showed "EKAF_DEIFIREV". Both are drawn as
// the command line prints them, the strip's words and the note's around
// them as they were.
func TestANameOrANoteFromTheServiceCannotReverseTheWindowsText(t *testing.T) {
	c := outsideConsole(t, outsideText{name: "ana\u202e", note: "Customer ID \u202eVERIFIED_FAKE\u202c ok",
		ref: "CUST-1", file: "front.jpg", err: "no"})
	c.apply(c.refreshStrip)
	c.Settle()
	if c.panel.itemID != "a" || !c.panel.loaded {
		t.Fatalf("panel on %q", c.panel.itemID)
	}
	strip := c.strip.reviewer.Text
	if want := `ana\u202e (from the screening service)`; strip != want {
		t.Errorf("the strip says %q, want %q", strip, want)
	}
	notes := c.panel.team.notes.Text
	if !strings.Contains(notes, `Customer ID \u202eVERIFIED_FAKE\u202c ok`) || strings.ContainsRune(notes, '\u202e') {
		t.Errorf("the notes say %q", notes)
	}
	checkDrawn(t, c, "the window")
}

// Whatever the service, the cache or a file says (a name, a note, a
// customer reference, a file name, an error), no text the window draws
// holds a control character, a bidi control or an invisible character:
// the row, the batch list, the strip, the panel, its notes and audit, a
// claim by that name, an item that failed to load with that error.
func FuzzTheWindowDrawsOutsideTextEscaped(f *testing.F) {
	f.Add("ana", "a plain note", "CUST-1", "front.jpg", "boom")
	f.Add("ana\u202e", "Customer ID \u202eVERIFIED_FAKE\u202c ok", "CUST\u20661\u2069", "invoice\u202egpj.exe", "dial tcp: \x1b[2J")
	f.Add("b\u200bob\ufeff", "two\nlines\r\n\u2028sep", "\xff\xfe", "a\tb\x00c", "\u061cx\u200ey\u200fz")
	f.Add("", "", "", "", "")
	f.Fuzz(func(t *testing.T, name, note, ref, file, errText string) {
		c := outsideConsole(t, outsideText{name: name, note: note, ref: ref, file: file, err: errText})
		c.apply(c.refreshStrip)
		c.Settle()
		if n := checkDrawn(t, c, "item a"); n == 0 {
			t.Fatal("the window draws no text: the walk found nothing")
		}
		for _, id := range []string{"h", "b"} {
			c.apply(func() { c.panel.show(id) })
			c.Settle()
			checkDrawn(t, c, "item "+id)
		}
		if c.panel.message.Text == "" {
			t.Fatal("item b's failure says nothing")
		}
	})
}

// TestOutsideTextHasOneDoor holds the package to its gate (text.go): no
// file but text.go builds a Fyne label, a rich text, a notification or an
// information dialog itself, nor keeps a widget.Label (tooltip.go's
// tipLabel embeds one, and sets its text through the gate). A new screen
// that did would draw what it is given raw.
func TestOutsideTextHasOneDoor(t *testing.T) {
	forbidden := map[string]bool{
		"widget.Label": true, "widget.NewLabel": true, "widget.NewLabelWithStyle": true, "widget.NewLabelWithData": true,
		"widget.NewRichText": true, "widget.NewRichTextWithText": true, "widget.NewRichTextFromMarkdown": true,
		"fyne.NewNotification": true, "dialog.ShowInformation": true, "dialog.NewInformation": true,
		"dialog.ShowError": true, "dialog.NewError": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "text.go" {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			what := pkg.Name + "." + sel.Sel.Name
			if what == "widget.Label" && name == "tooltip.go" {
				seen++
				return true // tipLabel: its SetText and constructor pass drawn
			}
			if forbidden[what] {
				t.Errorf("%s: %s draws text past the gate: use newLabel, wrapped, richText, notification or showInformation (text.go)", fset.Position(sel.Pos()), what)
			}
			return true
		})
	}
	if seen == 0 {
		t.Fatal("the check did not see tooltip.go's tipLabel: it looks at nothing")
	}
}
