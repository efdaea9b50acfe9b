package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// The system tray: an icon whose menu says how many items need the
// reviewer, what waits in the outbox and the connection, with Show, Sync
// now, Flush outbox and Quit. The menu is set again whenever what it says
// changes. Closing the window can hide it to the tray (a preference, off
// by default, offered only when there is a tray). Quit, from the tray or
// the window, asks first when actions or notes have not gone out, and
// says how many.

// TrayApp is the part of Fyne's desktop.App the tray needs (an app
// whose driver has a system tray; tests give their own).
type TrayApp interface {
	SetSystemTrayMenu(menu *fyne.Menu)
	SetSystemTrayIcon(icon fyne.Resource)
}

// trayModel is what the tray's menu says.
type trayModel struct {
	needs  int // items that need the reviewer; -1: not read yet
	outbox store.OutboxCount
	conn   string
}

// trayMenu builds the tray's menu from the model; the actions are the
// console's.
func trayMenu(m trayModel, now time.Time, show, syncNow, flush, quit func()) *fyne.Menu {
	needs := "Needs my action: …"
	if m.needs >= 0 {
		needs = fmt.Sprintf("Needs my action: %d", m.needs)
	}
	info := func(label string) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, nil)
		it.Disabled = true
		return it
	}
	q := fyne.NewMenuItem("Quit", quit)
	q.IsQuit = true // Fyne adds no Quit of its own: ours asks first
	return fyne.NewMenu("TrustScreen Reviewer",
		info(needs),
		info("Outbox: "+outboxWords(m.outbox, now)),
		info(m.conn),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Show", show),
		fyne.NewMenuItem("Sync now", syncNow),
		fyne.NewMenuItem("Flush outbox", flush),
		fyne.NewMenuItemSeparator(),
		q,
	)
}

// connWord is the connection in the tray's few words.
func connWord(st review.Connectivity) string {
	switch st.Conn.State {
	case review.ConnOnline:
		return "● Online"
	case review.ConnOffline:
		return "● Offline: showing cached data"
	case review.ConnCircuitOpen:
		return "● The screening API stopped answering"
	}
	return "● Showing cached data"
}

// tray keeps the tray's menu in step with the console (UI goroutine only).
type tray struct {
	app   TrayApp
	model trayModel
	set   bool // a menu has been set
}

// showTray sets the tray's icon and a first menu, when there is a tray.
func (c *Console) showTray() {
	if c.opts.Tray == nil {
		return
	}
	c.tray = &tray{app: c.opts.Tray, model: trayModel{needs: -1, conn: "● Opening the cache…"}}
	if icon := fyne.CurrentApp().Icon(); icon != nil {
		c.opts.Tray.SetSystemTrayIcon(icon)
	}
	c.setTrayMenu()
}

func (c *Console) setTrayMenu() {
	t := c.tray
	t.set = true
	// The tray's clicks come from the tray's own goroutine: each runs on
	// the UI goroutine, as a key would.
	ui := func(fn func()) func() { return func() { c.onUI(false, fn) } }
	t.app.SetSystemTrayMenu(trayMenu(t.model, c.clock.Now(), ui(c.showWindow), ui(c.onSync), ui(c.autoFlush), ui(c.onQuit)))
}

// trayConn takes the connection and the outbox into the tray's menu.
func (c *Console) trayConn(st review.Connectivity) {
	if c.tray == nil {
		return
	}
	m := c.tray.model
	m.outbox, m.conn = st.Outbox, connWord(st)
	c.trayUpdate(m)
}

// trayNeeds counts the items that need the reviewer for the tray's menu.
func (c *Console) trayNeeds() {
	if c.tray == nil {
		return
	}
	c.background(func(ctx context.Context) func() {
		n, err := c.wf.Listing.CountItems(ctx, store.ItemFilter{NeedsAction: true})
		if err != nil {
			return nil
		}
		return func() {
			if c.tray == nil {
				return
			}
			m := c.tray.model
			m.needs = n
			c.trayUpdate(m)
		}
	})
}

