package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// press delivers a key as Fyne's desktop driver does (its window's
// processKeyPressed and triggersShortcut, Fyne 2.7): Tab (or Shift+Tab)
// moves the focus unless the focused widget accepts Tab; a key with Ctrl
// is a shortcut for the focused widget, or for the canvas when that one
// takes none (Ctrl+A is Fyne's select-all); any other key goes to the
// focused widget, or to the window's handler when nothing has the focus.
func press(c *Console, name fyne.KeyName, mod fyne.KeyModifier) {
	cv := c.win.Canvas()
	c.apply(func() {
		if name == fyne.KeyTab && mod&^fyne.KeyModifierShift == 0 {
			if t, ok := cv.Focused().(fyne.Tabbable); !ok || !t.AcceptsTab() {
				if mod == fyne.KeyModifierShift {
					cv.FocusPrevious()
				} else {
					cv.FocusNext()
				}
				return
			}
		} else if mod != 0 && mod != fyne.KeyModifierShift {
			var sc fyne.Shortcut = &desktop.CustomShortcut{KeyName: name, Modifier: mod}
			if name == fyne.KeyA && mod == fyne.KeyModifierControl {
				sc = &fyne.ShortcutSelectAll{}
			}
			if s, ok := cv.Focused().(fyne.Shortcutable); ok {
				s.TypedShortcut(sc)
			} else {
				cv.(fyne.Shortcutable).TypedShortcut(sc)
			}
			return
		}
		ev := &fyne.KeyEvent{Name: name}
		if f := cv.Focused(); f != nil {
			f.TypedKey(ev)
		} else {
			key(c)(ev)
		}
	})
}

func findFormButton(o fyne.CanvasObject, text string) *formButton {
	var found *formButton
	walkObjects(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*formButton); ok && b.Text == text && found == nil {
			found = b
		}
	})
	return found
}

// dialogTexts are the texts of the labels of the dialog on top.
func dialogTexts(c *Console) string {
	var out []string
	walkObjects(c.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if l, ok := asLabel(o); ok {
			out = append(out, l.Text)
		}
	})
	return strings.Join(out, "\n")
}

// ringShown reports whether a button draws its focus ring.
func ringShown(b *formButton) bool {
	objs := test.WidgetRenderer(b).Objects()
	r, ok := objs[len(objs)-1].(*canvas.Rectangle)
	return ok && r.Visible() && r.StrokeWidth > 0
}

func newConsoleOn(t *testing.T, wf any) *Console {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	return c
}

