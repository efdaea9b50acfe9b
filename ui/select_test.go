package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// selFake records the selection a bulk plan is asked for.
type selFake struct {
	*fakeWorkflow
	mu  sync.Mutex
	got []review.Selection
}

func (f *selFake) PlanResubmit(_ context.Context, sel review.Selection) (review.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, sel)
	return review.Plan{Kind: policy.ActionResubmit}, nil
}

func TestMultiSelectDrivesTheBulkPlan(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	wf := &fakeWorkflow{batches: []store.BatchSummary{{ID: "bat_48", CustomerRef: "CUST-7048", Items: 5}}}
	for i := range 5 {
		wf.items = append(wf.items, inBatch(errorItem(fmt.Sprintf("i%d", i), "INTERNAL_ERROR"), "bat_48", "CUST-7048"))
	}
	f := &selFake{fakeWorkflow: wf}
	c := NewConsole(w, workflowOf(f), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	if len(c.items.rows) != 5 {
		t.Fatalf("%d rows", len(c.items.rows))
	}
	selected := func() string { return strings.Join(c.multi.list(), ",") }
	c.apply(func() {
		c.onRowClick(1, 0)
		c.onRowClick(3, fyne.KeyModifierShift)
	})
	if got := selected(); got != "i1,i2,i3" {
		t.Fatalf("shift-click: %s", got)
	}
	c.apply(func() { c.onRowClick(2, fyne.KeyModifierControl) })
	if got := selected(); got != "i1,i3" || !strings.HasPrefix(c.cell(1, 0).Text, "● ") || strings.HasPrefix(c.cell(2, 0).Text, "● ") {
		t.Fatalf("ctrl-click: %s, cells %q %q", got, c.cell(1, 0).Text, c.cell(2, 0).Text)
	}
	c.apply(func() { c.onRowClick(0, 0) })
	if got := selected(); got != "" {
		t.Fatalf("a plain click kept %s", got)
	}
	c.apply(func() { c.items.row = 0; c.onExtend(1); c.onExtend(1) })
	if got := selected(); got != "i0,i1,i2" || c.items.row != 2 {
		t.Fatalf("shift+down twice: %s (row %d)", got, c.items.row)
	}
	c.apply(c.onSelectAll)
	if got := selected(); got != "i0,i1,i2,i3,i4" || !strings.Contains(c.items.count.Text, "5 selected") {
		t.Fatalf("select all: %s, %q", got, c.items.count.Text)
	}
	c.apply(func() { c.onBulk(policy.ActionResubmit) })
	c.Settle()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 1 || strings.Join(f.got[0].IDs, ",") != "i0,i1,i2,i3,i4" {
		t.Fatalf("the plan was asked for %+v", f.got)
	}
}

// With nothing picked, Ctrl+Shift+R plans every item in view: the row the
// cursor is on, moved there by a key or by the program while Ctrl and
// Shift were held, is not a selection. A Ctrl-click still is.
func TestCtrlShiftRWithNothingPickedPlansEveryItemInView(t *testing.T) {
	wf := &fakeWorkflow{batches: []store.BatchSummary{{ID: "bat_48", CustomerRef: "CUST-7048", Items: 3}}}
	for i := range 3 {
		wf.items = append(wf.items, inBatch(errorItem(fmt.Sprintf("i%d", i), "CLASSIFIER_TIMEOUT"), "bat_48", "CUST-7048"))
	}
	f := &selFake{fakeWorkflow: wf}
	c := newTestConsole(t, wf)
	c.wf = workflowOf(f)
	c.keyMods = func() fyne.KeyModifier { return fyne.KeyModifierControl | fyne.KeyModifierShift }
	c.apply(c.focusItems)
	c.apply(func() { c.items.move(1) }) // the cursor moves while the keys are down
	c.apply(c.reload)                   // a reload keeps the row: the program selects it
	c.Settle()
	if got := c.multi.list(); len(got) != 0 {
		t.Fatalf("the cursor row became a selection: %v", got)
	}
	pressShortcut(c, ctrlShift(fyne.KeyR))
	f.mu.Lock()
	if len(f.got) != 1 || len(f.got[0].IDs) != 0 {
		f.mu.Unlock()
		t.Fatalf("the plan was asked for %+v, not every item in view", f.got)
	}
	f.mu.Unlock()
	c.apply(func() { c.win.Canvas().Overlays().Top().Hide() })
	c.keyMods = func() fyne.KeyModifier { return fyne.KeyModifierControl }
	c.apply(func() { test.TapAt(c.items.table, fyne.NewPos(40, 60)) })
	if got := c.multi.list(); len(got) != 1 {
		t.Fatalf("a Ctrl-click selected %v", got)
	}
}
