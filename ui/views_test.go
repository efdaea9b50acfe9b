package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// viewsFake adds views to the window tests' fake workflow.
type viewsFake struct {
	*fakeWorkflow
	saved []review.View
}

func (v *viewsFake) Views(context.Context) ([]review.View, error) {
	return append(review.BuiltinViews(), v.saved...), nil
}

func (v *viewsFake) SaveView(_ context.Context, name string, f review.ViewFilter) error {
	v.saved = append(v.saved, review.View{Name: name, Filter: f})
	return nil
}

func (f *fakeWorkflow) filtersSoFar() []store.ItemFilter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]store.ItemFilter(nil), f.filters...)
}

func (f *fakeWorkflow) lastFilter() store.ItemFilter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.filters[len(f.filters)-1]
}

func TestCtrlDigitAppliesTheViews(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	wf := &viewsFake{fakeWorkflow: twoBatches(), saved: []review.View{{Name: "Timeouts",
		Filter: review.ViewFilter{Status: policy.StatusError, Code: policy.CodeClassifierTimeout, SortBy: "score", Desc: true}}}}
	c := NewConsole(w, wf, Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()

	c.onView(1) // Ctrl+2: Overdue, oldest first, across all batches
	c.Settle()
	f := wf.lastFilter()
	if f.OlderThan != policy.DefaultAgeing().Overdue || f.SortBy != "since" || f.Desc || f.NeedsAction || f.BatchID != "" || c.view.name != review.ViewOverdue {
		t.Fatalf("overdue view: %+v (%q)", f, c.view.name)
	}
	c.onView(0) // Ctrl+1: needs my action, oldest first
	c.Settle()
	if f = wf.lastFilter(); !f.NeedsAction || f.OlderThan != 0 || f.SortBy != "since" || !c.items.needs.Checked {
		t.Fatalf("needs-action view: %+v", f)
	}
	calls := len(wf.filtersSoFar())
	c.onView(2) // Ctrl+3: the first saved view
	c.Settle()
	if n := len(wf.filtersSoFar()) - calls; n != 1 {
		t.Fatalf("applying a view read the cache %d times, want once with all its filters", n)
	}
	if f = wf.lastFilter(); f.Status != policy.StatusError || f.Code != policy.CodeClassifierTimeout || f.SortBy != "score" || !f.Desc || f.NeedsAction {
		t.Fatalf("saved view: %+v", f)
	}
	if got := c.currentView(); got != wf.saved[0].Filter {
		t.Fatalf("the view in force reads back as %+v", got)
	}
	c.apply(func() { c.applyView(snoozedView()) }) // Ctrl+0
	c.Settle()
	if f = wf.lastFilter(); !f.Snoozed || f.NeedsAction || f.Code != "" || !c.currentView().Snoozed {
		t.Fatalf("snoozed filter: %+v", f)
	}
	c.onView(8) // Ctrl+9 with no ninth view: nothing changes
	c.Settle()
	if c.view.name != "Snoozed" {
		t.Fatalf("view %q", c.view.name)
	}
}
