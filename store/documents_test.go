package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

func withFiles(it policy.Item, n int) policy.Item {
	it.FilesOffered = true
	it.Files = nil
	for v := 1; v <= n; v++ {
		it.Files = append(it.Files, policy.FileVersion{Version: v, FileName: it.FileName, MediaType: it.MediaType,
			SizeBytes: int64(1000 * v), UploadedAt: t0.Add(time.Duration(v) * time.Hour)})
	}
	return it
}

// The cache keeps an item's file versions and, for each, the result it
// recorded while that version was the newest: the first file's error stays
// beside the replacement's score.
func TestFileVersionsKeepTheResultOfEachVersion(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	v1 := withFiles(failed("i1", "b1", policy.CodeDecodeFailed, t0), 1)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, v1)}); err != nil {
		t.Fatal(err)
	}
	// The same answer again (a later sync) records nothing new.
	again := v1
	again.UpdatedAt = t0.Add(time.Minute)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0.Add(time.Minute), again)}); err != nil {
		t.Fatal(err)
	}
	// The replacement's answer, as an action applies it.
	v2 := withFiles(scored("i1", "b1", 62, t0.Add(2*time.Hour)), 2)
	if err := db.Sync.ApplyItem(ctx, v2, "ana", "", ""); err != nil {
		t.Fatal(err)
	}
	vs, err := db.Files.FileVersions(ctx, "i1")
	if err != nil || len(vs) != 2 {
		t.Fatalf("%+v %v", vs, err)
	}
	r1, r2 := vs[0].Result, vs[1].Result
	if vs[0].Version != 1 || r1.Status != policy.StatusError || r1.ErrorCode != policy.CodeDecodeFailed || r1.RiskScore != nil || !r1.RecordedAt.Equal(t0) {
		t.Fatalf("version 1: %+v", vs[0])
	}
	if vs[1].Version != 2 || r2.Status != policy.StatusScored || r2.RiskScore == nil || *r2.RiskScore != 62 || r2.ErrorCode != "" ||
		!r2.RecordedAt.Equal(t0.Add(2*time.Hour)) || vs[1].SizeBytes != 2000 || !vs[1].UploadedAt.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("version 2: %+v", vs[1])
	}
	// An item from a 1.0 service lists nothing.
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b2", t0, scored("i2", "b2", 10, t0))}); err != nil {
		t.Fatal(err)
	}
	if vs, err := db.Files.FileVersions(ctx, "i2"); err != nil || len(vs) != 0 {
		t.Fatalf("1.0 item: %+v %v", vs, err)
	}
}

// A version whose newest result is an error or an invalid answer carries
// no score: the cache's CHECK refuses one.
func TestAVersionResultWithoutAScoreHasNone(t *testing.T) {
	db := MustOpenDB(t)
	seedOne(t, db, policy.CodeClassifierTimeout)
	err := db.Exec(context.Background(), `INSERT INTO file_versions(item_id, version, file_name, media_type, size_bytes, uploaded_at,
		status, risk_score, error_code, recorded_at) VALUES ('i1', 1, 'f.jpg', 'image/jpeg', 1, 1, 'error', 40, 'CLASSIFIER_TIMEOUT', 1)`)
	if err == nil {
		t.Fatal("an error with a score was recorded")
	}
}

// BenchmarkApplyPageWithFiles is BenchmarkApplyPage as a 1.1 service sends
// it: each item lists one file version, whose row and result are written
// too (compare the two in one run).
func BenchmarkApplyPageWithFiles(b *testing.B) {
	db := MustOpenDB(b)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		page := make([]policy.Batch, 0, 100)
		for j := 0; j < 100; j++ {
			id := fmt.Sprintf("p%07d", n)
			n++
			at := t0.Add(time.Duration(n) * time.Second)
			bt := batchOf(id, at)
			for k := 0; k < 10; k++ {
				bt.Items = append(bt.Items, withFiles(scored(fmt.Sprintf("%s_%02d", id, k), id, k, at), 1))
			}
			page = append(page, bt)
		}
		if got, err := db.Sync.ApplyPage(ctx, page); err != nil || got.Items != 1000 {
			b.Fatal(got, err)
		}
	}
}

// A file request leaves the item awaiting a file: that is the item's
// state, not a result of its newest file, whose own result (the code that
// refused it) stays recorded for it.
func TestAwaitingAFileIsNoResultOfTheFile(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	v1 := withFiles(failed("i1", "b1", policy.CodeUnsupportedMediaType, t0), 1)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, v1)}); err != nil {
		t.Fatal(err)
	}
	waiting := v1
	waiting.Status, waiting.ErrorCode, waiting.ReportedCode = policy.StatusAwaitingFile, "", ""
	waiting.UpdatedAt = t0.Add(time.Hour)
	if err := db.Sync.ApplyItem(ctx, waiting, "ana", "", ""); err != nil {
		t.Fatal(err)
	}
	vs, err := db.Files.FileVersions(ctx, "i1")
	if err != nil || len(vs) != 1 {
		t.Fatalf("%+v %v", vs, err)
	}
	if r := vs[0].Result; r.Status != policy.StatusError || r.ErrorCode != policy.CodeUnsupportedMediaType || !r.RecordedAt.Equal(t0) {
		t.Fatalf("version 1's result: %+v", r)
	}
}
