package review_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// BenchmarkBulkPlan500On100k plans the re-submission of a 500-item selection
// on a cache of 100,000 items (10,000 batches of 10, a third in error), and
// queues it (one transaction, 500 keys). The issue asks for well under a
// second.
func BenchmarkBulkPlan500On100k(b *testing.B) {
	db, err := store.Open(filepath.Join(b.TempDir(), "cache.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	codes := policy.ItemCodes()
	var sel []string
	for p := 0; p < 100; p++ {
		page := make([]policy.Batch, 0, 100)
		for j := 0; j < 100; j++ {
			n := p*100 + j
			at := t0.Add(time.Duration(n) * time.Second)
			id := fmt.Sprintf("b%05d", n)
			bt := policy.Batch{ID: id, CustomerRef: "CUST-" + id, CreatedAt: at, UpdatedAt: at}
			for k := 0; k < 10; k++ {
				it := policy.Item{ID: fmt.Sprintf("%s_%02d", id, k), BatchID: id, Kind: policy.KindIDDocument,
					FileName: "f.jpg", MediaType: "image/jpeg", Attempt: 1, UpdatedAt: at}
				if k%3 == 0 {
					it.Status, it.ErrorCode, it.ReportedCode = policy.StatusError, codes[(n+k)%len(codes)], string(codes[(n+k)%len(codes)])
				} else {
					score := (n + k) % 101
					it.Status, it.RiskScore, it.Recommendation = policy.StatusScored, &score, policy.RecommendReview
				}
				if n%20 == 0 && len(sel) < 500 {
					sel = append(sel, it.ID) // a selection across batches, errors and scored alike
				}
				bt.Items = append(bt.Items, it)
			}
			page = append(page, bt)
		}
		if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
			b.Fatal(err)
		}
	}
	svc, err := review.New(db, nil, review.Config{Budget: policy.DefaultBudget(), Reviewer: "ana"})
	if err != nil {
		b.Fatal(err)
	}
	selection := review.Selection{IDs: sel}
	b.Run("Plan", func(b *testing.B) {
		for b.Loop() {
			p, err := svc.Runs.PlanResubmit(ctx, selection)
			if err != nil || len(p.Items)+len(p.Skipped) != 500 || len(p.Items) == 0 {
				b.Fatal(len(p.Items), err)
			}
		}
	})
	b.Run("PlanByFilter", func(b *testing.B) {
		f := review.Selection{Filter: store.ItemFilter{Status: policy.StatusError, Code: policy.CodeClassifierTimeout}}
		for b.Loop() {
			if p, err := svc.Runs.PlanResubmit(ctx, f); err != nil || len(p.Items) == 0 {
				b.Fatal(err)
			}
		}
	})
	b.Run("ConfirmAndUndo", func(b *testing.B) {
		p, err := svc.Runs.PlanResubmit(ctx, selection)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			run, err := svc.Runs.Confirm(ctx, p)
			if err != nil || len(run.Actions) != len(p.Items) {
				b.Fatal(len(run.Actions), err)
			}
			if n, err := svc.Runs.CancelRun(ctx, run.ID); err != nil || len(n) != len(p.Items) {
				b.Fatal(len(n), err)
			}
		}
	})
}
