package ui

import (
	"context"
	"time"

	"github.com/trustscreen/reviewer/internal/document"
)

// prepareRenderer compiles the PDF renderer into its cache folder ahead
// of the first PDF she opens (6 s the first time after installing, half a
// second once compiled): lim.PrepareAfter after the window's start, so
// never beside its first frame, its first reads or its first sync; off
// the UI goroutine, in a process of its own at the lowest priority
// (document.PrepareRenderer), which does nothing when the code is there
// already. after is time.After (tests: a channel of theirs).
func prepareRenderer(lim document.Limits, after func(time.Duration) <-chan time.Time) {
	if lim == (document.Limits{}) {
		lim, _ = document.LimitsFromEnv() // a bad value keeps the default
	}
	if lim.PrepareAfter < 0 {
		return
	}
	due := after(lim.PrepareAfter)
	go func() {
		<-due
		_ = document.PrepareRenderer(context.Background(), lim) // the first PDF compiles it otherwise
	}()
}
