package cli_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
)

// ageCache makes every batch of the cache at path look untouched since
// the epoch, as if the period had passed (the cache's clock is the wall
// clock; a test does not wait 30 days).
func ageCache(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE batches SET touched_at = 0`); err != nil {
		t.Fatal(err)
	}
}

func rawCount(t *testing.T, path, q string) int {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPurgeForgetsSettledBatchesNobodyTouched: a fresh sync is touched
// now, so nothing goes; once the period passed, the batches with no item
// that needs the reviewer and no open action go, with their items, each
// named on stdout and with one audit line; a batch with a queued action,
// or an item in error, stays; --dry-run changes nothing.
func TestPurgeForgetsSettledBatchesNobodyTouched(t *testing.T) {
	h := newHarness(t)
	path := h.env["REVIEWER_DB"]
	h.want(0, "sync")
	out, _ := h.want(0, "purge")
	if !strings.HasPrefix(out, "Removed 0 batches (0 items) that nobody touched for 720h0m0s") {
		t.Fatalf("purge of a fresh sync: %q", out)
	}
	var items []struct {
		ID      string `json:"id"`
		BatchID string `json:"batch_id"`
		Status  string `json:"status"`
	}
	out, _ = h.want(0, "items", "--json")
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	all := map[string]bool{}
	var queuedOn string
	for _, it := range items {
		all[it.BatchID] = true
		if it.Status == "error" {
			held[it.BatchID] = true
		}
	}
	// An unsent note holds its item's batch: the service is away, so it
	// stays queued (exit 5).
	for _, it := range items {
		if !held[it.BatchID] {
			queuedOn = it.BatchID
			h.env["REVIEWER_API_URL"] = closedPort(t)
			h.want(5, "note", it.ID, "call the customer first")
			h.env["REVIEWER_API_URL"] = h.srv.URL()
			held[it.BatchID] = true
			break
		}
	}
	if queuedOn == "" || len(held) == len(all) {
		t.Fatalf("the demo data has no batch to hold with a note, or none to purge (%d held of %d)", len(held), len(all))
	}
	ageCache(t, path)
	want := len(all) - len(held)
	out, _ = h.want(0, "purge", "--dry-run")
	if !strings.HasPrefix(out, fmt.Sprintf("Would remove %d batches", want)) || strings.Count(out, "\n") != want+1 {
		t.Fatalf("dry run: %q, want %d batches", out, want)
	}
	if n := rawCount(t, path, `SELECT COUNT(*) FROM batches`); n != len(all) {
		t.Fatalf("a dry run removed batches: %d left of %d", n, len(all))
	}
	out, _ = h.want(0, "purge")
	if !strings.HasPrefix(out, fmt.Sprintf("Removed %d batches", want)) {
		t.Fatalf("purge: %q", out)
	}
	for b := range all {
		if held[b] == strings.Contains(out, b) {
			t.Fatalf("batch %s (held %v) in the purge's report: %q", b, held[b], out)
		}
	}
	if n := rawCount(t, path, `SELECT COUNT(*) FROM batches`); n != len(held) {
		t.Fatalf("%d batches left, want the %d held", n, len(held))
	}
	if n := rawCount(t, path, `SELECT COUNT(*) FROM audit WHERE event = 'batch removed by retention' AND item_id IS NULL`); n != want {
		t.Fatalf("%d audit lines for %d removed batches", n, want)
	}
	if n := rawCount(t, path, `SELECT COUNT(*) FROM batches WHERE id = '`+queuedOn+`'`); n != 1 {
		t.Fatalf("the batch with an unsent note was removed")
	}
	out, _ = h.want(0, "purge")
	if !strings.HasPrefix(out, "Removed 0 batches") {
		t.Fatalf("a second purge: %q", out)
	}
}

func TestPurgeRefusesABadPeriod(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		env  string
		args []string
	}{
		{"30s", []string{"purge"}},
		{"thirty days", []string{"purge"}},
		{"", []string{"purge", "--older-than", "-1h"}},
	} {
		h.env["REVIEWER_RETENTION"] = c.env
		_, errs := h.want(2, c.args...)
		if !strings.Contains(errs, "REVIEWER_RETENTION") && !strings.Contains(errs, "--older-than") {
			t.Fatalf("%v: %q", c, errs)
		}
	}
}

// purge applies the retention of the documents kept for offline review
// too: a dry run names them and removes nothing; --older-than 0s removes
// every kept document.
func TestPurgeRemovesKeptDocuments(t *testing.T) {
	keyring.MockInit()
	h := newHarness(t)
	h.want(0, "sync")
	batch := batchOfItem(t, h, "itm_0001_01")
	h.want(0, "keep", batch)
	dir := keptdocs.Dir(h.env["REVIEWER_DB"])
	files := func() int { ents, _ := os.ReadDir(dir); return len(ents) }
	kept := files()
	if kept == 0 {
		t.Fatal("keep kept nothing")
	}
	// Within their retention (336h) and of a batch that needs the
	// reviewer, nothing of them goes.
	if out, _ := h.want(0, "purge"); !strings.Contains(out, "0 documents kept for offline review") || files() != kept {
		t.Fatalf("purge at the retention: %q, %d of %d files left", out, files(), kept)
	}
	want := fmt.Sprintf("%d documents kept for offline review", kept)
	if out, _ := h.want(0, "purge", "--older-than", "0s", "--dry-run"); !strings.Contains(out, want) || files() != kept {
		t.Fatalf("dry run: %q, %d of %d files left", out, files(), kept)
	}
	if out, _ := h.want(0, "purge", "--older-than", "0s"); !strings.Contains(out, want) || files() != 0 {
		t.Fatalf("purge --older-than 0s: %q, %d files left", out, files())
	}
}
