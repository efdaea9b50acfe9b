package ui

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/internal/safefile"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// exportName is the file an export proposes: the customer reference (or
// "all-batches") and the date, never an internal id.
func exportName(customerRef string, now time.Time) string {
	base := "all-batches"
	if customerRef != "" {
		base = unsafeName.ReplaceAllString(customerRef, "-")
	}
	return base + "-" + now.Format("2006-01-02") + ".csv"
}

// onExport writes the selected batch (or all batches) as CSV, readable by
// its owner only (0600, like the cache), and says where it went.
func (c *Console) onExport() {
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	batch := c.batches.batchID()
	ref := ""
	if i := c.batches.index(batch); batch != "" && i >= 0 {
		ref = c.batches.rows[i].CustomerRef
	}
	save := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		c.export(path, batch)
	}, c.win)
	save.SetFileName(exportName(ref, c.opts.Now()))
	if dir := c.settings.store().String(prefLastFolder + "_export"); dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			save.SetLocation(l)
		}
	}
	save.Resize(fyne.NewSize(760, 520))
	save.Show()
}

// export writes the CSV to path with mode 0600, atomically (writeExport).
func (c *Console) export(path, batch string) {
	c.settings.store().SetString(prefLastFolder+"_export", filepath.Dir(path))
	c.background(func(ctx context.Context) func() {
		n, err := c.writeExport(ctx, path, batch)
		return func() {
			if err != nil {
				c.showError("Export failed", err)
				return
			}
			dir := filepath.Dir(path)
			msg := wrapped(fmt.Sprintf("Wrote %s to %s, in the folder %s. Only you can read it.", plural(n, "item"), filepath.Base(path), dir))
			open := widget.NewButton("Open the folder", func() {
				if a := fyne.CurrentApp(); a != nil {
					_ = a.OpenURL(&url.URL{Scheme: "file", Path: dir})
				}
			})
			c.strip.say(fmt.Sprintf("Exported %s to %s.", plural(n, "item"), path))
			d := dialog.NewCustom("Exported", "Close", container.NewVBox(msg, open), c.win)
			d.Resize(fyne.NewSize(520, 180))
			d.Show()
		}
	})
}

// writeExport writes the CSV as the command line does: into a new file
// (0600) in the same folder, renamed over path only once it is whole, so
// that a failed export leaves an existing file as it was.
func (c *Console) writeExport(ctx context.Context, path, batch string) (int, error) {
	var n int
	err := safefile.WriteNew(path, true, func(w io.Writer) error {
		var err error
		n, err = c.wf.ExportCSV(ctx, w, batch)
		return err
	})
	return n, err
}
