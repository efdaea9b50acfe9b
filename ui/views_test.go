package ui

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

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

func (v *viewsFake) ItemFilter(f review.ViewFilter) store.ItemFilter {
	out := store.ItemFilter{BatchID: f.BatchID, Status: f.Status, Code: f.Code, NeedsAction: f.NeedsAction, SortBy: f.SortBy, Desc: f.Desc}
	out.Snoozed = f.Snoozed
	if f.Overdue {
		out.OlderThan = policy.DefaultAgeing().Overdue
	}
	return out
}

func (v *viewsFake) lastFilter() store.ItemFilter {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.filters[len(v.filters)-1]
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
	c.onView(2) // Ctrl+3: the first saved view
	c.Settle()
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

func TestSnoozeOffersTheNextSevenDaysByName(t *testing.T) {
	now := time.Date(2026, 11, 30, 15, 0, 0, 0, time.Local) // a Monday
	labels, days := snoozeDays(now)
	if len(labels) != 7 || labels[0] != "Tuesday 1 Dec" || labels[6] != "Monday 7 Dec" {
		t.Fatalf("%q", labels)
	}
	if days[0].Hour() != 9 || !days[0].After(now) {
		t.Fatalf("%v", days[0])
	}
}

func TestNewItemsThatNeedYou(t *testing.T) {
	before := map[string]bool{"a": true, "b": true}
	after := map[string]bool{"b": true, "c": true, "d": true}
	if n := newlyNeeding(before, after); n != 2 || newItemsText(n) != " 2 new items need you (Ctrl+1 shows them)." {
		t.Fatalf("%d %q", n, newItemsText(n))
	}
	if newlyNeeding(nil, after) != 0 || newItemsText(0) != "" || newItemsText(1) != " 1 new item needs you (Ctrl+1 shows it)." {
		t.Fatal("a failed read before the sync claimed news")
	}
}

// agesFake adds the oldest wait per batch to the window tests' fake.
type agesFake struct{ *fakeWorkflow }

func (agesFake) OldestWaiting(context.Context, []string) (map[string]review.Aged, error) {
	return map[string]review.Aged{
		"bat_48": {AgeLevel: policy.AgeOverdue, Age: "6 d · overdue"},
		"bat_43": {AgeLevel: policy.AgeFresh, Age: "3 h"},
	}, nil
}

func TestTheBatchListShowsTheOldestOverdueAge(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, agesFake{twoBatches()}, Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	second := func(i int) string {
		row := c.batches.list.CreateItem()
		c.batches.list.UpdateItem(i, row)
		l := row.(*fyne.Container).Objects[2].(*widget.Label)
		if !l.Visible() {
			return ""
		}
		return l.Text
	}
	if got := second(0); got != "oldest 6 d · overdue" {
		t.Fatalf("overdue batch: %q", got)
	}
	if got := second(1); got != "" {
		t.Fatalf("a fresh batch shows an age: %q", got)
	}
}