// trayUpdate sets the menu again when what it says changed.
func (c *Console) trayUpdate(m trayModel) {
	if c.tray.set && m == c.tray.model {
		return
	}
	c.tray.model = m
	c.setTrayMenu()
}

// showWindow brings the window back (from the tray).
func (c *Console) showWindow() {
	c.win.Show()
	c.win.RequestFocus()
}

// unsentWords names what has not gone out ("" when nothing waits):
// "2 queued actions, 1 action of unknown outcome and 1 note".
func unsentWords(o store.OutboxCount) string {
	var parts []string
	if n := o.Queued; n > 0 {
		parts = append(parts, plural(n, "queued action"))
	}
	if n := o.Sending; n > 0 {
		parts = append(parts, plural(n, "action")+" being sent")
	}
	if n := o.Unknown; n > 0 {
		parts = append(parts, plural(n, "action")+" of unknown outcome")
	}
	if n := o.Notes; n > 0 {
		parts = append(parts, plural(n, "note"))
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// quitQuestion is the text of Quit's question: what waits, and that it
// stays, in the number of what waits ("It stays" for one).
func quitQuestion(o store.OutboxCount, what string) string {
	stays := " They stay in the cache and go out the next time the console runs (or with reviewer flush)"
	if o.Queued+o.Sending+o.Unknown+o.Notes == 1 {
		stays = " It stays in the cache and goes out the next time the console runs (or with reviewer flush)"
	}
	text := fullStop(strings.ToUpper(what[:1])+what[1:]+" not sent yet") + stays
	if o.Unknown+o.Sending > 0 {
		text += "; an unknown outcome is checked then with its key, never sent again blind"
	}
	return text + "."
}

// onQuit quits, after asking when actions or notes have not gone out
// (Ctrl+Q, the tray's Quit, closing the window unless it hides to the
// tray). What waits stays in the cache and goes out at the next start.
func (c *Console) onQuit() {
	c.background(func(ctx context.Context) func() {
		st, err := c.wf.Sync.Connectivity(ctx)
		return func() {
			what := ""
			if err == nil {
				what = unsentWords(st.Outbox)
			}
			if what == "" {
				c.quit()
				return
			}
			c.showWindow()
			if c.win.Canvas().Overlays().Top() != nil {
				c.win.Canvas().Overlays().Top().Hide()
			}
			msg := newLabel(quitQuestion(st.Outbox, what))
			msg.Wrapping = fyne.TextWrapWord
			f := newDialogForm(c.win, c)
			q := f.defaultButton("Quit (Enter)", func() {
				f.hide()
				c.quit()
			})
			f.show("Quit with "+what+" not sent?", msg, []fyne.CanvasObject{f.cancelButton("Stay (Esc)"), q}, 560)
		}
	})
}

// quit keeps the window's state and ends the program.
//
// Fyne saves its preferences by truncating and rewriting the file, and
// watches the file's folder to read it again, unless a save of the last
// 100 ms tells it the change is its own (its app/preferences.go). Two of
// its saves came at a quit where the watcher reads on a goroutine of its
// own (the event loop has ended) and could find the file empty
// ("Preferences load error: EOF"): the second save of a burst of changes,
// 100 ms after the first, and the save Fyne makes as the program ends. So
// the window closes once the burst of the state's changes has been saved
// (prefsSettle), and right after a save of its own (the time of the
// quit), within whose 100 ms Fyne's last save falls.
func (c *Console) quit() {
	closeWindow := func() {
		c.settings.store().SetString(prefQuitAt, c.clock.Now().UTC().Format(time.RFC3339Nano))
		if c.closeWindow != nil {
			c.closeWindow() // tests
			return
		}
		c.win.Close() // the master window: the program ends (run.go)
	}
	if !c.keepWindowState() {
		closeWindow()
		return
	}
	// Fyne's own time, not the console's clock; counted as background
	// work (Settle waits for it).
	c.jobs.add()
	time.AfterFunc(prefsSettle, func() {
		defer c.jobs.done()
		toUI(true, closeWindow) // thread.go
	})
}

// prefQuitAt is when the window was last quit (quit).
const prefQuitAt = "quit_at"
