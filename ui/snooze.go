package ui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// Snooze: "remind me on Tuesday". Ctrl+Shift+Z snoozes the
// selected item until a day the reviewer picks, with a reason; it leaves
// "needs my action" until then and comes back by itself. Ctrl+0 shows the
// snoozed items.

// snoozeDays are the days offered: tomorrow and the six after, at 09:00
// local time, named by weekday ("Tuesday 1 Dec").
func snoozeDays(now time.Time) ([]string, []time.Time) {
	var labels []string
	var days []time.Time
	y, m, d := now.Local().Date()
	for i := 1; i <= 7; i++ {
		day := time.Date(y, m, d+i, 9, 0, 0, 0, time.Local)
		labels = append(labels, day.Format("Monday 2 Jan"))
		days = append(days, day)
	}
	return labels, days
}

func (c *Console) onSnooze() {
	sw := c.wf
	id := c.panel.itemID
	if id == "" || c.win.Canvas().Overlays().Top() != nil {
		return
	}
	now := time.Now
	if c.opts.Now != nil {
		now = c.opts.Now
	}
	labels, days := snoozeDays(now())
	day := widget.NewSelect(labels, nil)
	day.SetSelectedIndex(0)
	reason := widget.NewEntry()
	reason.SetPlaceHolder("the customer sends a new scan on Tuesday")
	reason.Validator = func(s string) error {
		if len([]rune(s)) == 0 {
			return fmt.Errorf("a snooze needs a reason")
		}
		return nil
	}
	dialog.ShowForm("Snooze "+id, "Snooze", "Cancel", []*widget.FormItem{
		widget.NewFormItem("Remind me on", day), widget.NewFormItem("Reason", reason)}, func(ok bool) {
		if !ok {
			return
		}
		until, why := days[day.SelectedIndex()], reason.Text
		c.background(func(ctx context.Context) func() {
			err := sw.Snooze(ctx, id, until, why)
			return func() {
				if err != nil {
					c.showError("Not snoozed", err)
					return
				}
				c.reload()
			}
		})
	}, c.win)
}