// "Request a new file" from the keyboard: the message has the focus with
// the cursor after the suggestion, Enter makes a new line (at the end),
// Tab leaves the box without a tab character and rings the focused
// button, Shift+Tab comes back, Ctrl+Enter sends what is on screen; Esc
// cancels wherever the focus is, and Enter on a focused Cancel cancels.
func TestRequestANewFileFromTheKeyboard(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
	c := newTestConsole(t, wf)
	cv := c.win.Canvas()
	typeText(c, "f")
	msg, ok := cv.Focused().(*formEntry)
	if !ok || !msg.MultiLine {
		t.Fatalf("the message box does not have the focus: %T", cv.Focused())
	}
	suggested := policy.Info(policy.CodeDecodeFailed).CustomerMessage
	if !strings.Contains(dialogTexts(c), multiLineHint) {
		t.Fatal("the dialog does not say under the box which keys send")
	}
	press(c, fyne.KeyReturn, 0)
	typeText(c, "Thank you.")
	if want := suggested + "\nThank you."; msg.Text != want {
		t.Fatalf("Enter and typing: %q, want %q", msg.Text, want)
	}
	if len(wf.Calls()) != 0 {
		t.Fatal("Enter in the message box sent it")
	}
	press(c, fyne.KeyTab, 0)
	if strings.Contains(msg.Text, "\t") || cv.Focused() == msg {
		t.Fatalf("Tab stayed in the box: %q", msg.Text)
	}
	cancel, isButton := cv.Focused().(*formButton)
	if !isButton || !ringShown(cancel) {
		t.Fatalf("Tab did not focus a button that shows it: %T", cv.Focused())
	}
	press(c, fyne.KeyTab, fyne.KeyModifierShift)
	if cv.Focused() != msg || ringShown(cancel) {
		t.Fatal("Shift+Tab did not come back to the message box")
	}
	press(c, fyne.KeyReturn, fyne.KeyModifierControl)
	c.Settle()
	if got := wf.Calls(); len(got) != 1 || got[0] != "request a "+suggested+"\nThank you." {
		t.Fatalf("Ctrl+Enter sent %q", got)
	}
	if cv.Overlays().Top() != nil {
		t.Fatal("the dialog stayed open after sending")
	}

	// Esc on a focused button, and Enter on a focused Cancel, send nothing.
	for _, how := range []string{"esc on a button", "enter on cancel", "esc with nothing focused"} {
		wf := &fakeWorkflow{items: []review.ItemView{errorItem("b", "DECODE_FAILED")}}
		c := newTestConsole(t, wf)
		cv := c.win.Canvas()
		typeText(c, "f")
		press(c, fyne.KeyTab, 0)
		switch how {
		case "esc on a button":
			press(c, fyne.KeyTab, 0) // Send
			press(c, fyne.KeyEscape, 0)
		case "enter on cancel":
			press(c, fyne.KeyReturn, 0)
		case "esc with nothing focused":
			c.apply(cv.Unfocus)
			press(c, fyne.KeyEscape, 0)
		}
		c.Settle()
		if cv.Overlays().Top() != nil || len(wf.Calls()) != 0 {
			t.Fatalf("%s: dialog open %v, calls %v", how, cv.Overlays().Top() != nil, wf.Calls())
		}
	}
}

// snoozeFake records what a snooze was asked with.
type snoozeFake struct {
	*fakeWorkflow
	mu     sync.Mutex
	reason string
	until  time.Time
}

func (s *snoozeFake) Snooze(_ context.Context, id string, until time.Time, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reason, s.until = id+": "+reason, until
	return nil
}

// Snooze from the keyboard: what is typed at once is the reason, Tab
// goes to the day, → picks the next one, Enter snoozes. The dialog is
// titled with the file name and is as tall as its content.
func TestSnoozeFromTheKeyboard(t *testing.T) {
	now := time.Date(2026, 11, 30, 15, 0, 0, 0, time.Local) // a Monday
	sf := &snoozeFake{fakeWorkflow: &fakeWorkflow{items: []review.ItemView{errorItem("itm_7", "DECODE_FAILED")}}}
	c := newConsoleOn(t, sf)
	c.opts.Now = func() time.Time { return now }
	cv := c.win.Canvas()
	c.apply(c.onSnooze) // Ctrl+Shift+Z
	top := cv.Overlays().Top()
	if top == nil {
		t.Fatal("no snooze dialog")
	}
	texts := dialogTexts(c)
	if !strings.Contains(texts, "Snooze itm_7.jpg") || strings.Contains(texts, "Snooze itm_7\n") {
		t.Fatalf("the dialog is not titled with the file name:\n%s", texts)
	}
	box := top.(*widget.PopUp).Content
	if sz, min := box.Size(), box.MinSize(); sz.Height > min.Height+1 || sz.Width > 700 {
		t.Fatalf("the dialog is %v for content of %v", sz, min)
	}
	reason := cv.Focused().(*formEntry)
	if w := fyne.MeasureText(reason.PlaceHolder, theme.TextSize(), fyne.TextStyle{}).Width; reason.Size().Width < w {
		t.Fatalf("the reason box (%v wide) cuts its own example (%v)", reason.Size().Width, w)
	}
	typeText(c, "new scan on Wednesday")
	press(c, fyne.KeyTab, 0)
	press(c, fyne.KeyRight, 0)
	press(c, fyne.KeyReturn, 0)
	c.Settle()
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.reason != "itm_7: new scan on Wednesday" || sf.until.Weekday() != time.Wednesday {
		t.Fatalf("snoozed %q until %v", sf.reason, sf.until)
	}
	if cv.Overlays().Top() != nil {
		t.Fatal("the dialog stayed open")
	}
}

