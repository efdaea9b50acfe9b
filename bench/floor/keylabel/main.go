// Command keylabel is the floor of the window's key-to-redraw figures in
// the performance suite (bench/perf, -only latency): a minimal Fyne window
// of the reviewer's size whose one label, at its top left, changes on ↓ (to
// "item N", N the count of presses). The suite sends ↓ through XTEST and
// reads the label's pixels from the X server, as it does for the
// reviewer's item panel: the least a Fyne program can do from a key to
// the frame that shows its result. Built with the same GOFLAGS as the
// reviewer (no_emoji), and declaring the same Fyne migration (fyneDo: no
// thread check on a widget update), as the reviewer does from FyneApp.toml.
package main

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
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
	w.SetContent(container.NewVBox(label))
	w.Resize(fyne.NewSize(1280, 800))
	w.ShowAndRun()
}
