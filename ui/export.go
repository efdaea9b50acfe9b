package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// onExport asks where to write the selected batch (or all batches) as
// CSV: a file name and a folder, typed or chosen with Browse. Nothing is
// opened, let alone truncated, until the export is written whole into a
// new file beside the target (writeExport): a failed export leaves an
// existing file as it was. A file of that name is replaced only once the
// reviewer pressed Replace.
func (c *Console) onExport() {
	if c.win.Canvas().Overlays().Top() != nil {
		return
	}
	batch := c.batches.batchID()
	ref := ""
	if i := c.batches.index(batch); batch != "" && i >= 0 {
		ref = c.batches.rows[i].CustomerRef
	}
	last := c.settings.store().String(prefLastFolder + "_export")
	if last == "" {
		last, _ = os.UserHomeDir()
	}
	f := newDialogForm(c.win, c)
	name := f.entry()
	name.SetText(exportName(ref, c.opts.Now()))
	folder := f.entry()
	folder.SetText(last)
	why := wrapped("")
	why.Importance = widget.DangerImportance
	why.Hide()
	replace := "" // the target the reviewer agreed to replace
	var save *formButton
	changed := func(string) {
		replace = ""
		save.SetText("Save (Enter)")
		setOrHide(why, "")
	}
	save = f.defaultButton("Save (Enter)", func() {
		path, err := exportTarget(folder.Text, name.Text)
		if err != nil {
			setOrHide(why, capitalize(err.Error()))
			return
		}
		save.Disable()
		agreed := replace == path
		c.background(func(context.Context) func() {
			err := safefile.CheckTarget(path, agreed)
			return func() {
				save.Enable()
				var exists *safefile.ExistsError
				switch {
				case errors.As(err, &exists):
					replace = path
					save.SetText("Replace (Enter)")
					setOrHide(why, fmt.Sprintf("%s is already in that folder. Replace writes over it, once the new export is whole; until then the old file stays as it is.", filepath.Base(path)))
				case err != nil:
					setOrHide(why, capitalize(err.Error()))
				default:
					f.hide()
					c.export(path, batch, agreed)
				}
			}
		})
	})
	name.OnChanged, folder.OnChanged = changed, changed
	browse := f.button("Browse…", func() {
		fd := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
			if err == nil && l != nil {
				folder.SetText(l.Path())
			}
			c.win.Canvas().Focus(folder)
		}, c.win)
		if dir := browseFolder(folder.Text, last); dir != "" {
			if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
				fd.SetLocation(l)
			}
		}
		fd.Resize(fyne.NewSize(760, 520))
		fd.Show()
	})
	form := widget.NewForm(widget.NewFormItem("File name", name),
		widget.NewFormItem("Folder", container.NewBorder(nil, nil, nil, browse, folder)))
	form.Items[0].HintText = "a CSV file that only you can read"
	body := container.NewVBox(form, why)
	f.show("Export as CSV", body, []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), save}, 620)
	name.cursorToEnd()
}

// exportTarget is the path an export is written to: a file name (".csv"
// added when it has no extension) in a folder, both given.
func exportTarget(folder, name string) (string, error) {
	folder, name = strings.TrimSpace(folder), strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errors.New("name the file")
	case strings.ContainsRune(name, filepath.Separator) || name == "." || name == "..":
		return "", errors.New("the file name cannot hold a folder: choose the folder below")
	case folder == "":
		return "", errors.New("choose the folder, or type its path")
	}
	if filepath.Ext(name) == "" {
		name += ".csv"
	}
	return filepath.Join(folder, name), nil
}

// export writes the CSV to path with mode 0600, atomically (writeExport);
// an existing file is replaced only with force.
func (c *Console) export(path, batch string, force bool) {
	c.settings.store().SetString(prefLastFolder+"_export", filepath.Dir(path))
	c.background(func(ctx context.Context) func() {
		n, err := c.writeExport(ctx, path, batch, force)
		return func() {
			if err != nil {
				c.showError("Export failed", err)
				return
			}
			dir := filepath.Dir(path)
			msg := wrapped(fmt.Sprintf("Wrote %s to %s, in the folder %s. Only you can read it.", plural(n, "item"), filepath.Base(path), dir))
			f := newDialogForm(c.win, c)
			open := f.button("Open the folder", func() {
				if a := fyne.CurrentApp(); a != nil {
					_ = a.OpenURL(&url.URL{Scheme: "file", Path: dir})
				}
			})
			c.strip.say(fmt.Sprintf("Exported %s to %s.", plural(n, "item"), path))
			f.focusFirst(f.defaultButton("Close (Enter)", f.hide)) // Enter closes; Tab reaches Open
			f.show("Exported", container.NewVBox(msg, open), []fyne.CanvasObject{f.def}, 520)
		}
	})
}

// writeExport writes the CSV as the command line does: into a new file
// (0600) in the same folder, renamed over path only once it is whole, so
// that a failed export leaves an existing file as it was (without force,
// an existing file is not replaced at all).
func (c *Console) writeExport(ctx context.Context, path, batch string, force bool) (int, error) {
	var n int
	err := safefile.WriteNew(path, force, func(w io.Writer) error {
		var err error
		n, err = c.wf.Listing.ExportCSV(ctx, w, batch)
		return err
	})
	return n, err
}