// Save a view from the keyboard: the name is typed at once, Enter saves,
// and the window says which Ctrl+N applies it.
func TestSaveAViewFromTheKeyboard(t *testing.T) {
	vf := &viewsFake{fakeWorkflow: twoBatches(), saved: []review.View{{Name: "Timeouts"}}}
	c := newConsoleOn(t, vf)
	c.apply(c.onSaveView) // Ctrl+Shift+V
	typeText(c, "Decode failures")
	press(c, fyne.KeyReturn, 0)
	c.Settle()
	if len(vf.saved) != 2 || vf.saved[1].Name != "Decode failures" {
		t.Fatalf("saved %+v", vf.saved)
	}
	want := len(review.BuiltinViews()) + 2
	if got := c.strip.pages.Text; !strings.Contains(got, "Ctrl+"+string(rune('0'+want))) {
		t.Fatalf("the window does not say which Ctrl key the view took: %q (want Ctrl+%d)", got, want)
	}
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("the dialog stayed open")
	}
	if got := savedViewText("Tenth", append(make([]review.View, 9), review.View{Name: "Tenth"}), nil); !strings.Contains(got, "only the first nine") {
		t.Fatal(got)
	}
}

// Upload from the keyboard: the path is typed, Enter uploads once it is
// checked; the dialog says that an upload is a paid analysis.
func TestUploadFromTheKeyboard(t *testing.T) {
	dir := t.TempDir()
	jpg := filepath.Join(dir, "back.jpg")
	if err := os.WriteFile(jpg, []byte("\xFF\xD8\xFF\xE0rest"), 0o600); err != nil {
		t.Fatal(err)
	}
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}
	c := newTestConsole(t, wf)
	typeText(c, "u")
	if !strings.Contains(dialogTexts(c), "one paid analysis") {
		t.Fatalf("the upload dialog does not say what it costs:\n%s", dialogTexts(c))
	}
	typeText(c, jpg)
	c.Settle() // the path's check runs off the UI goroutine
	press(c, fyne.KeyReturn, 0)
	c.Settle()
	if got := wf.Calls(); len(got) != 1 || got[0] != "replace a" {
		t.Fatalf("calls %v", got)
	}
	// Browse starts where the typed path is, else in the last folder.
	sub := filepath.Join(dir, "scans")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for typed, want := range map[string]string{filepath.Join(sub, "x.jpg"): sub, sub: sub, jpg: dir,
		"/no/such/folder/x.jpg": "/last", "": "/last"} {
		if got := browseFolder(typed, "/last"); got != want {
			t.Fatalf("Browse for %q starts in %q, want %q", typed, got, want)
		}
	}
}

// Preferences from the keyboard: the API URL has the focus, Tab goes to
// the theme (→ changes it) and to the triage box (Space ticks it), Enter
// saves; Esc leaves everything as it was.
func TestPreferencesFromTheKeyboard(t *testing.T) {
	c := newTestConsoleWith(t, &fakeWorkflow{}, Options{APIURL: "https://api.example.test"})
	cv := c.win.Canvas()
	c.apply(func() { c.settings.show(c.win) })
	if _, ok := cv.Focused().(*formEntry); !ok {
		t.Fatalf("the first field does not have the focus: %T", cv.Focused())
	}
	typeText(c, "/v2")
	press(c, fyne.KeyEscape, 0)
	if cv.Overlays().Top() != nil || c.settings.store().String(prefTheme) != "" {
		t.Fatal("Esc did not leave the preferences as they were")
	}
	// With nothing focused (a click beside the fields), Esc and Enter still
	// answer, and the window's own keys come back when it closes.
	c.apply(func() { c.settings.show(c.win) })
	c.apply(cv.Unfocus)
	press(c, fyne.KeyEscape, 0)
	if cv.Overlays().Top() != nil {
		t.Fatal("Esc with nothing focused did not close the preferences")
	}
	c.apply(func() { c.settings.show(c.win) })
	press(c, fyne.KeyTab, 0)
	press(c, fyne.KeyRight, 0) // As the system says → Light
	press(c, fyne.KeyTab, 0)
	typeText(c, " ") // off: stay on the item after acting
	press(c, fyne.KeyReturn, 0)
	if cv.Overlays().Top() != nil {
		t.Fatal("Enter did not save and close")
	}
	if th, adv := c.settings.store().String(prefTheme), c.settings.store().String(prefAutoAdvance); th != "light" || adv != "off" {
		t.Fatalf("saved theme %q, auto-advance %q", th, adv)
	}
	c.apply(func() { c.settings.show(c.win) })
	c.apply(cv.Unfocus)
	press(c, fyne.KeyReturn, 0)
	if cv.Overlays().Top() != nil {
		t.Fatal("Enter with nothing focused did not save")
	}
	c.apply(cv.Unfocus)
	press(c, fyne.KeyF1, 0) // the window's own key: the shortcut sheet
	if cv.Overlays().Top() == nil {
		t.Fatal("the window's keys did not come back after the preferences closed")
	}
}

