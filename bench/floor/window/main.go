// Command window is the peer of the reviewer's window and of its process
// start in the performance suite (bench/perf): a minimal Fyne window of the
// same size, in a binary that links the same libraries (Fyne, go-sqlite3,
// resty). With -exit it only starts and exits, as `reviewer --help` does.
package main

import (
	"database/sql"
	"flag"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
	"github.com/go-resty/resty/v2"
	_ "github.com/mattn/go-sqlite3"
)

func main() {
	exit := flag.Bool("exit", false, "start and exit, without a window")
	flag.Parse()
	if *exit {
		os.Exit(0)
	}
	// Referenced so that the linker keeps them, as the reviewer's do.
	if len(os.Args) > 99 {
		_, _ = sql.Open("sqlite3", ":memory:")
		_ = resty.New()
	}
	a := app.NewWithID("com.trustscreen.reviewer.floor")
	w := a.NewWindow("TrustScreen floor")
	w.SetContent(widget.NewLabel("floor"))
	w.Resize(fyne.NewSize(1280, 800))
	w.ShowAndRun()
}
