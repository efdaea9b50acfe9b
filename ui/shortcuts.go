package ui

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// keyBinding is one line of the shortcut sheet, and what binds its keys:
// the window dispatches its keys from this table alone (bindKeys, onKey,
// onRune), so the sheet cannot list a key that does nothing, nor miss one
// that is bound. A new command is one line here, with its do.
type keyBinding struct {
	group string // one of keyGroups
	keys  string // as the sheet shows them
	what  string
	// shortcuts (keys with Ctrl) are bound on the canvas by bindKeys.
	shortcuts []fyne.Shortcut
	// runes are the one-key commands (letters and signs): typed outside a
	// text field, they run do (onRune). In a text field they are text.
	runes []rune
	// names are plain keys that run do when no widget takes them first
	// (onKey); with anyFocus, also from a text field, a filter list or a
	// check box (windowKey): F5, F1.
	names    []fyne.KeyName
	anyFocus bool
	do       func(c *Console)
	// textKeeps: in a text field the key is the field's (select all).
	textKeeps bool
	// by names what handles the line's keys with its own handler, when
	// this line binds nothing: the items table, the batch list, a dialog,
	// the viewer, Fyne's focus order.
	by string
}

// keyGroups are the sheet's groups, in order.
var keyGroups = []string{"Moving", "Acting", "Bulk", "Views", "Document", "Window"}

func ctrl(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
}

func ctrlShift(k fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
}

// viewKeys are Ctrl+1 … Ctrl+9, the saved views in order.
func viewKeys() []keyBinding {
	names := []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6, fyne.Key7, fyne.Key8, fyne.Key9}
	out := make([]keyBinding, len(names))
	for i, k := range names {
		out[i] = keyBinding{group: "Views", keys: "Ctrl+" + string(k), shortcuts: []fyne.Shortcut{ctrl(k)},
			do: func(c *Console) { c.onView(i) }}
	}
	// One line on the sheet for the nine of them.
	out[0].keys, out[0].what = "Ctrl+1 … Ctrl+9", "apply the saved view of that number (listed under this group)"
	return out
}

// windowKeys is every key of the main window. Fyne's driver turns Ctrl+A
// into its own "select all" shortcut, never into a custom one, so Ctrl+A
// is bound as both. (Set in init: its actions lead back to the sheet.)
var windowKeys []keyBinding

