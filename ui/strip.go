package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// statusStrip is the connection strip at the top of the window.
type statusStrip struct {
	c        *Console
	conn     *widget.Label
	synced   *widget.Label
	demo     *widget.Label
	reviewer *widget.Label
	syncBtn  *tipButton
	cancel   *tipButton
	panelBtn *tipButton
	progress *widget.ProgressBarInfinite
	pages    *widget.Label
	news     *widget.Hyperlink // "5 new items need you: show them" (newitems.go)
	newIDs   []string
	row2     *fyne.Container
	content  fyne.CanvasObject
	status   review.Connectivity
}

func newKeyLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.TextStyle = fyne.TextStyle{Bold: true}
	return l
}

func newStatusStrip(c *Console) *statusStrip {
	s := &statusStrip{c: c,
		conn:     widget.NewLabel("● Opening the cache…"),
		synced:   widget.NewLabel(""),
		demo:     widget.NewLabel("DEMO DATA"),
		reviewer: widget.NewLabel(""),
		progress: widget.NewProgressBarInfinite(),
		pages:    widget.NewLabel(""),
	}
	s.pages.Truncation = fyne.TextTruncateEllipsis
	s.news = widget.NewHyperlink("", nil)
	s.news.OnTapped = c.onNews
	s.news.Hide()
	s.synced.Truncation = fyne.TextTruncateEllipsis
	s.conn.Truncation = fyne.TextTruncateEllipsis
	s.demo.Importance = widget.WarningImportance
	s.demo.TextStyle.Bold = true
	if !c.opts.Demo {
		s.demo.Hide()
	}
	s.syncBtn = newTipButton("Sync", theme.ViewRefreshIcon(), "Pull changed batches now, then send what waits in the outbox (key: F5)", c.onSync)
	s.cancel = newTipButton("", theme.CancelIcon(), "Cancel the sync", c.onCancelSync)
	s.progress.Stop()
	s.progress.Hide()
	s.cancel.Hide()
	prefs := newTipButton("", theme.SettingsIcon(), "Preferences", c.onPreferences)
	help := newTipButton("", theme.HelpIcon(), "Keyboard shortcuts (key: ?)", c.showShortcuts)
	export := newTipButton("Export", theme.DocumentSaveIcon(), "Export the batch shown as CSV (key: Ctrl+E)", c.onExport)
	s.panelBtn = newTipButton("Hide panel", theme.ViewFullScreenIcon(), "Hide or show the item panel (key: p)", c.togglePanel)
	// Two rows: the connection and the sync on the first, the rest on the
	// second, so that an 800-pixel window holds it all.
	row1 := container.NewBorder(nil, nil, container.NewHBox(s.syncBtn, s.cancel), container.NewHBox(s.demo, s.reviewer),
		container.NewGridWithColumns(2, s.conn, container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(80, 8), s.progress), s.synced)))
	s.row2 = container.NewBorder(nil, nil, s.news, container.NewHBox(export, s.panelBtn, help, prefs), s.pages)
	s.content = container.NewVBox(row1, s.row2, widget.NewSeparator())
	return s
}

func (s *statusStrip) refresh() {
	s.c.background(func(ctx context.Context) func() {
		st, err := s.c.wf.Connectivity(ctx)
		return func() {
			if err == nil {
				s.status = st
			}
			s.show()
		}
	})
}

// show draws the strip from the last status.
func (s *statusStrip) show() {
	st := s.status
	s.reviewer.SetText("reviewer: " + s.c.wf.Reviewer())
	s.synced.SetText("")
	if !st.LastSync.IsZero() {
		s.synced.SetText("synced " + clock(st.LastSync))
	}
	switch st.Conn.State {
	case review.ConnOnline:
		s.conn.Importance = widget.SuccessImportance
		s.conn.SetText("● Online")
	case review.ConnOffline:
		s.conn.Importance = widget.WarningImportance
		from := "never synced"
		if !st.LastSync.IsZero() {
			from = "from " + dayClock(st.LastSync)
		}
		s.conn.SetText("● Offline: showing cached data " + from)
	case review.ConnCircuitOpen:
		s.conn.Importance = widget.DangerImportance
		s.conn.SetText("● The screening API stopped answering; trying again at " + clock(st.Conn.RetryAt))
	default:
		s.conn.Importance = widget.MediumImportance
		s.conn.SetText("● Showing cached data")
	}
	if st.RateLimitedUntil.After(s.c.opts.Now()) {
		s.synced.SetText(s.synced.Text + " · rate limited until " + clock(st.RateLimitedUntil))
	}
	s.conn.Refresh()
}

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

// flushSummary says what a flush of the outbox did, in words.
func flushSummary(fr review.FlushResult) string {
	n := len(fr.Results)
	msg := "Sent " + plural(n, "action") + " from the outbox"
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{fr.Done, "done"}, {fr.Failed, "refused"}, {fr.Unknown, "still unknown"}, {fr.Queued, "still queued"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, ", ")
	}
	return msg + "."
}

