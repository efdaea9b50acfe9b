package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

func TestSavedViews(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	now := t0
	db.SetClock(func() time.Time { now = now.Add(time.Second); return now })
	if err := db.Triage.SaveView(ctx, " ", "{}"); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatal(err)
	}
	for _, n := range []string{"Timeouts today", "Overdue files"} {
		if err := db.Triage.SaveView(ctx, n, `{"code":"x"}`); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Triage.SaveView(ctx, "Timeouts today", `{"code":"y"}`); err != nil {
		t.Fatal(err)
	}
	if err := db.Triage.RenameView(ctx, "Overdue files", "Timeouts today"); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("rename onto another: %v", err)
	}
	if err := db.Triage.RenameView(ctx, "Overdue files", "Files overdue"); err != nil {
		t.Fatal(err)
	}
	if err := db.Triage.DeleteView(ctx, "nope"); policy.ErrorCode(err) != policy.CodeNotFound {
		t.Fatal(err)
	}
	vs, err := db.Triage.Views(ctx)
	if err != nil || len(vs) != 2 || vs[0].Name != "Timeouts today" || vs[0].Spec != `{"code":"y"}` || vs[1].Name != "Files overdue" {
		t.Fatalf("%+v %v", vs, err)
	}
	if err := db.Triage.DeleteView(ctx, "Files overdue"); err != nil {
		t.Fatal(err)
	}
	if vs, _ := db.Triage.Views(ctx); len(vs) != 1 {
		t.Fatalf("%+v", vs)
	}
}
