package main

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// stderrLog keeps a launched window's standard error and, when the window
// runs with GODEBUG=gctrace=1, the Go heap each collection left live. The
// runtime writes one line a collection,
//
//	gc 12 @3.401s 1%: 0.02+1.2+0.01 ms clock, …, 31->33->14 MB, 36 MB goal, …
//
// whose third figure of "a->b->c MB" is the heap marked live: what the
// program holds in Go memory at that moment, without the garbage and
// without what the allocators keep of freed pages, which the resident set
// counts (latency5). The runtime writes a line in pieces, after the
// collection: a line of the window's own written meanwhile can cut one in
// two, and that collection is then not read (a line is read only whole,
// from its "gc" to its live heap). exec's copying goroutine writes the
// log while the runner reads it, so it locks.
type stderrLog struct {
	mu      sync.Mutex
	text    strings.Builder
	partial []byte
	gcs     []gcEvent
}

// gcEvent is one collection: when its line was read, and the heap live
// after it.
type gcEvent struct {
	at     time.Time
	liveMB float64
	forced bool // runtime.GC, not the pacer
}

var gcLine = regexp.MustCompile(`^gc \d+ @[0-9.]+s .* \d+->\d+->(\d+) MB`)

func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		if ev, ok := parseGC(line); ok {
			ev.at = now
			l.gcs = append(l.gcs, ev)
			continue // a collection is not an error to report
		}
		l.text.WriteString(line)
		l.text.WriteByte('\n')
	}
	return len(p), nil
}

// parseGC reads one gctrace line.
func parseGC(line string) (gcEvent, bool) {
	m := gcLine.FindStringSubmatch(line)
	if m == nil {
		return gcEvent{}, false
	}
	live, err := strconv.Atoi(m[1])
	if err != nil {
		return gcEvent{}, false
	}
	return gcEvent{liveMB: float64(live), forced: strings.HasSuffix(line, "(forced)")}, true
}

// String is what the window wrote that was not a collection.
func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String() + string(l.partial)
}

// leastLive is the least live heap of the collections read from `from`
// on, in MB, waiting up to limit for the first of them. The least, as
// keptRSS takes the least resident set: a collection that ran while a
// page of rows was being read counts that page, which the window lets
// go of right after.
func (l *stderrLog) leastLive(from time.Time, limit time.Duration) (float64, int, error) {
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		l.mu.Lock()
		least, n := math.Inf(1), 0
		for _, ev := range l.gcs {
			if !ev.at.Before(from) {
				least, n = min(least, ev.liveMB), n+1
			}
		}
		l.mu.Unlock()
		if n > 0 {
			return least, n, nil
		}
		if time.Since(start) >= limit {
			return 0, 0, fmt.Errorf("no collection in %s (GODEBUG=gctrace=1 in the launch's environment)", limit)
		}
	}
}
