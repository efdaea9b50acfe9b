package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// A damaged page in the middle of the actions table stops a walk from its
// first row; Salvage then walks back from its last row, and returns every
// unsent action but those on the damaged page, with their keys, without
// changing the file.
func TestSalvageReadsAroundADamagedPage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	b := policy.Batch{ID: "bat_1", CustomerRef: "CUST-1", CreatedAt: t0, UpdatedAt: t0}
	const n = 300
	for i := range n {
		b.Items = append(b.Items, policy.Item{ID: fmt.Sprintf("itm_%04d", i), BatchID: "bat_1", Kind: "selfie",
			FileName: "a.jpg", MediaType: "image/jpeg", SizeBytes: 1, Status: policy.StatusError,
			ErrorCode: policy.CodeDecodeFailed, Attempt: 1, UpdatedAt: t0})
	}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{b}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: fmt.Sprintf("itm_%04d", i), Kind: policy.ActionFileRequest,
			Key: fmt.Sprintf("key-%04d", i), Reviewer: "ana", Message: fmt.Sprintf("message-%04d-only-in-the-table", i)},
			nil, func(policy.Situation) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	// The page that holds action 150's row.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := sql.Open("sqlite3", "file:"+path)
	var pageSize int
	raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	raw.Close()
	at := bytes.Index(data, []byte("message-0150-only-in-the-table"))
	if at < 0 || pageSize == 0 {
		t.Fatalf("row not found in the file (page size %d)", pageSize)
	}
	page := at / pageSize
	copy(data[page*pageSize:(page+1)*pageSize], bytes.Repeat([]byte{0xff}, pageSize))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	got, err := store.Salvage(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Problems) == 0 {
		t.Fatal("a damaged page went unnoticed")
	}
	keys := map[string]bool{}
	for i, a := range got.Actions {
		keys[a.Key] = true
		if i > 0 && a.ID <= got.Actions[i-1].ID {
			t.Fatalf("actions out of order at %d", i)
		}
	}
	if keys["key-0150"] || !keys["key-0000"] || !keys[fmt.Sprintf("key-%04d", n-1)] || len(got.Actions) < n-60 {
		t.Fatalf("salvaged %d of %d actions (first and last kept: %v %v), problems %v",
			len(got.Actions), n, keys["key-0000"], keys[fmt.Sprintf("key-%04d", n-1)], got.Problems)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, data) {
		t.Fatal("Salvage changed the file")
	}
	t.Logf("salvaged %d of %d actions around a damaged page; %v", len(got.Actions), n, got.Problems)
}
