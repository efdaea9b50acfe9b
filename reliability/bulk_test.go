package reliability

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// bulkCount is how many actions the large bulk confirmation queues
// (RELIABILITY_BULK_COUNT; 260,870, the retryable items of the hostile
// run's million-item cache: about a minute on 2 quiet cores), and bulkItems
// how many items the cache holds (RELIABILITY_BULK_ITEMS; a million, the
// rest scored).
func bulkCount(t *testing.T) (n, items int) {
	n, items = 260_870, 1_000_000
	for _, v := range []struct {
		name string
		dst  *int
	}{{"RELIABILITY_BULK_COUNT", &n}, {"RELIABILITY_BULK_ITEMS", &items}} {
		if s := os.Getenv(v.name); s != "" {
			var err error
			if *v.dst, err = strconv.Atoi(s); err != nil || *v.dst < 1000 {
				t.Fatalf("%s=%q: want a count of at least 1000", v.name, s)
			}
		}
	}
	return n, max(items, n)
}

// bulkPeakMB is the most memory (peak RSS) a bulk confirmation of any
// count may take.
const bulkPeakMB = 100

// The 1M-item bulk confirmation (make reliability): a process confirms a
// bulk re-submission of a large count while another one adds a note on the
// same cache. The note is queued (exit 5: the API is down), never refused
// with "database is locked"; the run ends with exactly one action per item,
// all queued, and the run holding all of them, its peak memory under
// bulkPeakMB. Nothing in it waits on a fixed time that a loaded machine
// outgrows: the run's reads of the cache have no network deadline.
func TestALargeBulkConfirmationLetsANoteIn(t *testing.T) {
	if !full {
		t.Skip("the large bulk confirmation runs with RELIABILITY=full (make reliability)")
	}
	n, total := bulkCount(t)
	dir := t.TempDir()
	c := newConsole(t, dir, "http://127.0.0.1:1") // closed: nothing is sent, everything stays queued
	fillRetryable(t, c.db(), n, total)
	raw, err := sql.Open("sqlite3", "file:"+c.db()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	var out, errb bytes.Buffer
	bulk := c.child("resubmit", "--retryable", "--yes", "--max", strconv.Itoa(n))
	bulk.Stdout, bulk.Stderr = &out, &errb
	start := time.Now()
	if err := bulk.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- bulk.Wait() }()

	// The moment the confirmation has queued its first chunk and goes on.
	held := func() (int, int) {
		var h, confirmed int
		raw.QueryRow(`SELECT COALESCE(MAX(held), 0), COALESCE(MAX(confirmed), 0) FROM bulk_runs`).Scan(&h, &confirmed)
		return h, confirmed
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(settle)
	for h, _ := held(); h == 0; h, _ = held() {
		select {
		case err := <-exited:
			t.Fatalf("the bulk run ended before it queued anything: %v\n%s\n%.2000s", err, errb.String(), out.String())
		case <-deadline:
			t.Fatal("the bulk run queued nothing in time")
		case <-tick.C:
		}
	}
	item := "itm_000000_0"
	noteStart := time.Now()
	r := c.run("note", item, "called the customer")
	waited := time.Since(noteStart)
	during, confirmed := held()
	if r.code != 5 || !strings.Contains(r.stderr, "queued") || strings.Contains(r.stderr, "database is locked") ||
		strings.Contains(r.stderr, string(policy.CodeInternal)) {
		t.Fatalf("the note during the confirmation: %s", r)
	}
	if during >= confirmed {
		t.Fatalf("the run had queued all %d actions when the note was in: the test proves nothing; raise RELIABILITY_BULK_COUNT", confirmed)
	}
	select {
	case err := <-exited:
		if code := bulk.ProcessState.ExitCode(); code != 5 {
			t.Fatalf("the bulk run: exit %d (%v)\nstderr: %s", code, err, errb.String())
		}
	case <-time.After(10 * settle):
		bulk.Process.Kill()
		t.Fatal("the bulk run did not end")
	}
	took := time.Since(start)
	// The confirmation's memory is flat in the count: what it holds per
	// action is streamed or chunked, never a slice of the whole run.
	peakMB := 0.0
	if ru, ok := bulk.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peakMB = float64(ru.Maxrss) / 1024
	}
	if peakMB <= 0 || peakMB >= bulkPeakMB {
		t.Errorf("the bulk run's peak memory: %.0f MB, want under %d MB at any count (%d actions)", peakMB, bulkPeakMB, n)
	}

	var actions, items, queued, runs, heldAll int
	if err := raw.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT item_id), SUM(state = 'queued') FROM actions`).Scan(&actions, &items, &queued); err != nil {
		t.Fatal(err)
	}
	raw.QueryRow(`SELECT COUNT(*), MAX(held) FROM bulk_runs`).Scan(&runs, &heldAll)
	if actions != n || items != n || queued != n || runs != 1 || heldAll != n {
		t.Fatalf("after the run: %d actions on %d items, %d queued, %d runs holding %d; want %d of each and one run", actions, items, queued, runs, heldAll, n)
	}
	var notes int
	raw.QueryRow(`SELECT COUNT(*) FROM notes WHERE item_id = ? AND state = 'queued'`, item).Scan(&notes)
	if notes != 1 {
		t.Fatalf("%d notes queued, want 1", notes)
	}
	line := fmt.Sprintf("the large bulk confirmation: %d actions confirmed and queued in %v (plan, confirmation and report), peak memory %.0f MB; a note from another process queued after waiting %v, with %d of %d queued; one action per item: ok\n",
		n, took.Round(100*time.Millisecond), peakMB, waited.Round(time.Millisecond), during, n)
	t.Log(line)
	if path := os.Getenv("RELIABILITY_REPORT"); path != "" {
		if f, err := os.OpenFile(path+".bulk", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
}

// fillRetryable writes total items into the cache at path, in batches of
// 10, through the store: the first n in error with a code a re-run may
// help, the rest scored.
func fillRetryable(t *testing.T, path string, n, total int) {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)
	var page []policy.Batch
	score := 12
	for b := 0; b*10 < total; b++ {
		id := fmt.Sprintf("bat_%06d", b)
		bt := policy.Batch{ID: id, CustomerRef: "CUST-" + id, CreatedAt: at, UpdatedAt: at}
		for k := 0; k < 10 && b*10+k < total; k++ {
			iid := fmt.Sprintf("itm_%06d_%d", b, k)
			it := policy.Item{ID: iid, BatchID: id, Kind: policy.KindSelfie, FileName: iid + ".jpg",
				MediaType: "image/jpeg", Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout,
				ReportedCode: string(policy.CodeClassifierTimeout), Attempt: 1, UpdatedAt: at}
			if b*10+k >= n {
				it.Status, it.ErrorCode, it.ReportedCode = policy.StatusScored, "", ""
				it.RiskScore, it.Recommendation = &score, policy.RecommendForward
			}
			bt.Items = append(bt.Items, it)
		}
		if page = append(page, bt); len(page) == 500 {
			if _, err := db.Sync.ApplyPage(context.Background(), page); err != nil {
				t.Fatal(err)
			}
			page = nil
		}
	}
	if _, err := db.Sync.ApplyPage(context.Background(), page); err != nil {
		t.Fatal(err)
	}
}
