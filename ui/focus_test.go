package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/store"
)

// pressKey delivers a key as Fyne's desktop driver does: to the focused
// widget, or to the canvas when nothing has the focus.
func pressKey(c *Console, name fyne.KeyName) {
	c.apply(func() {
		cv := c.win.Canvas()
		ev := &fyne.KeyEvent{Name: name}
		if f := cv.Focused(); f != nil {
			f.TypedKey(ev)
		} else {
			key(c)(ev)
		}
	})
	c.Settle()
}

// pressShortcut delivers a shortcut as the driver does: a focused widget
// that takes shortcuts (a text field) gets it, else the canvas.
func pressShortcut(c *Console, s fyne.Shortcut) {
	c.apply(func() {
		cv := c.win.Canvas()
		if f, ok := cv.Focused().(fyne.Shortcutable); ok {
			f.TypedShortcut(s)
			return
		}
		cv.(fyne.Shortcutable).TypedShortcut(s)
	})
	c.Settle()
}

func typeText(c *Console, text string) {
	c.apply(func() {
		cv := c.win.Canvas()
		for _, r := range text {
			if f := cv.Focused(); f != nil {
				f.TypedRune(r)
			} else {
				cv.(interface{ OnTypedRune() func(rune) }).OnTypedRune()(r)
			}
		}
	})
	c.Settle()
}

func focused(c *Console) fyne.Focusable { return c.win.Canvas().Focused() }

// Ctrl+F, a search, Enter: the first match opens and the arrows move in its
// items at once; the heading names the batch. Esc leaves the search.
func TestEnterInTheSearchOpensTheFirstMatchAndTheArrowsMoveInIt(t *testing.T) {
	wf := twoBatches()
	wf.items = append(wf.items, inBatch(errorItem("b43", "INTERNAL_ERROR"), "bat_43", "CUST-7043"))
	wf.batches[1].Items = 2
	c := newTestConsole(t, wf)
	if !strings.Contains(c.items.heading.Text, "CUST-7048") {
		t.Fatalf("heading %q does not name the open batch", c.items.heading.Text)
	}
	pressShortcut(c, ctrl(fyne.KeyF))
	if focused(c) != c.batches.search {
		t.Fatalf("Ctrl+F focused %T", focused(c))
	}
	typeText(c, "7043")
	// The list shows only CUST-7043 while CUST-7048 is open: it says so.
	if !c.batches.note.Visible() || !strings.Contains(c.batches.note.Text, "CUST-7048") {
		t.Fatalf("the search hides the open batch and the list does not say so: %q", c.batches.note.Text)
	}
	pressKey(c, fyne.KeyReturn)
	if c.batches.batchID() != "bat_43" || focused(c) != c.items.table {
		t.Fatalf("Enter: batch %q, focus on %T", c.batches.batchID(), focused(c))
	}
	if !strings.Contains(c.items.heading.Text, "CUST-7043") || c.batches.note.Visible() {
		t.Fatalf("after Enter: heading %q, note %q", c.items.heading.Text, c.batches.note.Text)
	}
	pressKey(c, fyne.KeyDown)
	if c.items.row != 1 || c.panel.itemID != "b43" {
		t.Fatalf("the arrow after a search: row %d, panel %q", c.items.row, c.panel.itemID)
	}
	pressShortcut(c, ctrl(fyne.KeyF))
	pressKey(c, fyne.KeyEscape)
	if focused(c) != c.items.table {
		t.Fatalf("Esc stayed in the search: focus on %T", focused(c))
	}
	typeText(c, "zzz-nothing")
	if strings.Contains(c.batches.search.Text, "zzz") {
		t.Fatalf("letters after Esc went into the search: %q", c.batches.search.Text)
	}
}

// searchFake finds items by file name as the store does, naming the match.
type searchFake struct{ *fakeWorkflow }

