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
	syncBtn  *widget.Button
	cancel   *widget.Button
	progress *widget.ProgressBarInfinite
	pages    *widget.Label
	content  fyne.CanvasObject
	status   review.Status
}

func newStatusStrip(c *Console) *statusStrip {
	s := &statusStrip{c: c,
		conn:     widget.NewLabel("● Opening the cache…"),
		synced:   widget.NewLabel(""),
		demo:     widget.NewLabel("DEMO DATA: built-in reference service"),
		reviewer: widget.NewLabel(""),
		progress: widget.NewProgressBarInfinite(),
		pages:    widget.NewLabel(""),
	}
	s.demo.Importance = widget.WarningImportance
	s.demo.TextStyle.Bold = true
	if !c.opts.Demo {
		s.demo.Hide()
	}
	s.syncBtn = widget.NewButtonWithIcon("Sync", theme.ViewRefreshIcon(), c.onSync)
	s.cancel = widget.NewButtonWithIcon("", theme.CancelIcon(), c.onCancelSync)
	s.progress.Stop()
	s.progress.Hide()
	s.cancel.Hide()
	prefs := widget.NewButtonWithIcon("", theme.SettingsIcon(), c.onPreferences)
	export := widget.NewButtonWithIcon("Export CSV", theme.DocumentSaveIcon(), c.onExport)
	left := container.NewHBox(s.conn, s.synced, s.syncBtn, s.cancel, container.NewGridWrap(fyne.NewSize(120, 8), s.progress), s.pages)
	right := container.NewHBox(s.demo, export, s.reviewer, prefs)
	s.content = container.NewVBox(container.NewBorder(nil, nil, left, right), widget.NewSeparator())
	return s
}

func (s *statusStrip) refresh() {
	s.c.background(func(ctx context.Context) func() {
		st, err := s.c.wf.Status(ctx)
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
		s.synced.SetText("· synced " + clock(st.LastSync))
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
		s.conn.SetText("● The screening API stopped answering; retrying at " + clock(st.Conn.RetryAt))
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
		s.pages.SetText("starting…")
		return
	}
	s.syncBtn.Enable()
	s.cancel.Hide()
	s.progress.Stop()
	s.progress.Hide()
}

// onSync pulls changed batches, then sends what waits in the outbox. The
// UI goroutine only flips widgets; the work runs in the background.
func (c *Console) onSync() {
	c.mu.Lock()
	if c.syncCancel != nil {
		c.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.syncCancel = cancel
	c.mu.Unlock()
	c.strip.running(true)
	c.background(func(context.Context) func() {
		p, err := c.wf.Sync(ctx, func(p review.SyncProgress) {
			fyne.Do(func() {
				c.apply(func() { c.strip.pages.SetText(fmt.Sprintf("%s · %d items", plural(p.Pages, "page"), p.Items)) })
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
				msg := fmt.Sprintf("%s · %d items · %d changed", plural(p.Pages, "page"), p.Items, p.Changed)
				if n := len(fr.Results); n > 0 {
					msg += fmt.Sprintf(" · %d queued actions sent", n)
				}
				c.strip.pages.SetText(msg)
			case policy.ErrorCode(err) == policy.CodeDeadlineExceeded && errors.Is(ctx.Err(), context.Canceled):
				c.strip.pages.SetText(fmt.Sprintf("sync cancelled after %d pages", p.Pages))
			default:
				c.strip.pages.SetText("sync failed: " + string(policy.ErrorCode(err)))
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

func (c *Console) onPreferences() {
	name := widget.NewEntry()
	name.SetText(c.wf.Reviewer())
	api := widget.NewEntry()
	api.SetText(c.opts.APIURL)
	api.Validator = validateAPIURL
	tok := widget.NewLabel(c.opts.TokenSource)
	tok.Wrapping = fyne.TextWrapWord
	items := []*widget.FormItem{
		widget.NewFormItem("Reviewer", name),
		widget.NewFormItem("API URL", api),
		widget.NewFormItem("API token", tok),
	}
	items[1].HintText = "applies at the next start; REVIEWER_API_URL or --api take precedence"
	items[2].HintText = "read from REVIEWER_API_TOKEN or REVIEWER_API_TOKEN_FILE; never typed or saved here"
	d := dialog.NewForm("Preferences", "Save", "Cancel", items, func(ok bool) {
		if ok {
			c.savePreferences(name.Text, api.Text)
		}
	}, c.win)
	d.Resize(fyne.NewSize(620, 300))
	d.Show()
}

// savePreferences applies the reviewer's name now and keeps both for the
// next start.
func (c *Console) savePreferences(name, apiURL string) {
	name = strings.TrimSpace(name)
	if name == "" || validateAPIURL(apiURL) != nil {
		return
	}
	c.wf.SetReviewer(name)
	if c.opts.Save != nil {
		c.opts.Save(name, strings.TrimSpace(apiURL))
	}
	if strings.TrimSpace(apiURL) != c.opts.APIURL {
		c.strip.pages.SetText("the new API URL applies the next time the console starts")
	}
	c.strip.show()
}

// validateAPIURL accepts an absolute http or https URL; the client checks
// the rest (plain http only on loopback) when it starts.
func validateAPIURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("an absolute https:// URL")
	}
	return nil
}
