package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

// onExport writes the selected batch (or all batches) as CSV.
func (c *Console) onExport() {
	batch := c.batches.batchID()
	save := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		c.background(func(ctx context.Context) func() {
			n, err := c.wf.ExportCSV(ctx, w, batch)
			cerr := w.Close()
			if err == nil {
				err = cerr
			}
			return func() {
				if err != nil {
					c.showError("Export failed", err)
					return
				}
				c.strip.pages.SetText(fmt.Sprintf("exported %d items to %s", n, w.URI().Name()))
			}
		})
	}, c.win)
	name := "all-batches.csv"
	if batch != "" {
		name = batch + ".csv"
	}
	save.SetFileName(name)
	save.Show()
}
