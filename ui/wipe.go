package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// "Remove all local data" (Preferences) is `reviewer wipe` from the
// window: the cache with its -wal and -shm, the documents kept for
// offline review and their key, the console's secrets in the keyring and
// its preferences. The window cannot remove a cache it has open, so it
// asks for the wipe (Options.WipeAtExit) and closes; the command line
// removes the files once the cache is closed. With actions or notes not
// sent it refuses and names them, as the command does.

// localDataRow is Preferences' row for it (nil: not offered, as in the
// demo, whose cache is thrown away anyway).
func (c *Console) localDataRow(f *dialogForm) *widget.FormItem {
	if c.opts.WipeAtExit == nil {
		return nil
	}
	b := f.button("Remove all local data…", func() {
		f.hide()
		c.onRemoveAllLocalData()
	})
	it := widget.NewFormItem("Local data", b)
	it.HintText = "the cache, kept documents and their key, the token in the keyring and these preferences; nothing else"
	return it
}

// onRemoveAllLocalData refuses while anything waits to be sent, else asks,
// then asks for the wipe and closes the console.
func (c *Console) onRemoveAllLocalData() {
	c.background(func(ctx context.Context) func() {
		st, err := c.wf.Sync.Connectivity(ctx)
		return func() {
			if err != nil {
				c.showError("Nothing was removed", err)
				return
			}
			f := newDialogForm(c.win, c)
			if what := unsentWords(st.Outbox); what != "" {
				msg := wrapped(fullStop(strings.ToUpper(what[:1])+what[1:]+" not sent yet: nothing was removed") +
					" Send them first (F5), or write them out with their keys from a terminal: reviewer wipe --export-outbox FILE.")
				f.focusFirst(f.defaultButton("OK (Enter)", f.hide))
				f.show("Local data not removed", msg, []fyne.CanvasObject{f.def}, 560)
				return
			}
			msg := wrapped("This removes the cache of this console (its batches, items and history, and its -wal and -shm), " +
				"the documents kept for offline review and their key, the API token in the keyring and the console's preferences, " +
				"then closes the console. Nothing else in those folders is touched. The service keeps everything it holds.")
			// The safe choice has the focus: Enter keeps; Tab, then Enter
			// or Space, removes.
			keep := f.cancelButton("Keep it (Esc)")
			f.focusFirst(keep)
			remove := f.button("Remove and close", func() {
				f.hide()
				c.opts.WipeAtExit()
				c.quit()
			})
			f.show("Remove all local data?", msg, []fyne.CanvasObject{keep, remove}, 560)
		}
	})
}
