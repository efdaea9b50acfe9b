package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/internal/document"
)

// The window has the PDF renderer compiled ahead of the first PDF, off
// its start: nothing runs before PrepareAfter has passed, then the
// renderer runs once with -prepare and the cache folder (here a stand-in
// that writes down how it was called); "off" runs nothing. In a process
// of its own: nothing is prepared while a renderer runs, and the other
// tests' renderer runs for the whole process.
func TestTheRendererIsCompiledAfterTheWindowsStartNotDuringIt(t *testing.T) {
	if !inOwnProcess(t, nil) {
		return
	}
	dir := t.TempDir()
	called := filepath.Join(dir, "called")
	fake := filepath.Join(dir, "fake-renderer")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> "+called+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	lim := document.DefaultLimits()
	lim.Renderer, lim.RendererCache = fake, filepath.Join(dir, "cache")

	fire := make(chan time.Time, 1)
	asked := make(chan time.Duration, 1)
	prepareRenderer(lim, func(d time.Duration) <-chan time.Time { asked <- d; return fire })
	if d := <-asked; d != document.DefaultPrepareAfter {
		t.Fatalf("waits %v, want %v", d, document.DefaultPrepareAfter)
	}
	if _, err := os.Stat(called); !os.IsNotExist(err) {
		t.Fatalf("the renderer ran before its time: %v", err)
	}
	fire <- time.Now()
	deadline := time.Now().Add(time.Minute)
	var got []byte
	for len(got) == 0 && time.Now().Before(deadline) {
		got, _ = os.ReadFile(called)
		time.Sleep(10 * time.Millisecond) // polling a file the child writes
	}
	if !strings.HasPrefix(string(got), "-prepare -cache "+lim.RendererCache+" ") {
		t.Fatalf("the renderer ran with %q", got)
	}

	off := lim
	off.PrepareAfter = -1
	prepareRenderer(off, func(time.Duration) <-chan time.Time { t.Error("waits when off"); return nil })
}
