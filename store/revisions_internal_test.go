package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// A cache made before the service's revisions reached it (before 00004,
// or synced from a 1.0 service) gets a full sync after migration 00012:
// an incremental one would leave most items at revision 0 for good.
func TestMigration12MarksAFullSyncForItemsWithoutARevision(t *testing.T) {
	for _, tc := range []struct {
		name     string
		revision int
		due      bool
	}{{"items without a revision", 0, true}, {"every item revised", 3, false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "cache.db")
			sdb, err := sql.Open(driverName, "file:"+path+"?_foreign_keys=on")
			if err != nil {
				t.Fatal(err)
			}
			p, err := migrator(sdb)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.UpTo(ctx, 8); err != nil {
				t.Fatal(err)
			}
			if _, err := sdb.ExecContext(ctx, `INSERT INTO batches(id, customer_ref, created_at, updated_at)
				VALUES ('b1', 'CUST-1', 1000, 5000)`); err != nil {
				t.Fatal(err)
			}
			if _, err := sdb.ExecContext(ctx, `INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes,
				status, error_code, attempt, updated_at, revision)
				VALUES ('i1', 'b1', 'id_document', 'a.jpg', 'image/jpeg', 1, 'error', 'INTERNAL_ERROR', 1, 2000, ?)`, tc.revision); err != nil {
				t.Fatal(err)
			}
			sdb.Close()
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			why, err := db.Sync.FullSyncDue(ctx)
			if err != nil || (why == "items without a revision") != tc.due {
				t.Fatalf("full sync due %q (%v), want due=%v", why, err, tc.due)
			}
			// Migration 00017 marks one too, for the decisions a cached item
			// lacks, unless one is due already.
			if !tc.due && why != "items without decisions" {
				t.Fatalf("full sync due %q after 00017, want one for the decisions", why)
			}
			if tc.due {
				if err := db.Sync.FullSyncDone(ctx, why); err != nil {
					t.Fatal(err)
				}
				if why, _ := db.Sync.FullSyncDue(ctx); why != "" {
					t.Fatalf("still due after a full sync: %q", why)
				}
			}
		})
	}
}

// An action keeps what the reviewer saw, and the revision when the cache
// knows it.
func TestAnActionKeepsWhatTheReviewerSaw(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := policy.Batch{ID: "b1", CustomerRef: "CUST-1", CreatedAt: fromMS(1000), UpdatedAt: fromMS(5000)}
	unrevised := policy.Item{ID: "i1", BatchID: "b1", Kind: policy.KindIDDocument, FileName: "a.jpg", MediaType: "image/jpeg",
		SizeBytes: 7, Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout, ReportedCode: "CLASSIFIER_TIMEOUT",
		Attempt: 2, UpdatedAt: fromMS(5000)}
	unrevised.Notes = []policy.Note{{ID: "nte_1", Author: "ben", Text: "called", CreatedAt: fromMS(4000)}}
	revised := unrevised
	revised.ID, revised.Revision, revised.Notes = "i2", 6, nil
	b.Items = []policy.Item{unrevised, revised}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{b}); err != nil {
		t.Fatal(err)
	}
	ok := func(policy.Situation) error { return nil }
	a1, err := db.Outbox.CreateAction(ctx, Action{ItemID: "i1", Kind: policy.ActionResubmit, Key: "k1", Reviewer: "ana"}, nil, ok)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := db.Outbox.CreateAction(ctx, Action{ItemID: "i2", Kind: policy.ActionResubmit, Key: "k2", Reviewer: "ana"}, nil, ok)
	if err != nil {
		t.Fatal(err)
	}
	saw, kept, err := db.Outbox.ActionSeen(ctx, a1.ID)
	if err != nil || !kept {
		t.Fatalf("kept %v, %v", kept, err)
	}
	if saw.Status != policy.StatusError || saw.ErrorCode != policy.CodeClassifierTimeout || saw.Attempt != 2 ||
		saw.FileName != "a.jpg" || saw.SizeBytes != 7 || len(saw.Notes) != 1 || saw.Notes[0].ID != "nte_1" {
		t.Fatalf("what she saw: %+v", saw)
	}
	if rev, _ := db.Outbox.ActionRevision(ctx, a1.ID); rev != 0 {
		t.Fatalf("revision %d", rev)
	}
	if saw, kept, err := db.Outbox.ActionSeen(ctx, a2.ID); err != nil || !kept || saw.Attempt != 2 || len(saw.Notes) != 0 {
		t.Fatalf("a revised item keeps what she saw too: %+v kept %v, %v", saw, kept, err)
	}
	if rev, _ := db.Outbox.ActionRevision(ctx, a2.ID); rev != 6 {
		t.Fatalf("revision %d", rev)
	}
	if err := db.Outbox.SetActionRevision(ctx, a1.ID, 9); err != nil {
		t.Fatal(err)
	}
	if rev, _ := db.Outbox.ActionRevision(ctx, a1.ID); rev != 9 {
		t.Fatalf("learnt revision %d", rev)
	}
}
