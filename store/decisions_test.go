package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// decided is an item as a 1.2 service sends it: decisions offered, and
// the given ones (oldest first).
func decided(it policy.Item, ds ...policy.Decision) policy.Item {
	it.Team.DecisionsOffered = true
	it.Team.Decisions = ds
	return it
}

// TestNeedsActionFollowsPolicyOnDecisions holds the store's "needs the
// reviewer" SQL (the listing's filter and next's candidates) to
// policy.NeedsReviewerDecisions on a real cache from a 1.2 service: every
// status, every recommendation of a scored item, no current decision or
// one in every state by her or by another, and the newest action in every
// state. One item from a 1.1 service stays on policy.NeedsReviewer.
func TestNeedsActionFollowsPolicyOnDecisions(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	db.SetClock(func() time.Time { return t0 })
	const me = "ana"
	type combo struct {
		status policy.Status
		rec    policy.Recommendation
		dstate policy.DecisionState
		by     string
		state  policy.ActionState
	}
	var items []policy.Item
	combos := map[string]combo{}
	for _, st := range policy.Statuses() {
		recs := []policy.Recommendation{""}
		if st == policy.StatusScored {
			recs = []policy.Recommendation{policy.RecommendForward, policy.RecommendReview, policy.RecommendReject}
		}
		for _, rec := range recs {
			for _, ds := range append([]policy.DecisionState{""}, policy.DecisionStates()...) {
				for _, by := range []string{me, "ben"} {
					if ds == "" && by == "ben" {
						continue
					}
					for _, state := range append([]policy.ActionState{""}, policy.ActionStates()...) {
						id := fmt.Sprintf("i%04d", len(items))
						it := scored(id, "b1", 40, t0)
						it.Recommendation = rec
						if st != policy.StatusScored {
							it.Status, it.RiskScore, it.Recommendation, it.Layers = st, nil, "", nil
							switch st {
							case policy.StatusError:
								it.ErrorCode = policy.CodeDecodeFailed
							case policy.StatusInvalid:
								it.ErrorCode, it.Problem = policy.CodeInvalidResponse, "no score"
							}
						}
						var ds1 []policy.Decision
						if ds != "" {
							ds1 = []policy.Decision{{ID: "dec_" + id, Outcome: policy.OutcomeReject, ReasonCode: "R", By: by, At: t0, State: ds}}
						}
						items = append(items, decided(it, ds1...))
						combos[id] = combo{st, rec, ds, by, state}
					}
				}
			}
		}
	}
	// A 1.1 service's scored item recommended review: nobody is asked to decide it.
	old := scored("old", "b1", 70, t0)
	old.Recommendation = policy.RecommendReview
	items = append(items, old)
	combos["old"] = combo{status: policy.StatusScored, rec: policy.RecommendReview}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, items...)}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, it := range items {
		c := combos[it.ID]
		if c.state != "" {
			a, err := db.Outbox.CreateAction(ctx, store.Action{ItemID: it.ID, Kind: policy.ActionResubmit, Key: "k-" + it.ID, Reviewer: me}, nil, allow)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Exec(ctx, fmt.Sprintf(`UPDATE actions SET state = '%s', sends = 1 WHERE id = %d`, c.state, a.ID)); err != nil {
				t.Fatal(err)
			}
		}
		sit, err := db.Outbox.Situation(ctx, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		cur := sit.Item.CurrentDecision()
		if (cur == nil) != (c.dstate == "") || cur != nil && (cur.State != c.dstate || cur.By != c.by) ||
			sit.Item.Team.DecisionsOffered != (it.ID != "old") {
			t.Fatalf("%s stored with decision %+v (offered %v), want %+v", it.ID, cur, sit.Item.Team.DecisionsOffered, c)
		}
		if policy.NeedsReviewerDecisions(sit, me) {
			want = append(want, it.ID)
		}
	}
	if len(want) == 0 || len(want) == len(items) || slices.Contains(want, "old") {
		t.Fatalf("policy says %d of %d items need %s (the 1.1 item: %v): the test covers nothing", len(want), len(items), me, slices.Contains(want, "old"))
	}
	rows, err := db.Items.Items(ctx, store.ItemFilter{NeedsAction: true, Me: me})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range rows {
		listed = append(listed, r.ID)
	}
	slices.Sort(listed)
	next, err := db.Team.NextCandidates(ctx, me, t0, len(items)+1)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(next)
	for name, got := range map[string][]string{"the needs-action listing": listed, "next's candidates": next} {
		if !slices.Equal(got, want) {
			n := 0
			for _, it := range items {
				if slices.Contains(got, it.ID) != slices.Contains(want, it.ID) && n < 20 {
					n++
					t.Errorf("%s: %s %+v: listed %v, policy says %v", name, it.ID, combos[it.ID], slices.Contains(got, it.ID), slices.Contains(want, it.ID))
				}
			}
		}
	}
}

