package ui

import (
	"context"
	"strings"
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
	c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
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

// A view saved in a batch comes back in that batch, from "All batches"
// too, and after a restart; the heading names the view in force, and
// stops naming it once a filter is changed by hand.
func TestASavedViewKeepsItsBatchBeforeAndAfterARestart(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	open := func() (*Console, *viewsFake) {
		w := test.NewTempWindow(t, nil)
		w.Resize(fyne.NewSize(1280, 800))
		wf := &viewsFake{fakeWorkflow: twoBatches(), saved: []review.View{{Name: "Old batch",
			Filter: review.ViewFilter{BatchID: "bat_43", SortBy: "score"}}}}
		c := NewConsole(w, workflowOf(wf), Options{Prefs: a.Preferences()})
		c.apply(c.reload)
		c.Settle()
		return c, wf
	}
	c, wf := open()
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	c.onView(len(review.BuiltinViews())) // the first saved view
	c.Settle()
	if f := wf.lastFilter(); f.BatchID != "bat_43" || c.batches.batchID() != "bat_43" {
		t.Fatalf("the view came back in batch %q (filter %+v)", c.batches.batchID(), f)
	}
	if h := c.items.heading.Text; !strings.Contains(h, "CUST-7043") || !strings.Contains(h, "view: Old batch") {
		t.Fatalf("heading %q", h)
	}
	c.apply(func() { c.items.needs.SetChecked(true) })
	c.Settle()
	if h := c.items.heading.Text; strings.Contains(h, "view:") {
		t.Fatalf("after a filter change the heading still says %q", h)
	}
	c.apply(func() { c.items.needs.SetChecked(false) })
	c.onView(len(review.BuiltinViews()))
	c.Settle()
	c.apply(c.Close)

	c2, wf2 := open() // a restart
	if f := wf2.lastFilter(); f.BatchID != "bat_43" || c2.batches.batchID() != "bat_43" {
		t.Fatalf("after a restart: batch %q (filter %+v)", c2.batches.batchID(), f)
	}
	if h := c2.items.heading.Text; !strings.Contains(h, "CUST-7043") || !strings.Contains(h, "view: Old batch") {
		t.Fatalf("after a restart the heading says %q", h)
	}
}
