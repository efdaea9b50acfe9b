// Command keylabel is the floor of the window's key-to-redraw figures in
// the performance suite (bench/perf, -only latency): a minimal Fyne window
// of the reviewer's size whose one label, at its top left, changes on ↓ (to
// "item N", N the count of presses). The suite sends ↓ through XTEST and
// reads the label's pixels from the X server, as it does for the
// reviewer's item panel: the least a Fyne program can do from a key to
// the frame that shows its result. Built with the same GOFLAGS as the
// reviewer (no_emoji), and declaring the same Fyne migration (fyneDo: no
// thread check on a widget update), as the reviewer does from FyneApp.toml.
//
// With -objects N the same label sits above N static objects that never
// change (three texts of the reviewer's table in four, a filled rectangle
// in the fourth, in cells of 130x26): what Fyne costs to draw a screen as
// full as the reviewer's, since it draws the whole window for each frame
// (docs/performance.md, latency7).
package main

import (
	"flag"
	"image/color"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
	objects := flag.Int("objects", 0, "static objects drawn below the label (0: the label alone)")
	flag.Parse()
	id := "com.trustscreen.reviewer.floor.keylabel"
	app.SetMetadata(fyne.AppMetadata{ID: id, Name: "floor keylabel", Version: "1.0.0", Build: 1,
		Migrations: map[string]bool{"fyneDo": true}})
	a := app.NewWithID(id)
	w := a.NewWindow("TrustScreen floor keylabel")
	label := widget.NewLabel("item 0")
	n := 0
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyDown {
			n++
			label.SetText("item " + strconv.Itoa(n))
		}
	})
	if *objects > 0 {
		w.SetContent(container.NewBorder(container.NewVBox(label), nil, nil, nil, crowd(*objects)))
	} else {
		w.SetContent(container.NewVBox(label))
	}
	w.Resize(fyne.NewSize(1280, 800))
	w.ShowAndRun()
}

// crowd is n static objects in rows of cells small enough that 212 of
// them fit the 1280x800 window below the label (nine to a row, 24 rows).
func crowd(n int) fyne.CanvasObject {
	words := []string{"✗ error · 13 d · overdue", "INTERNAL_ERROR", "pas…048_08", "60 · medium", "review", "—"}
	fg, bg := color.NRGBA{0xe0, 0xe0, 0xe0, 0xff}, color.NRGBA{0x28, 0x28, 0x28, 0xff}
	cells := make([]fyne.CanvasObject, n)
	for i := range cells {
		if i%4 == 3 {
			cells[i] = canvas.NewRectangle(bg)
		} else {
			cells[i] = canvas.NewText(words[i%len(words)], fg)
		}
	}
	return container.NewGridWrap(fyne.NewSize(130, 26), cells...)
}
