package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// errRawCache is what the driver says when the cache fails: text for the
// Details area, never a dialog's headline.
var errRawCache = fmt.Errorf("store: exec: %w", errors.New("database is locked (5) (SQLITE_BUSY)"))

const plainCacheError = "The console failed to read or write its local cache (INTERNAL_ERROR)."

// failingTriage refuses every snooze and every saved view with the cache's
// raw error.
type failingTriage struct{ *viewsFake }

func (failingTriage) Snooze(context.Context, string, time.Time, string) error { return errRawCache }
func (failingTriage) SaveView(context.Context, string, review.ViewFilter) error {
	return errRawCache
}

// failingUndo is a bulk workflow whose group cancel fails in the cache.
type failingUndo struct{ *fakeBulk }

func (failingUndo) CancelRun(context.Context, int64) ([]store.Action, error) {
	return nil, errRawCache
}

// The snooze, view and bulk dialogs say what went wrong in the words the
// rest of the window uses (a headline, the raw text only under Details),
// never the driver's text alone.
func TestDialogErrorsAreExplainedInWords(t *testing.T) {
	t.Run("snooze and views", func(t *testing.T) {
		a := test.NewTempApp(t)
		w := test.NewTempWindow(t, nil)
		w.Resize(fyne.NewSize(1280, 800))
		wf := failingTriage{&viewsFake{fakeWorkflow: &fakeWorkflow{items: []review.ItemView{errorItem("a", "DECODE_FAILED")}}}}
		c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
		c.apply(c.reload)
		c.Settle()
		for _, d := range []struct {
			open    func()
			confirm string
		}{{c.onSnooze, "Snooze (Enter)"}, {c.onSaveView, "Save (Enter)"}} {
			c.apply(d.open)
			top := c.win.Canvas().Overlays().Top()
			if top == nil {
				t.Fatalf("%s: no dialog", d.confirm)
			}
			c.apply(func() {
				for _, e := range findEntries(top) {
					e.SetText("the customer sends a new scan")
				}
				b := findButton(top, d.confirm)
				if b == nil {
					t.Fatalf("no %s button", d.confirm)
				}
				test.Tap(b)
			})
			c.Settle()
			shown := strings.Join(labelTexts(c.win.Canvas().Overlays().Top()), "\n")
			if !strings.HasPrefix(shown, plainCacheError) {
				t.Errorf("%s failed and the dialog says %q, not %q", d.confirm, shown, plainCacheError)
			}
			c.apply(func() { c.win.Canvas().Overlays().Top().Hide() })
		}
	})
	t.Run("bulk", func(t *testing.T) {
		test.NewTempApp(t)
		b := newBulkScreen(failingUndo{&fakeBulk{send: 1}}, failingUndo{&fakeBulk{send: 1}}, planOf(policy.ActionResubmit, 3))
		test.NewTempWindow(t, b.content)
		test.Tap(b.confirm)
		waitEnded(t, b)
		test.Tap(b.undo)
		select {
		case <-b.undone:
		case <-time.After(time.Minute):
			t.Fatal("the undo did not end")
		}
		if want := "Not cancelled: " + plainCacheError; b.status.Text != want {
			t.Fatalf("status %q, want %q", b.status.Text, want)
		}
	})
}

// findEntries finds the entries among an object and its children.
func findEntries(o fyne.CanvasObject) []*widget.Entry {
	var out []*widget.Entry
	walkObjects(o, func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			out = append(out, e)
		}
		if e, ok := o.(*formEntry); ok {
			out = append(out, &e.Entry)
		}
	})
	return out
}

// labelTexts is the text of every label among an object and its children.
func labelTexts(o fyne.CanvasObject) []string {
	var out []string
	walkObjects(o, func(o fyne.CanvasObject) {
		if l, ok := asLabel(o); ok && l.Text != "" {
			out = append(out, l.Text)
		}
	})
	return out
}

func walkObjects(o fyne.CanvasObject, visit func(fyne.CanvasObject)) {
	if o == nil {
		return
	}
	visit(o)
	switch v := o.(type) {
	case *fyne.Container:
		for _, k := range v.Objects {
			walkObjects(k, visit)
		}
	case *widget.Entry, *widget.Label, *textLabel, *tipLabel:
		// their insides are text, not widgets of the dialog
	case fyne.Widget:
		for _, k := range test.WidgetRenderer(v).Objects() {
			walkObjects(k, visit)
		}
	}
}