// The bulk dialog from the keyboard: the message has the focus,
// Ctrl+Enter confirms, the result names each item's file, customer and
// new verdict, and Esc closes it when it is done. Plurals are right.
func TestTheBulkDialogFromTheKeyboard(t *testing.T) {
	wf := &fakeBulk{send: 1}
	c := newTestConsole(t, &fakeWorkflow{})
	cv := c.win.Canvas()
	var b *bulkScreen
	c.apply(func() { b = c.showBulk(wf, wf, planOf(policy.ActionFileRequest, 1)) })
	if b.confirm.Text != "Request 1 new file (Ctrl+Enter)" {
		t.Fatalf("confirm %q", b.confirm.Text)
	}
	msg := b.messages[policy.CodeDecodeFailed]
	if cv.Focused() != msg {
		t.Fatalf("the message does not have the focus: %T", cv.Focused())
	}
	suggested := msg.Text
	press(c, fyne.KeyReturn, 0)
	typeText(c, "Thank you.")
	if msg.Text != suggested+"\nThank you." {
		t.Fatalf("Enter and typing in the message: %q", msg.Text)
	}
	press(c, fyne.KeyReturn, fyne.KeyModifierControl)
	waitEnded(t, b)
	wf.mu.Lock()
	sent := wf.confirmed.Messages[policy.CodeDecodeFailed]
	wf.mu.Unlock()
	if sent != suggested+"\nThank you." {
		t.Fatalf("confirmed with %q", sent)
	}
	c.apply(func() {
		if len(b.shown) != 1 {
			t.Fatalf("%d results", len(b.shown))
		}
		b.mu.Lock()
		line := b.resultLine(b.shown[0])
		b.mu.Unlock()
		if line != "itm_00.jpg · CUST-7048 · done" {
			t.Fatalf("result %q", line)
		}
	})
	press(c, fyne.KeyEscape, 0)
	c.Settle()
	if cv.Overlays().Top() != nil {
		t.Fatal("Esc did not close the dialog when the run was done")
	}

	// A re-submission's plan shows its items (the focused
	// "Show the items": Space presses it, Enter the one labelled
	// "(Enter)"); its result has the new score.
	c.apply(func() { b = c.showBulk(wf, wf, planOf(policy.ActionResubmit, 2)) })
	if cv.Focused() != b.showItems {
		t.Fatalf("focus on %T, not on Show the items", cv.Focused())
	}
	press(c, fyne.KeySpace, 0)
	select {
	case <-b.listed:
	case <-time.After(time.Minute):
		t.Fatal("the plan's items were not shown")
	}
	c.apply(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if line := b.planLine(b.plan.Items[0]); !b.planned || line != "itm_00.jpg · CUST-7048 · CLASSIFIER_TIMEOUT" {
			t.Fatalf("the plan's items are not shown: %q", line)
		}
	})
	press(c, fyne.KeyTab, fyne.KeyModifierShift) // back to the confirm button
	press(c, fyne.KeyReturn, 0)
	waitEnded(t, b)
	c.apply(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if line := b.resultLine(b.shown[0]); line != "itm_00.jpg · CUST-7048 · done: new score 42" {
			t.Fatalf("result %q", line)
		}
		if line := b.resultLine(b.shown[1]); !strings.Contains(line, "queued") {
			t.Fatalf("result %q", line)
		}
	})
	press(c, fyne.KeyEscape, 0)
	c.Settle()
	if cv.Overlays().Top() != nil {
		t.Fatal("Esc did not close the dialog")
	}
}

