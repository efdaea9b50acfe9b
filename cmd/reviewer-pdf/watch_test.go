package main

import (
	"bufio"
	"io"
	"os"
	"testing"
	"time"
)

// A renderer whose console is gone (its stdin ended) while it draws a page
// exits on its time limit, on every system: the requests it read before
// are still whole. The stdin is a real pipe, closed as the system closes
// it when the console dies.
func TestTheRendererEndsWhenItsStdinEndsMidPage(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	exited := make(chan int, 1)
	in := bufio.NewReader(watchStdin(r, 50*time.Millisecond, func(code int) { exited <- code }))
	if _, err := w.Write([]byte("pages 3\n%PD")); err != nil {
		t.Fatal(err)
	}
	if line, err := in.ReadString('\n'); err != nil || line != "pages 3\n" {
		t.Fatalf("read %q %v", line, err)
	}
	body := make([]byte, 3)
	if _, err := io.ReadFull(in, body); err != nil || string(body) != "%PD" {
		t.Fatalf("read %q %v", body, err)
	}
	select {
	case code := <-exited:
		t.Fatalf("exited (%d) while its stdin was open", code)
	default:
	}
	// The console dies while the page is drawn: nothing reads in.
	w.Close()
	select {
	case code := <-exited:
		if code != exitOrphan {
			t.Fatalf("exit %d, want %d", code, exitOrphan)
		}
	case <-time.After(time.Minute):
		t.Fatal("the renderer went on drawing after its stdin ended")
	}
	// What was read before the end is whole, and then it ends.
	if _, err := in.ReadByte(); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
}
