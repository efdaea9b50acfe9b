package review_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// An answer outside a sync (here ana's claim) that brings ben's change
// into her cache first does not swallow the news: her next sync still
// says the item needs her, once, and the sync after it no more.
func TestNewsBroughtInByAClaimIsToldByTheNextSync(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := bensUnreadableUpload(t, tm)
	// Ana claims the item (she writes a note on it): the claim's answer
	// carries the item as it is now, unreadable again.
	if _, err := tm.ana.svc.Team.Claim(ctx, id, 0); err != nil {
		t.Fatalf("ana's claim: %v", err)
	}
	if _, err := tm.ana.svc.Team.Release(ctx, id); err != nil {
		t.Fatalf("ana's release: %v", err)
	}
	tm.clk.Add(time.Second)
	p, err := tm.ana.svc.Sync.Sync(ctx, nil)
	if err != nil || fmt.Sprint(p.NewItems) != fmt.Sprint([]string{id}) {
		t.Fatalf("ana's sync after her claim brought ben's change: news %v (changed %d), want [%s]: %v", p.NewItems, p.Changed, id, err)
	}
	tm.clk.Add(time.Second)
	if p, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil || len(p.NewItems) != 0 {
		t.Fatalf("the sync after: news %v %v", p.NewItems, err)
	}
}