// TestDecisionsFollowTheServiceAndAreAudited: a sync's decisions are kept
// one row per id, the item carries the current one, a confirmation moves
// its state, an older answer changes nothing, and the audit log records
// the decision and the confirmation once each.
func TestDecisionsFollowTheServiceAndAreAudited(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	db.SetClock(func() time.Time { return t0 })
	it := scored("itm_1", "b1", 85, t0)
	it.Recommendation = policy.RecommendReject
	d := policy.Decision{ID: "dec_1", Outcome: policy.OutcomeReject, ReasonCode: "DOC_TAMPERED", Comment: "MRZ", By: "ana", At: t0, State: policy.DecisionAwaiting}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, decided(it, d))}); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(time.Minute)
	conf := d
	conf.State, conf.Confirmation = policy.DecisionFinal, &policy.Confirmation{By: "ben", At: later, Agree: true, Comment: "agreed"}
	it2 := it
	it2.UpdatedAt = later
	for i := 0; i < 2; i++ { // the same answer twice: recorded once
		if err := db.Sync.ApplyItem(ctx, decided(it2, conf), "ben", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	// An older answer (before the confirmation) changes nothing.
	if err := db.Sync.ApplyItem(ctx, decided(it, d), "", "", ""); err != nil {
		t.Fatal(err)
	}
	r, err := db.Items.Item(ctx, "itm_1")
	if err != nil {
		t.Fatal(err)
	}
	cur := r.CurrentDecision()
	if cur == nil || cur.State != policy.DecisionFinal || cur.Confirmation == nil || cur.Confirmation.By != "ben" || cur.ReasonCode != "DOC_TAMPERED" {
		t.Fatalf("current decision %+v", cur)
	}
	all, err := db.Items.Decisions(ctx, "itm_1")
	if err != nil || len(all) != 1 || all[0].Comment != "MRZ" || all[0].Confirmation == nil || all[0].Confirmation.Comment != "agreed" {
		t.Fatalf("decisions %+v, %v", all, err)
	}
	entries, err := db.Evidence.ItemAudit(ctx, "itm_1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if strings.HasPrefix(e.Event, "decision") {
			got = append(got, e.Reviewer+": "+e.Event)
		}
	}
	want := []string{"ben: decision dec_1 confirmed", "ana: decision dec_1: reject (awaiting_confirmation)"} // newest first
	if !slices.Equal(got, want) {
		t.Fatalf("audit %q, want %q", got, want)
	}
}

// TestReasonCodesAreKeptForOffline: the last list replaces the one before.
func TestReasonCodesAreKeptForOffline(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	first := []policy.ReasonCode{{Code: "A", Label: "a", Outcomes: []policy.Outcome{policy.OutcomeClear}}}
	second := []policy.ReasonCode{{Code: "B", Label: "b", Outcomes: []policy.Outcome{policy.OutcomeReject, policy.OutcomeEscalate}},
		{Code: "C", Label: "c", Outcomes: []policy.Outcome{policy.OutcomeClear}}}
	for _, l := range [][]policy.ReasonCode{first, second} {
		if err := db.Sync.SetReasonCodes(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Sync.ReasonCodes(ctx)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(second) {
		t.Fatalf("%v, %v; want %v", got, err, second)
	}
}

// TestAFullSyncBringsTheDecisionsOfAnUnchangedItem: after migration 00017
// the cache holds items as a 1.1 answer had them; the full sync's page,
// unchanged but for its decisions, is not one the cache holds as sent.
func TestAFullSyncBringsTheDecisionsOfAnUnchangedItem(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	db.SetClock(func() time.Time { return t0.Add(time.Hour) })
	it := scored("itm_1", "b1", 85, t0)
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, it)}); err != nil {
		t.Fatal(err)
	}
	d := policy.Decision{ID: "dec_1", Outcome: policy.OutcomeEscalate, ReasonCode: "R", Comment: "c", By: "ben", At: t0, State: policy.DecisionFinal}
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{batchOf("b1", t0, decided(it, d))}); err != nil {
		t.Fatal(err)
	}
	r, err := db.Items.Item(ctx, "itm_1")
	if err != nil || !r.Team.DecisionsOffered || r.CurrentDecision() == nil {
		t.Fatalf("the item after the full sync: offered %v, decision %+v (%v)", r.Team.DecisionsOffered, r.CurrentDecision(), err)
	}
}
