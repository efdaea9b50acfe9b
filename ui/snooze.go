package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
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
	sw := c.wf.Triage
	id := c.panel.itemID
	if id == "" || c.win.Canvas().Overlays().Top() != nil {
		return
	}
	name := id
	if c.panel.detail.ID == id && c.panel.detail.FileName != "" {
		name = c.panel.detail.FileName
	}
	name = shown(name)
	now := time.Now
	if c.opts.Now != nil {
		now = c.opts.Now
	}
	labels, days := snoozeDays(now())
	c.panel.team.working(id) // claims.go: a dialog on the item is starting work on it
	f := newDialogForm(c.win, c)
	reason := f.entry()
	reason.SetPlaceHolder("the customer sends a new scan on Tuesday")
	day := f.choice(labels, nil)
	day.SetSelectedIndex(0)
	ok := f.defaultButton("Snooze (Enter)", func() {
		text := strings.TrimSpace(reason.Text)
		if text == "" {
			return
		}
		f.hide()
		until := days[day.SelectedIndex()]
		c.background(func(ctx context.Context) func() {
			err := sw.Snooze(ctx, id, until, text)
			return func() {
				if err != nil {
					c.showError("Not snoozed", err)
					return
				}
				c.strip.say(fmt.Sprintf("Snoozed %s until %s: Ctrl+0 shows the snoozed items.", name, until.Format("Monday 2 Jan")))
				c.reload()
			}
		})
	})
	reason.OnChanged = func(s string) {
		if strings.TrimSpace(s) == "" {
			ok.Disable()
		} else {
			ok.Enable()
		}
	}
	reason.OnChanged("")
	form := widget.NewForm(widget.NewFormItem("Reason", reason), widget.NewFormItem("Remind me on", day))
	form.Items[0].HintText = "a snooze needs a reason; the audit trail keeps it"
	form.Items[1].HintText = "at 09:00; ← and → change the day"
	f.show("Snooze "+name, form, []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), ok}, 460)
}
