package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Saved views: Ctrl+1…9 apply the built-in views ("Needs my
// action, oldest first", "Overdue") and then the saved ones, in order;
// Ctrl+Shift+V saves the filters and sort in force under a name.

// viewState is the view in force: its name and the filters the table's own
// widgets do not show (snoozed, overdue).
type viewState struct {
	name   string
	extra  store.TriageFilter
	filter review.ViewFilter
	// scope: the batch and filters the view set, once set (newitems.go:
	// picking others ends a list of ids).
	scope *scope
}

// onView applies the n-th view (0-based).
func (c *Console) onView(n int) {
	vw := c.wf.Triage
	c.background(func(ctx context.Context) func() {
		views, err := vw.Views(ctx)
		if err != nil || n >= len(views) {
			return nil
		}
		v := views[n]
		f := vw.ItemFilter(v.Filter)
		return func() { c.applyView(v, f) }
	})
}

// applyView sets the table's filters and sort to a view's.
func (c *Console) applyView(v review.View, f store.ItemFilter) {
	c.view = viewState{name: v.Name, extra: f.TriageFilter, filter: v.Filter}
	t := c.items
	// Each filter widget refreshes the table when it changes; a view sets
	// several, so they are held and the table reads the cache once, with
	// all of them. (Several reads in flight finished in any order.)
	t.hold = true
	t.sortBy, t.desc = f.SortBy, f.Desc
	status := 0
	for i, s := range statusFilter {
		if s.status == f.Status {
			status = i
		}
	}
	t.status.SetSelectedIndex(status)
	if f.Code == "" {
		t.code.SetSelectedIndex(0)
	} else {
		t.code.SetSelected(string(f.Code))
	}
	t.needs.SetChecked(f.NeedsAction)
	switch {
	case f.BatchID == "" && c.batches.batchID() != "":
		c.batches.all.SetChecked(true)
	case f.BatchID != "" && c.batches.batchID() != f.BatchID:
		c.batches.openID(f.BatchID) // a view saved in a batch keeps it
	}
	t.hold = false
	sc := scopeOf(t.filter())
	c.view.scope = &sc
	t.refresh()
	c.keepWindowStateSoon() // windowstate.go: a restart reopens in the view
}

// openID opens a batch by its id, without reading the items (the caller
// does): a view's batch, which the list may not show (a search, the
// newest 500 only).
func (b *batchList) openID(id string) {
	b.selected = id
	if i := b.index(id); i >= 0 {
		b.opened = b.rows[i]
	}
	if b.all.Checked {
		b.all.Checked = false // without its callback: the caller reads once
		b.all.Refresh()
	}
	b.highlight()
	b.showNote()
}

// viewInForce is the name of the view the items are shown by, or "" when
// none is: a filter, the batch or the sort changed by hand since the view
// was applied ends it, and the heading stops naming it.
func (c *Console) viewInForce() string {
	if c.view.name == "" {
		return ""
	}
	cur, v := c.currentView(), c.view.filter
	cur.Retryable, cur.Search = v.Retryable, v.Search // not set by the table's widgets
	if cur != v {
		return ""
	}
	return c.view.name
}

// currentView is the filters and sort in force, as a view keeps them.
func (c *Console) currentView() review.ViewFilter {
	f := c.items.filter()
	return review.ViewFilter{BatchID: f.BatchID, Status: f.Status, Code: f.Code, NeedsAction: f.NeedsAction,
		Snoozed: c.view.filter.Snoozed, Overdue: c.view.filter.Overdue, SortBy: f.SortBy, Desc: f.Desc,
		AwaitingConfirmation: c.view.filter.AwaitingConfirmation}
}

// onSaveView asks for a name and keeps the filters and sort in force;
// Enter saves, and the strip says which Ctrl+N applies the view.
func (c *Console) onSaveView() {
	vw := c.wf.Triage
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	cur := c.currentView()
	f := newDialogForm(c.win, c)
	name := f.entry()
	name.SetPlaceHolder("Timeouts today")
	save := f.defaultButton("Save (Enter)", func() {
		n := strings.TrimSpace(name.Text)
		if n == "" {
			return
		}
		f.hide()
		c.background(func(ctx context.Context) func() {
			err := vw.SaveView(ctx, n, cur)
			if err != nil {
				return func() { c.showError("View not saved", err) }
			}
			views, verr := vw.Views(ctx)
			return func() {
				c.view.name, c.view.filter = n, cur
				c.items.showHeading()
				c.keepWindowStateSoon() // windowstate.go: the name after a restart
				c.strip.say(savedViewText(n, views, verr))
			}
		})
	})
	name.OnChanged = func(s string) {
		if strings.TrimSpace(s) == "" {
			save.Disable()
		} else {
			save.Enable()
		}
	}
	name.OnChanged("")
	form := widget.NewForm(widget.NewFormItem("Name", name))
	form.Items[0].HintText = "keeps the filters and the sort in force; Ctrl+1…9 apply the views in order"
	f.show("Save this view", form, []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), save}, 460)
}

// savedViewText says which Ctrl+N applies a view just saved: the key of
// its place among the views (the last of that name).
func savedViewText(name string, views []review.View, err error) string {
	at := -1
	for i, v := range views {
		if v.Name == name {
			at = i
		}
	}
	switch {
	case err != nil || at < 0:
		return fmt.Sprintf("Saved the view “%s”.", name)
	case at < 9:
		return fmt.Sprintf("Saved the view “%s”: Ctrl+%d applies it.", name, at+1)
	}
	return fmt.Sprintf("Saved the view “%s” as view %d: only the first nine have a Ctrl key.", name, at+1)
}

// snoozedView is the snoozed items' own filter, oldest first, across all
// batches.
func snoozedView() (review.View, store.ItemFilter) {
	v := review.View{Name: "Snoozed", Filter: review.ViewFilter{Snoozed: true, SortBy: "since"}}
	f := store.ItemFilter{SortBy: "since"}
	f.Snoozed = true
	return v, f
}

// refreshViews reads the saved views off the UI goroutine, for the
// shortcut sheet, which lists them by their Ctrl+N.
func (c *Console) refreshViews() {
	vw := c.wf.Triage
	c.background(func(ctx context.Context) func() {
		views, err := vw.Views(ctx)
		if err != nil {
			return nil // the last list read stays
		}
		return func() { c.views = views }
	})
}
