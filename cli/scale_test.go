package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// fillCache writes n items in error (a code a re-run may help) into the
// harness's cache, in batches of 10, straight through the store.
func (h *harness) fillCache(n int) {
	h.t.Helper()
	db, err := store.Open(h.env["REVIEWER_DB"])
	if err != nil {
		h.t.Fatal(err)
	}
	defer db.Close()
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
	var page []policy.Batch
	for b := 0; b*10 < n; b++ {
		id := fmt.Sprintf("bat_%06d", b)
		bt := policy.Batch{ID: id, CustomerRef: "CUST-" + id, CreatedAt: at, UpdatedAt: at}
		for k := 0; k < 10 && b*10+k < n; k++ {
			iid := fmt.Sprintf("itm_%06d_%d", b, k)
			bt.Items = append(bt.Items, policy.Item{ID: iid, BatchID: id, Kind: policy.KindSelfie, FileName: iid + ".jpg",
				MediaType: "image/jpeg", Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout,
				ReportedCode: string(policy.CodeClassifierTimeout), Attempt: 1, UpdatedAt: at})
		}
		if page = append(page, bt); len(page) == 200 {
			if _, err := db.Sync.ApplyPage(context.Background(), page); err != nil {
				h.t.Fatal(err)
			}
			page = nil
		}
	}
	if _, err := db.Sync.ApplyPage(context.Background(), page); err != nil {
		h.t.Fatal(err)
	}
}

// liveHeapAtFirstWrite is stdout that measures, at its first write, the
// heap still in use (after a collection): a listing that streams has
// written its first rows holding a bounded look-ahead; one that collects
// every row first holds all of them by then.
type liveHeapAtFirstWrite struct {
	mu    sync.Mutex
	out   bytes.Buffer
	first uint64
	seen  bool
}

func (w *liveHeapAtFirstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen {
		w.seen = true
		w.first = liveHeap()
	}
	return w.out.Write(p)
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The plain table, the needs-action listing and a bulk dry run stream with
// flat memory, as --json does: at 40,000 items each has written its first
// rows before it holds more than a few megabytes (holding every row was
// 2 GB at a million items).
func TestListingsStreamWithFlatMemory(t *testing.T) {
	const n = 40000
	h := newHarness(t)
	h.fillCache(n)
	for _, args := range [][]string{
		{"items"},
		{"items", "--needs-action"},
		{"resubmit", "--retryable", "--dry-run"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			before := liveHeap()
			w := &liveHeapAtFirstWrite{}
			var errb bytes.Buffer
			code := cli.Run(args, cli.Env{Stdout: w, Stderr: &errb,
				Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok }})
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if rows := strings.Count(w.out.String(), "itm_"); rows < n {
				t.Fatalf("%d rows of %d", rows, n)
			}
			grew := int64(w.first) - int64(before)
			t.Logf("live heap at the first write: %+d KiB", grew>>10)
			if grew > 3<<20 {
				t.Fatalf("the heap grew by %d MiB before the first row was written: the listing is held, not streamed", grew>>20)
			}
		})
	}
}

// The streamed table lays out a listing that fits its look-ahead exactly as
// text/tabwriter did, and keeps the columns of a longer one aligned.
func TestTheStreamedTableIsAligned(t *testing.T) {
	h := newHarness(t)
	h.fillCache(2500)
	out, _ := h.want(0, "items")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2501 {
		t.Fatalf("%d lines", len(lines))
	}
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
	for _, l := range lines {
		fmt.Fprintln(tw, strings.Join(strings.Fields(l), "\t"))
	}
	tw.Flush()
	if want.String() != out {
		t.Fatalf("not aligned as one table:\n%.600s", out)
	}
	small := newHarness(t)
	small.want(0, "sync")
	out, _ = small.want(0, "items")
	want.Reset()
	tw = tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		fmt.Fprintln(tw, strings.Join(strings.Fields(l), "\t"))
	}
	tw.Flush()
	if want.String() != out {
		t.Fatalf("the small table changed:\n%.600s", out)
	}
}

// A bulk run over the bulk limit (REVIEWER_BULK_MAX) needs --max N of at
// least its count on top of --yes; nothing is queued without it.
func TestABulkRunOverTheLimitNeedsItsCount(t *testing.T) {
	h := newHarness(t)
	h.fillCache(30)
	h.env["REVIEWER_BULK_MAX"] = "20"
	_, errs := h.want(2, "resubmit", "--retryable", "--yes")
	if !strings.Contains(errs, "--max 30") || !strings.Contains(errs, "bulk limit of 20") {
		t.Fatalf("refusal: %s", errs)
	}
	_, errs = h.want(2, "resubmit", "--retryable", "--yes", "--max", "29")
	if !strings.Contains(errs, "acts on 30 items") {
		t.Fatalf("a --max below the count: %s", errs)
	}
	out, _ := h.want(0, "resubmit", "--retryable", "--dry-run")
	if !strings.Contains(out, "add --max 30") || !strings.Contains(out, "dry run: nothing queued") {
		t.Fatalf("dry run: %s", out)
	}
	if out, _ := h.want(0, "outbox"); strings.Count(out, "\n") != 1 {
		t.Fatalf("something was queued:\n%s", out)
	}
	h.want(2, "--bulk-max", "0", "resubmit", "--retryable", "--dry-run")
	h.env["REVIEWER_BULK_MAX"] = "many"
	h.want(2, "items")
	h.env["REVIEWER_BULK_MAX"] = "40"
	h.env["REVIEWER_API_URL"] = "http://127.0.0.1:1" // closed: the run stays queued
	h.want(5, "resubmit", "--retryable", "--yes")
	if out, _ := h.want(0, "outbox", "--json"); strings.Count(out, `"kind": "resubmit"`) != 30 {
		t.Fatalf("want 30 queued:\n%.300s", out)
	}
}

// A note meeting a cache that another process keeps busy past
// REVIEWER_CACHE_WAIT says so in words and exits 8: never INTERNAL_ERROR
// with "database is locked" and exit 1.
func TestANoteIntoABusyCacheSaysSo(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	item := h.srv.FindCode("DECODE_FAILED")
	raw, err := sql.Open("sqlite3", "file:"+h.env["REVIEWER_DB"]+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	holder, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	h.env["REVIEWER_CACHE_WAIT"] = "200ms"
	_, errs := h.want(cli.ExitCacheBusy, "note", item, "seen it")
	if strings.Contains(errs, "database is locked") || strings.Contains(errs, "INTERNAL_ERROR") || !strings.Contains(errs, "CACHE_BUSY") ||
		!strings.Contains(errs, "nothing was written") {
		t.Fatalf("stderr: %s", errs)
	}
	holder.Rollback()
	h.want(5, "--api", "http://127.0.0.1:1", "note", item, "seen it") // free again: queued
}