// onSync pulls changed batches, then sends what waits in the outbox. The
// UI goroutine only flips widgets; the work runs in the background.
func (c *Console) onSync() {
	c.mu.Lock()
	if c.syncCancel != nil {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.syncCancel = cancel
	c.mu.Unlock()
	c.strip.running(true)
	c.background(func(context.Context) func() {
		p, err := c.wf.Sync(ctx, func(p review.SyncProgress) {
			fyne.Do(func() {
				c.apply(func() {
					c.strip.pages.SetText(fmt.Sprintf("syncing: %s, %s", plural(p.Pages, "page"), plural(p.Items, "item")))
				})
			})
		})
		var fr review.FlushResult
		if err == nil {
			fr, _ = c.wf.Flush(ctx)
		}
		return func() {
			c.mu.Lock()
			c.syncCancel = nil
			c.mu.Unlock()
			cancel()
			c.strip.running(false)
			switch {
			case err == nil:
				msg := fmt.Sprintf("Synced: %s, %s, %d changed.", plural(p.Pages, "page"), plural(p.Items, "item"), p.Changed)
				if len(fr.Results) > 0 {
					msg += " " + flushSummary(fr)
				}
				c.strip.pages.SetText(msg)
				c.strip.showNews(p.NewItems) // newitems.go
			case policy.ErrorCode(err) == policy.CodeCancelled:
				c.strip.pages.SetText(fmt.Sprintf("Sync cancelled after %s.", plural(p.Pages, "page")))
			default:
				c.strip.pages.SetText("Sync failed: " + sentence(err))
			}
			c.reload()
		}
	})
}

func (c *Console) onCancelSync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.syncCancel != nil {
		c.syncCancel()
	}
}

// themeChoices are the theme preference's values and their words.
var themeChoices = []struct{ value, label string }{
	{"system", "As the system says"}, {"light", "Light"}, {"dark", "Dark"},
}

func (c *Console) onPreferences() {
	who := widget.NewLabel(c.wf.Reviewer())
	who.TextStyle.Bold = true
	api := widget.NewEntry()
	api.SetText(c.opts.APIURL)
	api.Validator = validateAPIURL
	tok := wrapped(c.opts.TokenSource)
	var labels []string
	for _, t := range themeChoices {
		labels = append(labels, t.label)
	}
	th := widget.NewSelect(labels, nil)
	cur := c.prefs().StringWithFallback(prefTheme, "system")
	for _, t := range themeChoices {
		if t.value == cur {
			th.SetSelected(t.label)
		}
	}
	adv := widget.NewCheck("After an action, go to the next item that needs me", nil)
	adv.SetChecked(c.autoAdvance())
	source := c.opts.ReviewerSource
	if source == "" {
		source = "the system user"
	}
	if c.wf.ReviewerFromService() {
		source = "the screening service (GET /v1/me)"
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Reviewer", who),
		widget.NewFormItem("API URL", api),
		widget.NewFormItem("API token", tok),
		widget.NewFormItem("Theme", th),
		widget.NewFormItem("Triage", adv),
	}
	items[0].HintText = "from " + source + "; the audit trail names it. It is not edited here."
	items[1].HintText = "applies at the next start; REVIEWER_API_URL or --api take precedence"
	items[2].HintText = "read from REVIEWER_API_TOKEN or REVIEWER_API_TOKEN_FILE; never typed or saved here"
	d := dialog.NewForm("Preferences", "Save", "Cancel", items, func(ok bool) {
		if ok {
			theme := "system"
			for _, t := range themeChoices {
				if t.label == th.Selected {
					theme = t.value
				}
			}
			c.savePreferences(api.Text, theme, adv.Checked)
		}
	}, c.win)
	d.Resize(fyne.NewSize(660, 420))
	d.Show()
}

// savePreferences applies the theme and the triage choice now and keeps
// them, and the API URL for the next start.
func (c *Console) savePreferences(apiURL, themeName string, autoAdvance bool) {
	if validateAPIURL(apiURL) != nil {
		return
	}
	p := c.prefs()
	p.SetString(prefTheme, themeName)
	p.SetString(prefAutoAdvance, map[bool]string{true: "on", false: "off"}[autoAdvance])
	if a := fyne.CurrentApp(); a != nil {
		a.Settings().SetTheme(newTheme(themeName))
	}
	if strings.TrimSpace(apiURL) != c.opts.APIURL {
		if c.opts.SaveAPIURL != nil {
			c.opts.SaveAPIURL(strings.TrimSpace(apiURL))
		}
		c.strip.pages.SetText("The new API URL applies the next time the console starts.")
	}
	c.strip.show()
}

// validateAPIURL accepts an absolute https or http URL, and says so; the
// client checks the rest when it starts (plain http only to a loopback
// host, unless REVIEWER_ALLOW_INSECURE_HTTP is set).
func validateAPIURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("an absolute https:// URL (or http:// to this computer)")
	}
	return nil
}
