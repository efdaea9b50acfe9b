package main

import (
	"io"
	"time"
)

// watchStdin returns what the renderer serves from: stdin, read by a
// goroutine that stays blocked on it while a page is drawn, so that it
// learns at once when stdin ends. The console holds the only write end of
// that pipe; it closes it to stop the renderer, and the system closes it
// when the console exits or is killed, on Linux, Windows and macOS alike.
// When stdin ends, the requests already read are still served (a pipeline
// of requests ending in EOF is answered whole), but the process exits
// (through exit) once limit has passed: a renderer whose console is gone
// never draws on for ever. Linux also kills it at once with
// PR_SET_PDEATHSIG (internal/document/pdf_linux.go).
func watchStdin(stdin io.Reader, limit time.Duration, exit func(int)) io.Reader {
	if limit <= 0 {
		limit = 10 * time.Second
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, stdin)
		pw.CloseWithError(err) // nil: Serve reads EOF after the last request
		time.AfterFunc(limit, func() { exit(exitOrphan) })
	}()
	return pr
}