func (f *searchFake) Batches(ctx context.Context, search string, limit int) ([]store.BatchSummary, error) {
	out, _ := f.fakeWorkflow.Batches(ctx, search, limit)
	if len(out) > 0 || search == "" {
		return out, nil
	}
	all, _ := f.fakeWorkflow.Batches(ctx, "", limit)
	for _, b := range all {
		for _, it := range f.items {
			if it.BatchID == b.ID && strings.Contains(it.FileName, search) {
				b.MatchItem, b.MatchFile = it.ID, it.FileName
				out = append(out, b)
				break
			}
		}
	}
	return out, nil
}

// A search by file name opens the batch at the item it found; a search
// that finds nothing says so.
func TestASearchOpensTheItemItFoundAndSaysNoMatch(t *testing.T) {
	wf := twoBatches()
	wf.items = append(wf.items, inBatch(errorItem("c43", "INTERNAL_ERROR"), "bat_43", "CUST-7043"))
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(&searchFake{wf}), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	pressShortcut(c, ctrl(fyne.KeyF))
	typeText(c, "c43.jpg")
	if len(c.batches.rows) != 1 || !strings.Contains(matchText(c.batches.rows[0]), "c43.jpg") {
		t.Fatalf("rows %+v", c.batches.rows)
	}
	pressKey(c, fyne.KeyReturn)
	if c.panel.itemID != "c43" || focused(c) != c.items.table {
		t.Fatalf("Enter opened %q, focus on %T", c.panel.itemID, focused(c))
	}
	pressShortcut(c, ctrl(fyne.KeyF))
	typeText(c, "-none")
	if !c.batches.note.Visible() || !strings.Contains(c.batches.note.Text, "No match") {
		t.Fatalf("no match is not said: %q", c.batches.note.Text)
	}
}

// F5, F1, Ctrl+F and Ctrl+Q work wherever the focus is; a choice in a
// filter list and a sent note give the focus back to the items; `?` in a
// text field is text.
func TestTheWindowKeysWorkWhereverTheFocusIs(t *testing.T) {
	wf := twoBatches()
	c := newTestConsole(t, wf)
	for _, w := range []fyne.Focusable{c.items.status, c.items.needs, c.batches.all, c.batches.search, c.panel.team.entry} {
		c.apply(func() { c.win.Canvas().Focus(w) })
		before := len(callsWith(&teamFake{fakeWorkflow: wf}, "sync"))
		pressKey(c, fyne.KeyF5)
		if got := len(callsWith(&teamFake{fakeWorkflow: wf}, "sync")); got != before+1 {
			t.Fatalf("F5 on %T did not sync", w)
		}
		pressKey(c, fyne.KeyF1)
		if c.win.Canvas().Overlays().Top() == nil {
			t.Fatalf("F1 on %T did not show the sheet", w)
		}
		pressKey(c, fyne.KeyEscape)
		c.apply(func() { c.win.Canvas().Focus(w) })
		pressShortcut(c, ctrl(fyne.KeyF))
		if focused(c) != c.batches.search {
			t.Fatalf("Ctrl+F on %T went nowhere", w)
		}
	}
	c.apply(func() { c.win.Canvas().Focus(c.batches.search) })
	typeText(c, "?")
	if c.batches.search.Text != "?" || c.win.Canvas().Overlays().Top() != nil {
		t.Fatalf("? in the search: text %q, sheet shown %v", c.batches.search.Text, c.win.Canvas().Overlays().Top() != nil)
	}
	c.apply(func() { c.batches.search.SetText("") })
	c.Settle()

	c.apply(func() { c.win.Canvas().Focus(c.items.code); c.items.code.SetSelectedIndex(1) })
	c.Settle()
	if focused(c) != c.items.table {
		t.Fatalf("after a choice in a filter list the focus is on %T", focused(c))
	}
	pressKey(c, fyne.KeyF5) // after a filter, F5 is not swallowed
	c.apply(func() { c.items.code.SetSelectedIndex(0) })
	c.Settle()

	c.apply(func() {
		c.win.Canvas().Focus(c.panel.team.entry)
		c.panel.team.entry.SetText("checked with the customer")
	})
	c.apply(c.panel.team.onAddNote) // refused: a 1.0 service offers no notes
	c.Settle()
}

