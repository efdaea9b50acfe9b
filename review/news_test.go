package review_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// An answer outside a sync (here ana's claim) that brings ben's change
// into her cache first does not swallow the news: her next sync still
// says the item needs her, once, and the sync after it no more.
func TestNewsBroughtInByAClaimIsToldByTheNextSync(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("DECODE_FAILED")
	if id == "" {
		t.Fatal("no item needing a new file")
	}
	if res, err := tm.ben.svc.RequestFile(ctx, id, "Please send a sharper photo."); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben's file request: %+v %v", res, err)
	}
	tm.clk.Add(time.Second)
	if p, err := tm.ana.svc.Sync(ctx, nil); err != nil || len(p.NewItems) != 0 {
		t.Fatalf("ana's sync after ben's request: %+v %v", p, err)
	}
	tm.srv.Script(id, screenapi.Outcome{Code: "DECODE_FAILED"})
	tm.clk.Add(time.Second)
	if res, err := tm.ben.svc.Replace(ctx, id, "scan.png", []byte("\x89PNG\r\n\x1a\nimage")); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben's upload: %+v %v", res, err)
	}
	tm.clk.Add(time.Second)
	// Ana claims the item (she writes a note on it): the claim's answer
	// carries the item as it is now, unreadable again.
	if _, err := tm.ana.svc.Claim(ctx, id, 0); err != nil {
		t.Fatalf("ana's claim: %v", err)
	}
	if _, err := tm.ana.svc.Release(ctx, id); err != nil {
		t.Fatalf("ana's release: %v", err)
	}
	tm.clk.Add(time.Second)
	p, err := tm.ana.svc.Sync(ctx, nil)
	if err != nil || fmt.Sprint(p.NewItems) != fmt.Sprint([]string{id}) {
		t.Fatalf("ana's sync after her claim brought ben's change: news %v (changed %d), want [%s]: %v", p.NewItems, p.Changed, id, err)
	}
	tm.clk.Add(time.Second)
	if p, err := tm.ana.svc.Sync(ctx, nil); err != nil || len(p.NewItems) != 0 {
		t.Fatalf("the sync after: news %v %v", p.NewItems, err)
	}
}
