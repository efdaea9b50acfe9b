package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// An "at or after" sync gets the batches of the position's own instant
// again: the cache recognises them and writes nothing, and still writes
// anything new or changed beside them.
func TestApplyPageSkipsBatchesItHolds(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	t1 := t0.Add(time.Minute)
	b1 := batchOf("b1", t0, scored("i1", "b1", 10, t0))
	b2 := batchOf("b2", t1, scored("i2", "b2", 20, t1), failed("i3", "b2", policy.CodeDecodeFailed, t1))
	if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{b1, b2}); err != nil || n.Batches != 2 || n.Items != 3 || n.Held != 0 {
		t.Fatalf("first page %+v %v", n, err)
	}
	if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{b2}); err != nil || n.Held != 1 || n.HeldItems != 2 || n.Batches != 0 || n.Items != 0 {
		t.Fatalf("the newest batch again: %+v %v", n, err)
	}
	b3 := batchOf("b3", t1.Add(time.Second), scored("i4", "b3", 30, t1.Add(time.Second)))
	if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{b3, b2}); err != nil || n.Held != 1 || n.Batches != 1 || n.Items != 1 ||
		len(n.HeldIndexes) != 1 || n.HeldIndexes[0] != 1 { // where in the page: b2 is second
		t.Fatalf("held and new: %+v %v", n, err)
	}
	// The same instant with a different state is a change, not a repeat.
	changed := batchOf("b2", t1, scored("i2", "b2", 21, t1), failed("i3", "b2", policy.CodeDecodeFailed, t1))
	if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{changed}); err != nil || n.Held != 0 || n.Items != 1 {
		t.Fatalf("changed at the same instant: %+v %v", n, err)
	}
	// So is an item added at the same instant.
	grown := batchOf("b2", t1, append(changed.Items, scored("i5", "b2", 50, t1))...)
	if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{grown}); err != nil || n.Held != 0 || n.Items != 1 {
		t.Fatalf("grown at the same instant: %+v %v", n, err)
	}
	// An older state of a batch neither counts as held nor rolls it back.
	if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b3", t0, scored("i4", "b3", 99, t0))}); err != nil || n.Held != 0 || n.Batches != 0 || n.Items != 0 {
		t.Fatalf("older state: %+v %v", n, err)
	}
	if pos, _ := db.Sync.SyncPosition(ctx); !pos.Equal(t1.Add(time.Second)) {
		t.Fatalf("position %v", pos)
	}
}

// Every part of an item's state that the upsert compares at the same
// instant also makes a batch not "held": the check reads each value by
// name, so a column added to the item never shifts what it compares.
func TestASameInstantChangeOfAnyComparedValueIsNotHeld(t *testing.T) {
	at := t0.Add(time.Minute)
	base := func() policy.Item {
		it := failed("i1", "b1", policy.CodeDecodeFailed, at)
		it.Problem, it.Revision = "", 3
		it.Claim = &policy.Claim{Reviewer: "ana", ExpiresAt: at.Add(time.Hour)}
		return it
	}
	changes := map[string]func(*policy.Item){
		"status": func(it *policy.Item) { *it = scored("i1", "b1", 10, at); it.Revision = 3 },
		"error code": func(it *policy.Item) {
			it.ErrorCode, it.ReportedCode = policy.CodeClassifierTimeout, "CLASSIFIER_TIMEOUT"
		},
		"reported code":  func(it *policy.Item) { it.ReportedCode = "DECODE_FAILED_V2" },
		"attempt":        func(it *policy.Item) { it.Attempt = 2 },
		"revision":       func(it *policy.Item) { it.Revision = 4 },
		"claim reviewer": func(it *policy.Item) { it.Claim.Reviewer = "ben" },
		"claim expiry":   func(it *policy.Item) { it.Claim.ExpiresAt = at.Add(2 * time.Hour) },
		"claim released": func(it *policy.Item) { it.Claim = nil },
		"invalid, problem": func(it *policy.Item) {
			it.Status, it.ErrorCode, it.Problem = policy.StatusInvalid, policy.CodeInvalidResponse, "no score"
		},
	}
	for what, change := range changes {
		t.Run(what, func(t *testing.T) {
			db := MustOpenDB(t)
			ctx := context.Background()
			if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", at, base())}); err != nil {
				t.Fatal(err)
			}
			if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", at, base())}); err != nil || n.Held != 1 {
				t.Fatalf("the same batch again is not held: %+v %v", n, err)
			}
			it := base()
			change(&it)
			if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", at, it)}); err != nil || n.Held != 0 || n.Items != 1 {
				t.Fatalf("a changed %s at the same instant: %+v %v", what, n, err)
			}
		})
	}
}