// A note sent gives the focus back to the items: the next letter triages.
func TestANoteSentGivesTheFocusBackToTheItems(t *testing.T) {
	tf := newTeamFake(errorItem("a1", "DECODE_FAILED"))
	tc := newTeamConsole(t, tf)
	tc.apply(func() {
		tc.win.Canvas().Focus(tc.panel.team.entry)
		tc.panel.team.entry.SetText("checked with the customer")
	})
	tc.apply(tc.panel.team.onAddNote)
	tc.Settle()
	if len(callsWith(tf, "note a1")) != 1 || focused(tc) != tc.items.table {
		t.Fatalf("after a note the focus is on %T", focused(tc))
	}
	typeText(tc, "x")
	if tc.panel.team.entry.Text != "" {
		t.Fatalf("a triage letter after a note went into the note box: %q", tc.panel.team.entry.Text)
	}
}

// Ctrl+Q in a text field quits.
func TestCtrlQInTheSearchClosesTheWindow(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewWindow(nil) // closed by Ctrl+Q, not by the test's cleanup
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(twoBatches()), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	c.apply(func() { c.win.Canvas().Focus(c.batches.search) })
	pressShortcut(c, ctrl(fyne.KeyQ))
	if c.ctx.Err() == nil {
		t.Fatal("Ctrl+Q in the search did not close the window")
	}
}

// Ctrl+A (the driver's "select all") and Shift+↓ on the items select rows.
func TestCtrlAAndShiftArrowsSelectFromTheKeyboard(t *testing.T) {
	wf := twoBatches()
	wf.items = append(wf.items, inBatch(errorItem("b48", "DECODE_FAILED"), "bat_48", "CUST-7048"),
		inBatch(errorItem("c48", "DECODE_FAILED"), "bat_48", "CUST-7048"))
	c := newTestConsole(t, wf)
	c.apply(func() { c.win.Canvas().Focus(c.batches.search) })
	pressShortcut(c, &fyne.ShortcutSelectAll{}) // in a text field, its text
	if len(c.multi.list()) != 0 {
		t.Fatalf("Ctrl+A in the search selected rows: %v", c.multi.list())
	}
	c.apply(c.focusItems)
	var mods fyne.KeyModifier
	c.keyMods = func() fyne.KeyModifier { return mods }
	mods = fyne.KeyModifierShift
	pressKey(c, fyne.KeyDown)
	mods = 0
	if got := strings.Join(c.multi.list(), ","); got != "a48,b48" {
		t.Fatalf("Shift+Down selected %q", got)
	}
	pressShortcut(c, &fyne.ShortcutSelectAll{})
	if got := strings.Join(c.multi.list(), ","); got != "a48,b48,c48" {
		t.Fatalf("Ctrl+A selected %q", got)
	}
}