func init() {
	windowKeys = append(append([]keyBinding{
		{group: "Moving", keys: "↑ / ↓", what: "previous / next item (the panel follows); in the batch list, the batch above or below", by: "the items table, the batch list"},
		{group: "Moving", keys: "PgUp / PgDn, Home / End", what: "jump in the items", by: "the items table"},
		{group: "Moving", keys: "Enter", what: "open the selected item; in the search, open the first match and go to its items", by: "the items table, the search"},
		{group: "Moving", keys: "Ctrl+F or /", what: "search batches and items by id, file name or customer", shortcuts: []fyne.Shortcut{ctrl(fyne.KeyF)}, runes: []rune{'/'},
			do: func(c *Console) { c.focusSearch() }},
		{group: "Moving", keys: "Esc or ↓ (in the search)", what: "leave the search, back to the items", by: "the search"},
		{group: "Moving", keys: "Tab / Shift+Tab", what: "move between the search, the batches, the filters and the items", by: "Fyne's focus order (focus.go)"},

		{group: "Acting", keys: "r", what: "re-submit the item (asks first: it is a paid re-run)", runes: []rune{'r'},
			do: func(c *Console) { c.panel.onResubmit() }},
		{group: "Acting", keys: "f", what: "request a new file from the customer", runes: []rune{'f'},
			do: func(c *Console) { c.panel.onRequestFile() }},
		{group: "Acting", keys: "u", what: "upload the replacement the customer sent (or drop the file on the window)", runes: []rune{'u'},
			do: func(c *Console) { c.panel.onUpload() }},
		{group: "Acting", keys: "x", what: "cancel the item's queued action", runes: []rune{'x'},
			do: func(c *Console) { c.panel.onCancel() }},
		{group: "Acting", keys: "q", what: "queue again an action the service turned away for now (a new intent, a new key)", runes: []rune{'q'},
			do: func(c *Console) { c.panel.onQueueAgain() }}, // outbox.go
		{group: "Acting", keys: "b", what: "back to the item of the last action, whose result the top line says", runes: []rune{'b'},
			do: func(c *Console) { c.goBack() }}, // strip.go
		{group: "Acting", keys: "m", what: "write a note on the item: Ctrl+Enter sends it, Tab leaves the field", runes: []rune{'m'},
			do: func(c *Console) { c.focusNote() }}, // notes.go
		{group: "Acting", keys: "c", runes: []rune{'c'}, what: "clear the item: a decision with a reason from the service's list (a clear of an item recommended reject waits for a second reviewer)",
			do: func(c *Console) { c.onDecide(policy.OutcomeClear) }},
		{group: "Acting", keys: "j", runes: []rune{'j'}, what: "reject the item: a reason and a comment; a second reviewer confirms it",
			do: func(c *Console) { c.onDecide(policy.OutcomeReject) }},
		{group: "Acting", keys: "e", runes: []rune{'e'}, what: "escalate the item: a reason and a comment",
			do: func(c *Console) { c.onDecide(policy.OutcomeEscalate) }},
		{group: "Acting", keys: "a", runes: []rune{'a'}, what: "confirm the decision that awaits a second reviewer (never your own)",
			do: func(c *Console) { c.onConfirm(true) }},
		{group: "Acting", keys: "Shift+A", runes: []rune{'A'}, what: "return that decision to its author, with a comment: the item needs a new one",
			do: func(c *Console) { c.onConfirm(false) }},
		{group: "Acting", keys: "n", what: "next: claim and open the oldest item that needs a reviewer and nobody holds", runes: []rune{'n', 'N'},
			do: func(c *Console) { c.panel.team.onNext() }}, // claims.go
		{group: "Acting", keys: "Ctrl+Shift+Z", what: "snooze the item", shortcuts: []fyne.Shortcut{ctrlShift(fyne.KeyZ)},
			do: func(c *Console) { c.onSnooze() }},
		{group: "Acting", keys: "Esc", what: "stop waiting for an action (it is checked later, never sent again blind)", names: []fyne.KeyName{fyne.KeyEscape},
			do: func(c *Console) { c.panel.onStopWaiting() }},

		{group: "Bulk", keys: "Ctrl+A", what: "select every item in view (in a text field, its text)",
			shortcuts: []fyne.Shortcut{&fyne.ShortcutSelectAll{}, ctrl(fyne.KeyA)}, do: func(c *Console) { c.onSelectAll() }, textKeeps: true},
		{group: "Bulk", keys: "Shift+↑ / Shift+↓", what: "extend the selection up or down", by: "the items table"},
		{group: "Bulk", keys: "Ctrl+click, Shift+click", what: "add or remove an item; select a range", by: "the items table (select.go)"},
		{group: "Bulk", keys: "Ctrl+Shift+R", what: "re-submit the selected items, or every item in view (shows the plan and its cost first)",
			shortcuts: []fyne.Shortcut{ctrlShift(fyne.KeyR)}, do: func(c *Console) { c.onBulk(policy.ActionResubmit) }},
		{group: "Bulk", keys: "Ctrl+Shift+N", what: "request new files for the selected items, or every item in view (shows the plan first)",
			shortcuts: []fyne.Shortcut{ctrlShift(fyne.KeyN)}, do: func(c *Console) { c.onBulk(policy.ActionFileRequest) }},
		{group: "Bulk", keys: "Ctrl+Shift+C", what: "clear the selected items, or every item in view, that are scored low and recommended forward (one reason for all; shows the plan and what it leaves out first)",
			shortcuts: []fyne.Shortcut{ctrlShift(fyne.KeyC)}, do: func(c *Console) { c.onBulk(policy.ActionDecision) }},
	}, viewKeys()...),
		keyBinding{group: "Views", keys: "Ctrl+0", what: "the snoozed items", shortcuts: []fyne.Shortcut{ctrl(fyne.Key0)},
			do: func(c *Console) { c.applyView(snoozedView()) }},
		keyBinding{group: "Views", keys: "Ctrl+Shift+A", what: "the items awaiting my confirmation (a decision another reviewer took)", shortcuts: []fyne.Shortcut{ctrlShift(fyne.KeyA)},
			do: func(c *Console) { c.applyView(awaitingView()) }},
		keyBinding{group: "Views", keys: "Ctrl+Shift+V", what: "save the batch and filters in view as a view", shortcuts: []fyne.Shortcut{ctrlShift(fyne.KeyV)},
			do: func(c *Console) { c.onSaveView() }},
		keyBinding{group: "Views", keys: "p", what: "hide or show the item panel", runes: []rune{'p'},
			do: func(c *Console) { c.togglePanel() }},

		keyBinding{group: "Document", keys: "v or double-click", what: "open the viewer on the item's document (its keys below)", runes: []rune{'v'},
			do: func(c *Console) { c.panel.preview.openViewer() }}, // preview.go
		keyBinding{group: "Window", keys: "F5", what: "sync now", names: []fyne.KeyName{fyne.KeyF5}, anyFocus: true,
			do: func(c *Console) { c.onSync() }},
		keyBinding{group: "Window", keys: "Ctrl+E", what: "export the batch as CSV", shortcuts: []fyne.Shortcut{ctrl(fyne.KeyE)},
			do: func(c *Console) { c.onExport() }},
		keyBinding{group: "Window", keys: "Ctrl+,", what: "Preferences", shortcuts: []fyne.Shortcut{ctrl(fyne.KeyComma)},
			do: func(c *Console) { c.showPreferences() }},
		keyBinding{group: "Window", keys: "? or F1", what: "this sheet (in a text field, ? is typed: use F1)", runes: []rune{'?'}, names: []fyne.KeyName{fyne.KeyF1}, anyFocus: true,
			do: func(c *Console) { c.showShortcuts() }},
		keyBinding{group: "Window", keys: "Esc, Enter (in a dialog)", what: "close it; press its default button", by: "the open dialog (onKey)"},
		keyBinding{group: "Window", keys: "↓ / ↑, PgDn / PgUp, Home / End (this sheet)", what: "scroll this sheet", by: "the sheet (scrollSheet)"},
		keyBinding{group: "Window", keys: "Ctrl+Q", what: "quit", shortcuts: []fyne.Shortcut{ctrl(fyne.KeyQ)},
			do: func(c *Console) { c.onQuit() }}, // tray.go: asks first when something has not gone out
	)
	for _, k := range viewerKeys[1:] { // viewer.go: keys of the viewer's own window
		windowKeys = append(windowKeys, keyBinding{group: "Document", keys: k[0], what: k[1], by: "the viewer"})
	}
}

