package review_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// scoreAt makes an item scored at the service, as a re-analysis would.
func scoreAt(e *env, id string) {
	e.srv.Touch(id, func(it *policy.RawItem) {
		s, r := 12.0, "forward"
		it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage = "scored", &s, &r, nil, nil
	})
}

// failAt makes an item fail at the service with a code a re-submission
// may mend: it needs the reviewer from then on.
func failAt(e *env, id string) {
	e.srv.Touch(id, func(it *policy.RawItem) {
		code, msg := "CLASSIFIER_TIMEOUT", "the classifier ran out of time"
		it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage = "error", nil, nil, &code, &msg
		it.Layers = nil
	})
}

func needsNow(t *testing.T, e *env, limit int) []review.ItemView {
	t.Helper()
	rows, err := e.svc.Triage.Items(context.Background(), store.ItemFilter{NeedsAction: true, Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A sync says which items need the reviewer now and did not before it:
// none after the first sync (it brings everything) nor after one that
// brought nothing; an item that stopped needing the reviewer is no news.
func TestASyncReportsTheItemsThatNewlyNeedTheReviewer(t *testing.T) {
	e := setup(t)
	if p := e.sync(t); p.Changed == 0 || p.NewItems != nil {
		t.Fatalf("first sync: %d changed, news %v", p.Changed, p.NewItems)
	}
	scored, _ := e.srv.Find(func(it policy.RawItem) bool { return it.Status == "scored" })
	needing := ""
	for _, r := range needsNow(t, e, 0) {
		if r.Next.Kind == policy.NextResubmit || r.Next.Kind == policy.NextRequestFile {
			needing = r.ID
			break
		}
	}
	if scored == "" || needing == "" {
		t.Fatalf("the demo data lacks a scored item (%q) or one that needs the reviewer (%q)", scored, needing)
	}
	failAt(e, scored)   // news
	scoreAt(e, needing) // dealt with: not news
	p := e.sync(t)
	if p.Changed != 2 || fmt.Sprint(p.NewItems) != fmt.Sprint([]string{scored}) {
		t.Fatalf("sync: %d changed, news %v, want [%s]", p.Changed, p.NewItems, scored)
	}
	if p := e.sync(t); p.Changed != 0 || p.NewItems != nil {
		t.Fatalf("a sync that brought nothing: %d changed, news %v", p.Changed, p.NewItems)
	}
}

// With more rows needing action than a news check reads, rows that move
// up into the read after the sync (rows above them were dealt with) are
// no news: they may have needed the reviewer before, below what was read.
func TestTheNewsOfALongListingStopsWhereTheReadBeforeStopped(t *testing.T) {
	e := setup(t)
	e.sync(t)
	rows := needsNow(t, e, 0)
	const limit = 4
	if len(rows) < limit+3 {
		t.Fatalf("the demo data has %d rows needing action, want more than %d", len(rows), limit+3)
	}
	e.svc.SetNewsLimit(limit)
	// The top batch's scored item fails (news, on top); the first two rows
	// read are dealt with, and two rows from below the read move up into
	// it.
	top := rows[0].BatchID
	fresh, _ := e.srv.Find(func(it policy.RawItem) bool { return it.BatchID == top && it.Status == "scored" })
	if fresh == "" {
		t.Fatalf("batch %s has no scored item", top)
	}
	failAt(e, fresh)
	scoreAt(e, rows[1].ID)
	scoreAt(e, rows[2].ID)
	p := e.sync(t)
	if fmt.Sprint(p.NewItems) != fmt.Sprint([]string{fresh}) {
		t.Fatalf("news %v, want [%s] (rows below the read before: %s, %s)", p.NewItems, fresh, rows[limit].ID, rows[limit+1].ID)
	}
}

// Two reviewers on one service: what ben's actions make need ana is news
// in ana's next sync. Ben asks a customer for a new file (the item leaves
// ana's list), the file comes (ben uploads it) and cannot be read: the
// item needs a reviewer again, and ana's sync says so.
func TestNewsIncludesWhatAnotherReviewerChanged(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := bensUnreadableUpload(t, tm)
	p, err := tm.ana.svc.Sync.Sync(ctx, nil)
	if err != nil || fmt.Sprint(p.NewItems) != fmt.Sprint([]string{id}) {
		t.Fatalf("ana's sync after ben's upload came back unreadable: news %v (changed %d), want [%s]: %v", p.NewItems, p.Changed, id, err)
	}
}

// bensUnreadableUpload plays the two reviewers' scene both news tests
// start from: ben asks the customer of an item that needs a new file for
// one (ana's sync after it brings no news: the item left her list), then
// uploads one that cannot be read either. It returns the item.
func bensUnreadableUpload(t *testing.T, tm *team) string {
	t.Helper()
	ctx := context.Background()
	id := tm.srv.FindCode("DECODE_FAILED")
	if id == "" {
		t.Fatal("no item needing a new file")
	}
	if res, err := tm.ben.svc.Actions.RequestFile(ctx, id, "Please send a sharper photo."); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben's file request: %+v %v", res, err)
	}
	tm.clk.Add(time.Second)
	if p, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil || len(p.NewItems) != 0 {
		t.Fatalf("ana's sync after ben's request: %+v %v", p, err)
	}
	tm.srv.Script(id, screenapi.Outcome{Code: "DECODE_FAILED"})
	tm.clk.Add(time.Second)
	if res, err := tm.ben.svc.Actions.Replace(ctx, id, "scan.png", screenapi.Scan(1<<10), review.ReplaceOptions{}); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ben's upload: %+v %v", res, err)
	}
	tm.clk.Add(time.Second)
	return id
}
