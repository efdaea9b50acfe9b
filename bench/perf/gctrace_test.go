package main

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain doubles as the child of TestStderrLogReadsTheLiveHeapOfARealProcess:
// a process that holds a known amount of Go memory through collections.
func TestMain(m *testing.M) {
	if os.Getenv("GCTRACE_CHILD") == "1" {
		held := make([][]byte, 24)
		for i := range held {
			held[i] = make([]byte, 1<<20)
			held[i][0] = 1
		}
		runtime.GC()
		runtime.GC()
		// The runtime prints a collection's line in pieces, after
		// runtime.GC has returned, and a line the program writes meanwhile
		// falls in the middle of it: the child waits for the parent, which
		// has read both, to close its input, then says its own line.
		io.Copy(io.Discard, os.Stdin)
		os.Stderr.WriteString("child: held 24 MB\n")
		runtime.KeepAlive(held)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The runtime's own trace, from a real process that holds 24 MB live
// across two collections: the log reads each collection's live heap, and
// keeps the process's other words apart from them.
func TestStderrLogReadsTheLiveHeapOfARealProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GCTRACE_CHILD=1", "GODEBUG=gctrace=1")
	log := &stderrLog{}
	cmd.Stderr = log
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	forced := func() int {
		log.mu.Lock()
		defer log.mu.Unlock()
		n := 0
		for _, ev := range log.gcs {
			if ev.forced {
				n++
			}
		}
		return n
	}
	for start := time.Now(); forced() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the child's two forced collections not read in 30 s: %q", log.String())
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v: %s", err, log.String())
	}
	live, n, err := log.leastLive(from, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(log.gcs) || n < 2 {
		t.Fatalf("%d collections counted of %d read, want all, and the child's 2 forced ones at least", n, len(log.gcs))
	}
	// The child's two forced collections ran with the 24 MB held; those
	// before (the start, the allocations) with less.
	least := log.gcs[0].liveMB
	for _, ev := range log.gcs {
		least = min(least, ev.liveMB)
	}
	for _, ev := range log.gcs {
		if ev.forced && (ev.liveMB < 24 || ev.liveMB > 40) {
			t.Errorf("live heap %v MB at a forced collection, want the 24 MB the child held (and little more)", ev.liveMB)
		}
	}
	if live != least {
		t.Errorf("leastLive %v MB, want the least of the collections, %v", live, least)
	}
	text := log.String()
	if !strings.Contains(text, "child: held 24 MB") {
		t.Errorf("the child's own line is lost: %q", text)
	}
	if strings.Contains(text, "gc ") {
		t.Errorf("collections left in the text: %q", text)
	}
	// No collection after the child ended: an error, not a figure.
	if _, _, err := log.leastLive(time.Now(), 200*time.Millisecond); err == nil {
		t.Error("a figure without a collection")
	}
}

func TestParseGC(t *testing.T) {
	for _, tc := range []struct {
		line string
		live float64
		ok   bool
	}{
		{"gc 12 @3.401s 1%: 0.018+1.2+0.003 ms clock, 0.036+0.10/0.38/0.19+0.007 ms cpu, 31->33->14 MB, 36 MB goal, 0 MB stacks, 0 MB globals, 2 P", 14, true},
		{"gc 1 @0.005s 3%: 0.011+0.41+0.002 ms clock, 0.022+0.05/0.2/0+0.005 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)", 0, true},
		{"gc 5 @0.010s 7", 0, false}, // cut short
		{"scvg: 0 MB released", 0, false},
		{"gcx 1 @0.005s 3%: 4->4->0 MB", 0, false},
		{"reviewer: gc 1 @0.005s 3%: 4->4->0 MB", 0, false},
	} {
		ev, ok := parseGC(tc.line)
		if ok != tc.ok || ev.liveMB != tc.live {
			t.Errorf("parseGC(%q) = %v, %v; want %v, %v", tc.line, ev.liveMB, ok, tc.live, tc.ok)
		}
	}
}