// runeKey is the line whose one-key command r is (nil: none).
func runeKey(r rune) *keyBinding {
	for i := range windowKeys {
		if slices.Contains(windowKeys[i].runes, r) {
			return &windowKeys[i]
		}
	}
	return nil
}

// namedKey is the line that binds the plain key name (nil: none).
func namedKey(name fyne.KeyName) *keyBinding {
	for i := range windowKeys {
		if slices.Contains(windowKeys[i].names, name) {
			return &windowKeys[i]
		}
	}
	return nil
}

// countsLegend explains a batch's counts in the list ("3 low · 6 ✗ · 4 ↻").
const countsLegend = "In the batch list: scored items by band (low, medium, high, critical), " +
	"✗ items not checked (an error or a broken answer), ↻ those a re-submission may help, then those awaiting a file and those with an open action."

// windowShortcut runs the window's binding of a shortcut that a focused
// widget received (a text field takes Ctrl+F first); it reports whether
// there was one. In a text field, "select all" stays the field's.
func (c *Console) windowShortcut(s fyne.Shortcut, inText bool) bool {
	if c.win.Canvas().Overlays().Top() != nil {
		return false
	}
	name := s.ShortcutName()
	for _, k := range windowKeys {
		for _, sc := range k.shortcuts {
			if sc.ShortcutName() != name {
				continue
			}
			if inText && k.textKeeps {
				return false
			}
			k.do(c)
			return true
		}
	}
	return false
}

// windowKey handles the plain keys that work wherever the focus is (the
// lines of windowKeys with anyFocus: F5, F1); it reports whether it took
// ev.
func (c *Console) windowKey(ev *fyne.KeyEvent) bool {
	if k := namedKey(ev.Name); k != nil && k.anyFocus {
		c.onKey(ev)
		return true
	}
	return false
}

// showPreferences opens Preferences (Ctrl+, and the strip's button).
func (c *Console) showPreferences() {
	if c.win.Canvas().Overlays().Top() == nil {
		c.settings.show(c.win)
	}
}

func (c *Console) showShortcuts() {
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	c.shortcutSheet(c.views)
}

// shortcutSheet shows every key, grouped, with the saved views under
// Views by their Ctrl+N.
func (c *Console) shortcutSheet(views []review.View) {
	box := container.NewVBox()
	for _, g := range keyGroups {
		head := newLabel(g)
		head.TextStyle.Bold = true
		head.Importance = widget.HighImportance
		box.Add(head)
		grid := container.New(layout.NewFormLayout())
		for _, k := range windowKeys {
			if k.group != g || k.what == "" {
				continue
			}
			grid.Add(newKeyLabel(k.keys))
			grid.Add(wrapped(k.what))
		}
		if g == "Views" {
			for i, v := range views {
				if i >= 9 {
					grid.Add(newKeyLabel("(no key)"))
				} else {
					grid.Add(newKeyLabel(fmt.Sprintf("Ctrl+%d", i+1)))
				}
				grid.Add(wrapped("the view \"" + shown(v.Name) + "\""))
			}
		}
		box.Add(grid)
	}
	box.Add(wrapped(countsLegend))
	scroll := container.NewVScroll(box)
	d := dialog.NewCustom("Keyboard shortcuts", "Close", scroll, c.win)
	d.SetOnClosed(func() {
		if c.sheet == scroll {
			c.sheet = nil
		}
	})
	d.Resize(fyne.NewSize(720, 640))
	d.Show()
	c.sheet = scroll
}

// scrollSheet scrolls the open shortcut sheet by a key; it reports
// whether it took the key.
func (c *Console) scrollSheet(ev *fyne.KeyEvent) bool {
	s := c.sheet
	if s == nil {
		return false
	}
	line, page := float32(40), s.Size().Height*0.9
	end := fyne.Max(0, s.Content.MinSize().Height-s.Size().Height)
	y := s.Offset.Y
	switch ev.Name {
	case fyne.KeyDown:
		y += line
	case fyne.KeyUp:
		y -= line
	case fyne.KeyPageDown, fyne.KeySpace:
		y += page
	case fyne.KeyPageUp:
		y -= page
	case fyne.KeyHome:
		y = 0
	case fyne.KeyEnd:
		y = end
	default:
		return false
	}
	s.ScrollToOffset(fyne.NewPos(0, fyne.Min(fyne.Max(y, 0), end)))
	return true
}
