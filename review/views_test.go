package review_test

import (
	"context"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

func TestSavedViews(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	vs, err := e.svc.Triage.Views(ctx)
	if err != nil || len(vs) != 2 || vs[0].Name != review.ViewNeedsMyAction || vs[1].Name != review.ViewOverdue {
		t.Fatalf("%+v %v", vs, err)
	}
	timeouts := review.ViewFilter{Code: policy.CodeClassifierTimeout, NeedsAction: true, SortBy: "since"}
	if err := e.svc.Triage.SaveView(ctx, "Timeouts today", timeouts); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Triage.SaveView(ctx, "overdue", review.ViewFilter{}); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("a saved view took a built-in name: %v", err)
	}
	if err := e.svc.Triage.DeleteView(ctx, review.ViewOverdue); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatal(err)
	}
	if err := e.svc.Triage.RenameView(ctx, "Timeouts today", "Timeouts"); err != nil {
		t.Fatal(err)
	}
	vs, _ = e.svc.Triage.Views(ctx)
	if len(vs) != 3 || vs[2].Name != "Timeouts" || vs[2].Filter != timeouts || vs[2].Builtin {
		t.Fatalf("%+v", vs)
	}
	if err := e.svc.Triage.DeleteView(ctx, "Timeouts"); err != nil {
		t.Fatal(err)
	}
	if vs, _ = e.svc.Triage.Views(ctx); len(vs) != 2 {
		t.Fatalf("%+v", vs)
	}
}