// The sheet comes from the table that binds the keys: every bound shortcut
// is on it, grouped, and no key is bound anywhere else.
func TestEveryBoundShortcutIsOnTheSheet(t *testing.T) {
	c := newTestConsole(t, twoBatches())
	c.apply(c.showShortcuts)
	top := c.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no sheet")
	}
	var texts []string
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := asLabel(o); ok {
			texts = append(texts, l.Text)
		}
	}
	sheet := strings.Join(texts, "\n")
	for _, g := range keyGroups {
		if !slicesContains(texts, g) {
			t.Fatalf("no group %q on the sheet", g)
		}
	}
	for _, k := range windowKeys {
		for _, sc := range k.shortcuts {
			cs, ok := sc.(*desktop.CustomShortcut)
			if !ok {
				continue
			}
			words := shortcutWords(cs)
			if k.what == "" && cs.KeyName >= fyne.Key1 && cs.KeyName <= fyne.Key9 {
				words = "Ctrl+1 … Ctrl+9" // one line for the nine views
			}
			if !strings.Contains(sheet, words) {
				t.Fatalf("%s is bound but not on the sheet", cs.ShortcutName())
			}
		}
	}
	for _, want := range []string{"Ctrl+Shift+R", "Ctrl+Shift+N", "Ctrl+A", "Shift+↑", "Ctrl+0", "Ctrl+1 … Ctrl+9", "Ctrl+Shift+V", "Ctrl+Shift+Z", "Ctrl+Q", "F5", "Ctrl+E"} {
		if !strings.Contains(sheet, want) {
			t.Fatalf("%s is missing from the sheet", want)
		}
	}
	// Every canvas shortcut is bound by bindKeys from windowKeys.
	files, _ := filepath.Glob("*.go")
	bind := regexp.MustCompile(`\.AddShortcut\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := len(bind.FindAll(b, -1))
		if (f == "console.go" && n != 1) || (f != "console.go" && n != 0) {
			t.Fatalf("%s binds %d shortcuts outside windowKeys", f, n)
		}
	}
}

// shortcutWords is a custom shortcut as the sheet writes it.
func shortcutWords(s *desktop.CustomShortcut) string {
	var w string
	if s.Modifier&fyne.KeyModifierShortcutDefault != 0 {
		w += "Ctrl+"
	}
	if s.Modifier&fyne.KeyModifierShift != 0 {
		w += "Shift+"
	}
	return w + string(s.KeyName)
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// The shortcut sheet scrolls by ↓ and PgDn; Ctrl+, opens Preferences.
func TestTheSheetScrollsByKeysAndPreferencesHaveAKey(t *testing.T) {
	c := newTestConsole(t, twoBatches())
	pressKey(c, fyne.KeyF1)
	if c.sheet == nil || c.win.Canvas().Overlays().Top() == nil {
		t.Fatal("F1 showed no sheet")
	}
	pressKey(c, fyne.KeyDown)
	down := c.sheet.Offset.Y
	pressKey(c, fyne.KeyPageDown)
	if down <= 0 || c.sheet.Offset.Y <= down {
		t.Fatalf("↓ scrolled the sheet to %v, PgDn to %v", down, c.sheet.Offset.Y)
	}
	pressKey(c, fyne.KeyHome)
	if c.sheet.Offset.Y != 0 {
		t.Fatalf("Home left the sheet at %v", c.sheet.Offset.Y)
	}
	pressKey(c, fyne.KeyEscape)
	if c.win.Canvas().Overlays().Top() != nil || c.sheet != nil {
		t.Fatal("Esc did not close the sheet")
	}
	c.apply(c.focusItems)
	pressShortcut(c, ctrl(fyne.KeyComma))
	top := c.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Ctrl+, opened nothing")
	}
	if !slices.ContainsFunc(test.LaidOutObjects(top), func(o fyne.CanvasObject) bool {
		l, ok := asLabel(o)
		return ok && l.Text == "Preferences"
	}) {
		t.Fatal("Ctrl+, did not open Preferences")
	}
}

// Space on "Needs my action" (and on "All batches") gives the focus back
// to the items: End and ↓ move in them at once.
func TestAFilterTickedFromTheKeyboardGivesTheFocusBackToTheItems(t *testing.T) {
	wf := twoBatches()
	wf.items = append(wf.items, inBatch(errorItem("b48", "DECODE_FAILED"), "bat_48", "CUST-7048"))
	c := newTestConsole(t, wf)
	for _, k := range []*keyCheck{c.items.needs, c.batches.all} {
		c.apply(func() { c.win.Canvas().Focus(k) })
		typeText(c, " ")
		c.Settle()
		if !k.Checked || focused(c) != c.items.table {
			t.Fatalf("Space on %q: checked %v, the focus on %T", k.Text, k.Checked, focused(c))
		}
	}
	pressKey(c, fyne.KeyHome)
	first := c.panel.itemID
	pressKey(c, fyne.KeyEnd)
	if c.panel.itemID == first || c.panel.itemID == "" {
		t.Fatalf("End after the filter stayed on %q", c.panel.itemID)
	}
}