// An export through the window's own picker: the file name has the
// focus, Tab goes to the folder, Enter on an existing file asks first
// (Replace), and an export that fails then leaves the old file whole.
func TestAnExportThatFailsFromThePickerLeavesTheOldFileWhole(t *testing.T) {
	dir := t.TempDir()
	const old = "item,status\nitm_1,scored\nitm_2,scored\n"
	path := filepath.Join(dir, "old.csv")
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newConsoleOn(t, exportFails{&fakeWorkflow{}})
	cv := c.win.Canvas()
	c.apply(c.onExport) // Ctrl+E
	name, ok := cv.Focused().(*formEntry)
	if !ok || !strings.HasSuffix(name.Text, ".csv") {
		t.Fatalf("the file name does not have the focus: %T", cv.Focused())
	}
	press(c, fyne.KeyA, fyne.KeyModifierControl)
	typeText(c, "old.csv")
	press(c, fyne.KeyTab, 0)
	press(c, fyne.KeyA, fyne.KeyModifierControl)
	typeText(c, dir)
	press(c, fyne.KeyReturn, 0)
	c.Settle()
	if cv.Overlays().Top() == nil || findFormButton(cv.Overlays().Top(), "Replace (Enter)") == nil {
		t.Fatalf("an existing file was not asked about:\n%s", dialogTexts(c))
	}
	if got, _ := os.ReadFile(path); string(got) != old {
		t.Fatalf("asking touched the old file: %q", got)
	}
	press(c, fyne.KeyReturn, 0)
	c.Settle()
	if !strings.Contains(dialogTexts(c), "Export failed") && !strings.Contains(dialogTexts(c), "could not be read") {
		t.Fatalf("the failure is not said:\n%s", dialogTexts(c))
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != old {
		t.Fatalf("the old export became %q (%v)", got, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("the folder holds %d files after a failed export", len(ents))
	}
	press(c, fyne.KeyReturn, 0) // the error's OK
	if cv.Overlays().Top() != nil {
		t.Fatal("Enter did not close the error")
	}
	// A new file is written at once; Enter closes the "Exported" dialog.
	c2 := newConsoleOn(t, &fakeWorkflow{})
	c2.settings.store().SetString(prefLastFolder+"_export", dir)
	c2.apply(c2.onExport)
	press(c2, fyne.KeyA, fyne.KeyModifierControl)
	typeText(c2, "week")
	press(c2, fyne.KeyReturn, 0)
	c2.Settle()
	if fi, err := os.Stat(filepath.Join(dir, "week.csv")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the export was not written, or not private: %v", err)
	}
	if !strings.Contains(dialogTexts(c2), "Wrote 0 items to week.csv") {
		t.Fatalf("the export is not said:\n%s", dialogTexts(c2))
	}
	// As tall as its wrapped text at the dialog's width, no taller.
	box := c2.win.Canvas().Overlays().Top().(*widget.PopUp).Content
	if sz, min := box.Size(), box.MinSize(); sz.Height > min.Height+1 {
		t.Fatalf("the Exported dialog is %v for content of %v", sz, min)
	}
	press(c2, fyne.KeyReturn, 0)
	if c2.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Enter did not close the Exported dialog")
	}
	for folder, name := range map[string]string{"": "x.csv", dir: "", dir + "/": "a/b.csv"} {
		if _, err := exportTarget(folder, name); err == nil {
			t.Fatalf("%q in %q taken", name, folder)
		}
	}
	if p, _ := exportTarget(dir, "week"); p != filepath.Join(dir, "week.csv") {
		t.Fatal(p)
	}
}
