package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// statusStrip is the connection strip at the top of the window: a widget
// that draws what it is given (the connection, the reviewer, a line of
// news) and hands its buttons' presses to the handlers it was built with.
// It reads nothing itself; syncing.go feeds it.
type statusStrip struct {
	widget.BaseWidget

	conn     *textLabel
	synced   *textLabel
	demo     *textLabel
	reviewer *tipLabel
	// whoFrom says where the reviewer's name comes from (console.go).
	whoFrom  func() string
	syncBtn  *tipButton
	cancel   *tipButton
	panelBtn *tipButton
	progress *widget.ProgressBarInfinite
	pages    *textLabel
	news     *widget.Hyperlink // "5 new items need you: show them" (newitems.go)
	refused  *widget.Hyperlink // "show the 6 refused" after a flush (outbox.go)
	refIDs   []string
	newIDs   []string
	row2     *fyne.Container
	content  fyne.CanvasObject
	// nextSync says when the next background sync is due (background.go).
	nextSync func(review.Connectivity) string
}

// stripHandlers are what the strip's buttons and link do.
type stripHandlers struct {
	sync, cancelSync, preferences, shortcuts, export, togglePanel, news func()
}

func newKeyLabel(text string) *textLabel {
	l := newLabel(text)
	l.TextStyle = fyne.TextStyle{Bold: true}
	return l
}

// newStatusStrip builds the strip; demo shows the demo-data mark.
func newStatusStrip(demo bool, h stripHandlers) *statusStrip {
	s := &statusStrip{
		conn:     newLabel("● Opening the cache…"),
		synced:   newLabel(""),
		demo:     newLabel("DEMO DATA"),
		reviewer: &tipLabel{whole: true},
		progress: widget.NewProgressBarInfinite(),
		pages:    newLabel(""),
	}
	s.reviewer.ExtendBaseWidget(s.reviewer)
	s.pages.Truncation = fyne.TextTruncateEllipsis
	s.news = widget.NewHyperlink("", nil)
	s.news.OnTapped = h.news
	s.news.Hide()
	s.refused = widget.NewHyperlink("", nil)
	s.refused.Hide()
	s.synced.Truncation = fyne.TextTruncateEllipsis
	s.conn.Truncation = fyne.TextTruncateEllipsis
	s.demo.Importance = widget.WarningImportance
	s.demo.TextStyle.Bold = true
	if !demo {
		s.demo.Hide()
	}
	s.syncBtn = newTipButton("Sync", theme.ViewRefreshIcon(), "Pull changed batches now, then send what waits in the outbox (key: F5)", h.sync)
	s.cancel = newTipButton("", theme.CancelIcon(), "Cancel the sync", h.cancelSync)
	s.progress.Stop()
	s.progress.Hide()
	s.cancel.Hide()
	prefs := newTipButton("", theme.SettingsIcon(), "Preferences", h.preferences)
	help := newTipButton("", theme.HelpIcon(), "Keyboard shortcuts (key: ?)", h.shortcuts)
	export := newTipButton("Export", theme.DocumentSaveIcon(), "Export the batch shown as CSV (key: Ctrl+E)", h.export)
	s.panelBtn = newTipButton("Hide panel", theme.ViewFullScreenIcon(), "Hide or show the item panel (key: p)", h.togglePanel)
	// Two rows: the connection and the sync on the first, the rest on the
	// second, so that an 800-pixel window holds it all.
	row1 := container.NewBorder(nil, nil, container.NewHBox(s.syncBtn, s.cancel), container.NewHBox(s.demo, s.reviewer),
		container.NewGridWithColumns(2, s.conn, container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(80, 8), s.progress), s.synced)))
	s.row2 = container.NewBorder(nil, nil, container.NewHBox(s.news, s.refused), container.NewHBox(export, s.panelBtn, help, prefs), s.pages)
	s.content = container.NewVBox(row1, s.row2, widget.NewSeparator())
	s.ExtendBaseWidget(s)
	return s
}

// CreateRenderer draws the strip's rows.
func (s *statusStrip) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(s.content)
}

// show draws the connection, the last sync and the reviewer; now dates a
// rate-limit wait. It is called every few seconds with, most of the time,
// the same words: a label is set only when its words or its colour
// changed, as Fyne redraws the whole window for any label refreshed, same
// words or not (docs/performance.md, latency7: two frames every 5 s of an
// idle window).
func (s *statusStrip) show(st review.Connectivity, reviewer string, now time.Time) {
	from := "the system user"
	if s.whoFrom != nil {
		from = s.whoFrom()
	}
	s.reviewer.hint = "Your name in the audit trail, from " + from + ". To review under another name, start the console with --reviewer NAME or set REVIEWER_NAME."
	if who := shown(reviewer) + " (from " + from + ")"; drawn(who) != s.reviewer.Text {
		s.reviewer.SetText(who)
	}
	var parts []string
	if !st.LastSync.IsZero() {
		parts = append(parts, "synced "+clock(st.LastSync))
	}
	conn, look := connWords(st, now)
	setLook(s.conn, conn, look)
	if st.RateLimitedUntil.After(now) {
		parts = append(parts, "rate limited until "+clock(st.RateLimitedUntil))
	}
	parts = append(parts, outboxWords(st.Outbox, now))
	if s.nextSync != nil {
		if w := s.nextSync(st); w != "" {
			parts = append(parts, w)
		}
	}
	setLook(s.synced, strings.Join(parts, " · "), s.synced.Importance)
}

