package ui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/review"
)

// Documents kept for offline review (review/kept.go): "Available offline"
// beside the heading above the items keeps, or stops keeping, the open
// batch's documents, off the UI goroutine, with its progress in the strip;
// Preferences says how much is kept and where its key is, in one line, and
// offers "Remove all kept documents".

// KeptDocuments is what keeping documents for offline review needs of
// the workflow (Workflow.Kept). A workflow without it (nil: one that keeps
// no documents, or a test's) shows neither the check nor the Preferences
// line.
type KeptDocuments interface {
	KeepBatch(ctx context.Context, batchID string, progress func(review.KeepProgress)) (review.KeepReport, error)
	UnkeepBatch(ctx context.Context, batchID string) (review.PurgeReport, error)
	BatchKept(ctx context.Context, batchID string) (review.KeptBatch, error)
	KeptDocumentsUse() (review.KeptUse, error)
	KeptDocumentRetention() time.Duration
	RemoveAllKeptDocuments(ctx context.Context) (review.PurgeReport, error)
}

// keptDocs is the workflow's kept documents, nil when it keeps none.
func (c *Console) keptDocs() KeptDocuments { return c.wf.Kept }

// offlineCheck is "Available offline" on the open batch.
type offlineCheck struct {
	c     *Console
	check *keyCheck // Space toggles it; the window's keys work on it (focus.go)
	// UI goroutine only:
	batch string // the batch it is about
	busy  bool   // a keep or an unkeep runs
}

func newOfflineCheck(c *Console) *offlineCheck {
	o := &offlineCheck{c: c}
	o.check = newKeyCheck(c, "Available offline", o.changed)
	o.check.Hide()
	return o
}

// set shows a state without acting on it.
func (o *offlineCheck) set(on bool) {
	o.check.Checked = on
	o.check.Refresh()
}

// show puts the check on the batch shown ("" : every batch, no check).
func (o *offlineCheck) show(batchID string) {
	k := o.c.keptDocs()
	if k == nil || batchID == "" {
		o.batch = ""
		o.check.Hide()
		return
	}
	if batchID != o.batch {
		o.batch = batchID
		o.set(false)
	}
	o.check.Show()
	if o.busy {
		return
	}
	o.c.background(func(ctx context.Context) func() {
		kb, err := k.BatchKept(ctx, batchID)
		return func() {
			if err == nil && o.batch == batchID && !o.busy {
				o.set(kb.Documents > 0)
			}
		}
	})
}

// changed keeps or stops keeping the batch's documents.
func (o *offlineCheck) changed(on bool) {
	k := o.c.keptDocs()
	batch := o.batch
	if k == nil || batch == "" || o.busy {
		return
	}
	o.busy = true
	o.check.Disable()
	say := func(s string) { o.c.onUI(false, func() { o.c.strip.say(s) }) }
	if on {
		o.c.strip.say("Keeping the documents of batch " + shown(batch) + " for offline review…")
	}
	o.c.background(func(ctx context.Context) func() {
		var msg string
		if on {
			rep, err := k.KeepBatch(ctx, batch, func(p review.KeepProgress) {
				say(fmt.Sprintf("Keeping the documents of batch %s for offline review: %d of %d items…", shown(batch), p.ItemsDone, p.Items))
			})
			switch {
			case err != nil:
				head, _ := explain(err)
				msg = fmt.Sprintf("Kept %s of batch %s, then stopped: %s", plural(rep.Kept, "document"), shown(batch), head)
			case rep.Failed > 0:
				msg = fmt.Sprintf("Kept %s of batch %s for offline review; %s not: the file is damaged.", plural(rep.Kept, "document"), shown(batch), plural(rep.Failed, "document"))
			default:
				msg = fmt.Sprintf("Kept %s of batch %s for offline review, encrypted, for %s at most.", plural(rep.Kept, "document"), shown(batch), keptFor(k.KeptDocumentRetention()))
			}
		} else {
			rep, err := k.UnkeepBatch(ctx, batch)
			if err != nil {
				head, _ := explain(err)
				msg = "The kept documents of batch " + shown(batch) + " were not removed: " + head
			} else {
				msg = fmt.Sprintf("Removed %s of batch %s.", plural(rep.Count(), "kept document"), shown(batch))
			}
		}
		return func() {
			o.busy = false
			o.check.Enable()
			o.c.strip.say(msg)
			o.show(o.batch)
		}
	})
}

// keptFor says a retention in days when it is whole days.
func keptFor(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return plural(int(d/(24*time.Hour)), "day")
	}
	return d.String()
}

// keptLine is Preferences' one line on kept documents: how many, their
// bytes, how long they stay and where their key is.
func keptLine(u review.KeptUse, retention time.Duration) string {
	return fmt.Sprintf("%s (%s) kept for offline review, each for %s at most; %s.",
		plural(u.Count, "document"), safefile.Size(u.Bytes), keptFor(retention), u.KeyPlace)
}

// keptPreferences is the "Kept documents" row of Preferences.
func (c *Console) keptPreferences(f *dialogForm) *widget.FormItem {
	k := c.keptDocs()
	if k == nil {
		return nil
	}
	line := wrapped("Reading what is kept…")
	var remove *formButton
	read := func() {
		c.background(func(context.Context) func() {
			u, err := k.KeptDocumentsUse()
			return func() {
				if err != nil {
					head, _ := explain(err)
					line.SetText("What is kept cannot be read: " + head)
					return
				}
				line.SetText(keptLine(u, k.KeptDocumentRetention()))
				if u.Count > 0 {
					remove.Enable()
				} else {
					remove.Disable()
				}
			}
		})
	}
	remove = f.button("Remove all kept documents", func() {
		remove.Disable()
		c.background(func(ctx context.Context) func() {
			rep, err := k.RemoveAllKeptDocuments(ctx)
			return func() {
				if err != nil {
					head, _ := explain(err)
					c.strip.say("The kept documents were not all removed: " + head)
				} else {
					c.strip.say(fmt.Sprintf("Removed %s (%s).", plural(rep.Count(), "kept document"), safefile.Size(rep.Bytes)))
				}
				c.items.showHeading()
				read()
			}
		})
	})
	remove.Disable()
	read()
	item := widget.NewFormItem("Kept documents", container.NewBorder(nil, nil, nil, remove, line))
	item.HintText = "encrypted on this computer; removed after the retention (REVIEWER_KEPT_DOCUMENT_RETENTION) or when their batch no longer needs you"
	return item
}
