package ui

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/store"
)

// batchList is the list of batches on the left.
type batchList struct {
	c        *Console
	search   *widget.Entry
	all      *widget.Check
	list     *widget.List
	rows     []store.BatchSummary
	selected string
	content  fyne.CanvasObject
}

func newBatchList(c *Console) *batchList {
	b := &batchList{c: c, search: widget.NewEntry()}
	b.search.SetPlaceHolder("Search batches (Ctrl+F)")
	b.search.OnChanged = func(string) { b.refresh() }
	b.all = widget.NewCheck("All batches", func(bool) { c.items.refresh() })
	b.list = widget.NewList(func() int { return len(b.rows) }, func() fyne.CanvasObject {
		title := widget.NewLabel("CUST-0000  00:00")
		title.TextStyle.Bold = true
		counts := widget.NewLabel("0 scored · 0 errors")
		return container.NewVBox(title, counts)
	}, func(id widget.ListItemID, o fyne.CanvasObject) {
		if id >= len(b.rows) {
			return
		}
		r := b.rows[id]
		box := o.(*fyne.Container)
		box.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%s  %s", r.CustomerRef, dayClock(r.CreatedAt)))
		box.Objects[1].(*widget.Label).SetText(countsText(r))
	})
	b.list.OnSelected = b.onSelected
	b.content = container.NewBorder(container.NewVBox(b.search, b.all), nil, nil, nil, b.list)
	return b
}

func countsText(r store.BatchSummary) string {
	parts := []string{fmt.Sprintf("%d ✓", r.Scored), fmt.Sprintf("%d ✗", r.Errors)}
	if r.Retryable > 0 {
		parts = append(parts, fmt.Sprintf("%d ↻", r.Retryable))
	}
	if r.AwaitingFile > 0 {
		parts = append(parts, fmt.Sprintf("%d awaiting", r.AwaitingFile))
	}
	if r.OpenActions > 0 {
		parts = append(parts, fmt.Sprintf("%d open", r.OpenActions))
	}
	return strings.Join(parts, "  ")
}

func (b *batchList) refresh() {
	search := b.search.Text
	b.c.background(func(ctx context.Context) func() {
		rows, err := b.c.wf.Batches(ctx, search, batchLimit)
		return func() {
			if err != nil {
				b.c.strip.pages.SetText("cache: " + sentence(err))
				return
			}
			b.rows = rows
			b.list.Refresh()
			if b.selected == "" && len(rows) > 0 {
				b.list.Select(0)
			}
		}
	})
}

func (b *batchList) onSelected(id widget.ListItemID) {
	if id < 0 || id >= len(b.rows) {
		return
	}
	b.selected = b.rows[id].ID
	b.all.SetChecked(false)
	b.c.items.refresh()
}

// batchID is the batch the items are shown for ("" for all).
func (b *batchList) batchID() string {
	if b.all.Checked {
		return ""
	}
	return b.selected
}