func TestApplyPageWritesNothingOnceCancelled(t *testing.T) {
	db := MustOpenDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, scored("i1", "b1", 10, t0))})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if nb, ni, _ := db.Items.Counts(context.Background()); nb != 0 || ni != 0 {
		t.Fatalf("a cancelled page wrote %d batches %d items", nb, ni)
	}
}

func TestEachItemStreamsTheListingInOrder(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	var page []policy.Batch
	for b := range 30 {
		id := fmt.Sprintf("b%02d", b)
		at := t0.Add(time.Duration(b) * time.Second)
		bt := batchOf(id, at)
		for k := range 4 {
			iid := fmt.Sprintf("%s_%d", id, k)
			if k%2 == 0 {
				bt.Items = append(bt.Items, failed(iid, id, policy.CodeClassifierTimeout, at))
			} else {
				bt.Items = append(bt.Items, scored(iid, id, k, at))
			}
		}
		page = append(page, bt)
	}
	if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
		t.Fatal(err)
	}
	for _, f := range []store.ItemFilter{{}, {NeedsAction: true}, {Status: policy.StatusScored, SortBy: "score", Desc: true},
		{Search: "b07"}, {BatchID: "b03"}, {Limit: 7, Offset: 5}} {
		all, err := db.Items.Items(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		err = db.Items.EachItem(ctx, f, func(r store.ItemRow) error {
			if i >= len(all) || r.ID != all[i].ID {
				return fmt.Errorf("row %d is %s", i, r.ID)
			}
			i++
			return nil
		})
		if err != nil || i != len(all) || len(all) == 0 {
			t.Fatalf("%+v: %d of %d rows: %v", f, i, len(all), err)
		}
		if f.Limit == 0 {
			if n, err := db.Items.CountItems(ctx, f); err != nil || n != len(all) {
				t.Fatalf("%+v: count %d, listed %d: %v", f, n, len(all), err)
			}
		}
	}
	// A page of a listing is a slice of the whole, in the same order.
	all, _ := db.Items.Items(ctx, store.ItemFilter{NeedsAction: true})
	pg, _ := db.Items.Items(ctx, store.ItemFilter{NeedsAction: true, Limit: 10, Offset: 20})
	if len(pg) != 10 || pg[0].ID != all[20].ID || pg[9].ID != all[29].ID {
		t.Fatalf("page %d rows", len(pg))
	}
	// An error from the callback stops the listing and comes back.
	stop := errors.New("stop")
	n := 0
	if err := db.Items.EachItem(ctx, store.ItemFilter{}, func(store.ItemRow) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("stopped after %d rows: %v", n, err)
	}
}

// Items go several to a statement; a batch of any size is written whole,
// and a repeat of it changes nothing.
func TestApplyPageWritesBatchesOfAnySize(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	for _, size := range []int{1, 10, 23} {
		id := fmt.Sprintf("b%d", size)
		bt := batchOf(id, t0.Add(time.Duration(size)*time.Second))
		for k := range size {
			bt.Items = append(bt.Items, scored(fmt.Sprintf("%s_%02d", id, k), id, k, bt.UpdatedAt))
		}
		if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{bt}); err != nil || n.Items != size {
			t.Fatalf("size %d: %+v %v", size, n, err)
		}
		rows, _ := db.Items.Items(ctx, store.ItemFilter{BatchID: id})
		if len(rows) != size || *rows[size-1].RiskScore != size-1 {
			t.Fatalf("size %d: %d rows stored", size, len(rows))
		}
		bt.Items[size-1] = scored(bt.Items[size-1].ID, id, 99, bt.UpdatedAt.Add(time.Second))
		bt.UpdatedAt = bt.UpdatedAt.Add(time.Second)
		if n, err := db.Sync.ApplyPage(ctx, []policy.Batch{bt}); err != nil || n.Items != 1 {
			t.Fatalf("size %d, one item changed: %+v %v", size, n, err)
		}
	}
}

// A migration that lands after a higher-numbered one (each helper has its
// own number) still applies to a cache that already took the higher one.
func TestAMigrationThatLandsLateStillApplies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	// As a cache made before 00005 existed: without it, its index still there.
	if _, err := raw.Exec(`DELETE FROM goose_db_version WHERE version_id = 5;
		CREATE INDEX items_status ON items(status, error_code)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err = store.Open(path)
	if err != nil {
		t.Fatalf("a cache without 00005: %v", err)
	}
	db.Close()
	raw, _ = sql.Open("sqlite3", path)
	defer raw.Close()
	var n int
	raw.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'items_status'`).Scan(&n)
	if n != 0 {
		t.Fatal("00005 did not run")
	}
}