// connWords is the strip's connection, in words and in colour.
func connWords(st review.Connectivity, now time.Time) (string, widget.Importance) {
	switch st.Conn.State {
	case review.ConnOnline:
		return "● Online", widget.SuccessImportance
	case review.ConnOffline:
		switch {
		case st.Empty:
			return "● Offline: the screening API cannot be reached, and nothing is cached yet", widget.WarningImportance
		case st.LastSync.IsZero():
			return "● Offline: showing what an unfinished first sync cached", widget.WarningImportance
		default:
			return "● Offline: showing cached data from " + dayClock(st.LastSync), widget.WarningImportance
		}
	case review.ConnCircuitOpen:
		// A retry time that passed (or none) is no time to show: the next
		// call goes through now.
		when := "trying again now"
		if st.Conn.RetryAt.After(now) {
			when = "trying again at " + clock(st.Conn.RetryAt)
		}
		return "● The screening API stopped answering; " + when, widget.DangerImportance
	}
	if st.Empty {
		return "● Not synced yet", widget.MediumImportance
	}
	return "● Showing cached data", widget.MediumImportance
}

// outboxWords is what waits in the outbox, shown at all times: "3 queued ·
// 1 unknown", "outbox empty".
func outboxWords(o store.OutboxCount, now time.Time) string {
	if o.Empty() {
		return "outbox empty"
	}
	var parts []string
	if o.Queued > 0 {
		q := fmt.Sprintf("%d queued", o.Queued)
		if o.Waiting > 0 && o.WaitUntil.After(now) {
			q += " (rate limited until " + clock(o.WaitUntil) + ")"
		}
		parts = append(parts, q)
	}
	if o.Sending > 0 {
		parts = append(parts, fmt.Sprintf("%d sending", o.Sending))
	}
	if o.Unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d unknown", o.Unknown))
	}
	if o.Notes > 0 {
		parts = append(parts, plural(o.Notes, "note")+" to send")
	}
	return strings.Join(parts, " · ")
}

// say shows a line of what just happened (a sync, a flush, an export).
func (s *statusStrip) say(text string) { s.pages.SetText(text) }

// notice says a line that is also a notification (notify.go), for systems
// that show none.
func (s *statusStrip) notice(line string) { s.say(fullStop(line)) }

// running shows a sync under way, with its Cancel, or none.
func (s *statusStrip) running(on bool) {
	if on {
		s.syncBtn.Disable()
		s.cancel.Show()
		s.progress.Show()
		s.progress.Start()
		s.pages.SetText("syncing…")
		return
	}
	s.syncBtn.Enable()
	s.cancel.Hide()
	s.progress.Stop()
	s.progress.Hide()
}

// panelShown names the panel button after what it will do.
func (s *statusStrip) panelShown(shown bool) {
	s.panelBtn.SetText(map[bool]string{true: "Hide panel", false: "Show panel"}[shown])
}

// An action's result is said in the strip, where she looks once the panel
// has moved on to the next item (auto-advance): the item's file, what
// became of the action, its new verdict, and b to go back to it. While it
// waits, the strip says so at once (an offline request takes seconds to
// find the service gone).

// lastActed is the item of the last result said, for b.
type lastActed struct{ id, batchID string }

// sayActionStart says at once that an action is under way.
func (c *Console) sayActionStart(file, label string) {
	c.strip.say(shown(file) + ": " + strings.ToLower(label[:1]) + label[1:] + "… (Esc stops waiting)")
}

// sayActionResult says what became of the reviewer's action on an item:
// "selfie.jpg: re-submission done: 9 · low (forward) · b goes back to it".
// The verdict and its band are read from the cache (the bands are
// configuration).
func (c *Console) sayActionResult(kind policy.ActionKind, id, file, batchID string, res review.Result, err error) {
	c.back = lastActed{id: id, batchID: batchID}
	line := shown(file) + ": " + actionResultWords(kind, res, err)
	const key = " · b goes back to it"
	c.strip.say(line + key)
	if err != nil || res.Action.State != policy.ActionDone {
		return
	}
	wf := c.wf
	c.background(func(ctx context.Context) func() {
		d, derr := wf.Listing.Item(ctx, id)
		if derr != nil || !d.Checked() {
			return nil
		}
		return func() {
			if c.strip.pages.Text != line+key {
				return // something else was said meanwhile
			}
			verdict := scoreText(d.Item)
			if b, _ := bandLook(band(d.ItemView)); b != "" {
				verdict += " · " + b
			}
			verdict += " (" + recommendationText(d.Item) + ")"
			c.strip.say(line + ": " + verdict + key)
		}
	})
}

// actionResultWords is what became of an action, in words.
func actionResultWords(kind policy.ActionKind, res review.Result, err error) string {
	what := policy.ActionWord(kind)
	if err != nil {
		return what + " not queued: " + sentence(err)
	}
	switch res.Action.State {
	case policy.ActionQueued:
		return what + " queued: goes out when the service answers"
	case policy.ActionUnknown:
		return what + ": outcome unknown, checked later with the same key"
	case policy.ActionFailed:
		why := ""
		if code := res.Action.LastErrorCode; code != "" {
			why = " (" + shown(string(code)) + ")"
		}
		return what + " refused by the service" + why
	case policy.ActionDone:
		return what + " done"
	}
	return what + " " + policy.StateWord(res.Action.State)
}

// goBack opens the item of the last result said (b).
func (c *Console) goBack() {
	if c.back.id == "" || c.back.id == c.panel.itemID {
		return
	}
	c.openItem(c.back.id, c.back.batchID) // claims.go
	c.focusItems()
}
