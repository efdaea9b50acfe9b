package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// The bytes of a replacement go when its action ends, however it ends:
// the triggers of migration 00003 do it, so the test ends actions with
// plain SQL, as any code path might.
func TestReplacementBytesAreDeletedWhenTheActionEnds(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	var items []policy.Item
	for _, id := range []string{"i-done", "i-failed", "i-cancelled", "i-unknown"} {
		items = append(items, policy.Item{ID: id, BatchID: "b1", Kind: policy.KindIDDocument, FileName: "x.jpg",
			MediaType: "image/jpeg", Status: policy.StatusError, ErrorCode: policy.CodeDecodeFailed,
			ReportedCode: "DECODE_FAILED", UpdatedAt: now})
	}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{{ID: "b1", CustomerRef: "C", CreatedAt: now, UpdatedAt: now, Items: items}}); err != nil {
		t.Fatal(err)
	}
	file := []byte("%PDF-1.7 an identity document")
	sum := sha256.Sum256(file)
	allow := func(policy.Situation) error { return nil }
	ids := map[string]int64{}
	for _, it := range items {
		a, err := db.Outbox.CreateAction(ctx, Action{ItemID: it.ID, Kind: policy.ActionReplacement, Key: "k-" + it.ID,
			Reviewer: "ana", FileName: "new.pdf"}, file, allow)
		if err != nil {
			t.Fatal(err)
		}
		ids[it.ID] = a.ID
		d, err := db.Files.ActionFileDigest(ctx, a.ID)
		if err != nil || !d.Held || d.Size != int64(len(file)) || d.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("on creation: %+v %v", d, err)
		}
	}
	for id, state := range map[string]string{"i-done": "done", "i-failed": "failed", "i-cancelled": "cancelled", "i-unknown": "unknown"} {
		if _, err := db.db.ExecContext(ctx, `UPDATE actions SET state = ? WHERE id = ?`, state, ids[id]); err != nil {
			t.Fatal(err)
		}
	}
	for id, aid := range ids {
		d, err := db.Files.ActionFileDigest(ctx, aid)
		if err != nil || d.SHA256 != hex.EncodeToString(sum[:]) || d.Size != int64(len(file)) {
			t.Fatalf("%s: the digest must stay: %+v %v", id, d, err)
		}
		// A failed replacement ran nothing: its file stays for "upload
		// it again" until discarded or the retention ends.
		if d.Held != (id == "i-unknown" || id == "i-failed") {
			t.Fatalf("%s: held %v", id, d.Held)
		}
	}
	// The audit says so, with the hash.
	var detail string
	db.db.QueryRowContext(ctx, `SELECT detail FROM audit WHERE action_id = ? AND event = 'file deleted'`, ids["i-done"]).Scan(&detail)
	if !strings.Contains(detail, hex.EncodeToString(sum[:])) {
		t.Fatalf("audit: %q", detail)
	}
	// An action whose file is gone can never be sent again.
	if _, err := db.db.ExecContext(ctx, `UPDATE actions SET state = 'queued' WHERE id = ?`, ids["i-done"]); err == nil {
		t.Fatal("a replacement without its file was re-opened")
	}
	// The retention removes a failed one's file, and says so in the audit.
	if n, err := db.Files.PurgeKeptFiles(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("purged %d (%v): the file failed just now", n, err)
	}
	if n, err := db.Files.PurgeKeptFiles(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	if d, _ := db.Files.ActionFileDigest(ctx, ids["i-failed"]); d.Held || d.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("after the retention: %+v", d)
	}
	if d, _ := db.Files.ActionFileDigest(ctx, ids["i-unknown"]); !d.Held {
		t.Fatal("the retention took the file of an open action")
	}
	detail = ""
	db.db.QueryRowContext(ctx, `SELECT detail FROM audit WHERE action_id = ? AND event = 'file deleted'`, ids["i-failed"]).Scan(&detail)
	if !strings.Contains(detail, "retention") || !strings.Contains(detail, hex.EncodeToString(sum[:])) {
		t.Fatalf("audit: %q", detail)
	}
	// Still sendable while unknown: the bytes are there.
	if data, err := db.Outbox.ActionFile(ctx, ids["i-unknown"]); err != nil || string(data) != string(file) {
		t.Fatalf("unknown: %q %v", data, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenTightensAnExistingCacheAndItsWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	first, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// A write makes the -wal and -shm exist while first is open.
	if err := first.Sync.SetLastSync(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	second, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", p, fi.Mode(), err)
		}
	}
}
