package review_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

func TestTwoConsolesResubmittingOneItemPayForOneAnalysis(t *testing.T) {
	ctx := context.Background()
	for _, order := range []string{"ana first", "ben first"} {
		t.Run(order, func(t *testing.T) {
			tm := setupTeam(t, "")
			id := tm.srv.FindCode("CLASSIFIER_UNAVAILABLE")
			first, second := tm.ana, tm.ben
			if order == "ben first" {
				first, second = tm.ben, tm.ana
			}
			won, err := first.svc.Actions.Resubmit(ctx, id)
			if err != nil || won.Action.State != policy.ActionDone {
				t.Fatalf("%+v %v", won, err)
			}
			tm.clk.Add(2 * time.Minute)
			lost, err := second.svc.Actions.Resubmit(ctx, id)
			if err != nil || lost.Action.State != policy.ActionFailed || lost.Action.LastErrorCode != policy.CodeItemChanged {
				t.Fatalf("%+v %v", lost, err)
			}
			ce := conflict(t, lost.Err, policy.CodeItemChanged)
			score := *won.Item.RiskScore
			want := fmt.Sprintf("re-analysed 2 min ago: now %s, score %d", won.Item.Recommendation, score)
			if ce.Sentence != want {
				t.Fatalf("sentence %q, want %q", ce.Sentence, want)
			}
			if tm.srv.Analyses(id) != 1 {
				t.Fatalf("analyses %d", tm.srv.Analyses(id))
			}
			// The loser shows the new result, from the 412's item.
			d, _ := second.svc.Triage.Item(ctx, id)
			if d.Status != policy.StatusScored || *d.RiskScore != score || d.Revision != tm.srv.Revision(id) {
				t.Fatalf("loser's cache: %+v", d.Item)
			}
		})
	}
	t.Run("at the same moment", func(t *testing.T) {
		tm := setupTeam(t, "")
		id := tm.srv.FindCode("FORENSICS_UNREACHABLE")
		tm.srv.SetAnalysisLatency(id, 200*time.Millisecond)
		var wg sync.WaitGroup
		results := make([]review.Result, 2)
		for i, c := range []*console{tm.ana, tm.ben} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if results[i], err = c.svc.Actions.Resubmit(ctx, id); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		states := map[policy.ActionState]int{}
		for _, r := range results {
			states[r.Action.State]++
			if r.Action.State == policy.ActionFailed {
				conflict(t, r.Err, policy.CodeItemChanged)
			}
		}
		if states[policy.ActionDone] != 1 || states[policy.ActionFailed] != 1 || tm.srv.Analyses(id) != 1 {
			t.Fatalf("states %v analyses %d", states, tm.srv.Analyses(id))
		}
		for _, c := range []*console{tm.ana, tm.ben} {
			if d, _ := c.svc.Triage.Item(ctx, id); d.Status != policy.StatusScored {
				t.Fatalf("a console does not show the new result: %+v", d.Item)
			}
		}
	})
}

func TestTwoProcessesTwoReviewersPayForOneAnalysis(t *testing.T) {
	tm := setupTeam(t, "")
	id := tm.srv.FindCode("INTERNAL_ERROR")
	tm.srv.SetAnalysisLatency(id, 200*time.Millisecond)
	at := time.Now().Add(300 * time.Millisecond) // both start at this moment
	var outs [2]bytes.Buffer
	cmds := [2]*exec.Cmd{teamHelper(tm, tm.ana, anaTok, "team-resubmit", id, at), teamHelper(tm, tm.ben, benTok, "team-resubmit", id, at)}
	for i, c := range cmds {
		c.Stdout = &outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	both := outs[0].String() + outs[1].String()
	if tm.srv.Analyses(id) != 1 || !strings.Contains(both, "done") || !strings.Contains(both, "failed ITEM_CHANGED") {
		t.Fatalf("analyses %d; outputs %q", tm.srv.Analyses(id), both)
	}
}

// A re-submission queued offline on revision 3 meets ben's note (revision
// 4) on flush, hours later, and says so: whether or not ana synced before
// flushing (then her cache holds revision 4 already and is not what she
// saw), and whether the service stamped the note and the item's change in
// one instant or a moment apart (a reading of the clock each, as on a
// loaded machine: the note is older than the revision it made).
func TestActionQueuedOfflineOnAnOldRevisionIsRefusedOnFlush(t *testing.T) {
	for _, tc := range []struct {
		name   string
		step   time.Duration // the service's clock moves on between two readings
		synced bool          // ana syncs before flushing
	}{
		{"synced, one instant", 0, true},
		{"synced, note stamped before its revision", time.Millisecond, true},
		{"not synced, note stamped before its revision", time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := setupTeam(t, "")
			ctx := context.Background()
			id := tm.srv.FindCode("SOURCE_UNREACHABLE")
			// The item is at revision 3 when ana looks at it.
			tm.srv.Touch(id, func(*policy.RawItem) {})
			tm.srv.Touch(id, func(*policy.RawItem) {})
			if _, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if d, _ := tm.ana.svc.Triage.Item(ctx, id); d.Revision != 3 {
				t.Fatalf("revision %d", d.Revision)
			}
			tm.srv.Refuse()
			res, err := tm.ana.svc.Actions.Resubmit(ctx, id)
			if err != nil || res.Action.State != policy.ActionQueued {
				t.Fatalf("%+v %v", res, err)
			}
			if err := tm.srv.Accept(); err != nil {
				t.Fatal(err)
			}
			// Meanwhile ben moves it to revision 4 with a note.
			tm.clk.SetStep(tc.step)
			if _, err := tm.ben.svc.Team.AddNote(ctx, id, "Customer is sending a sharper scan."); err != nil {
				t.Fatal(err)
			}
			tm.clk.SetStep(0)
			if tm.srv.Revision(id) != 4 {
				t.Fatalf("revision %d", tm.srv.Revision(id))
			}
			notes := tm.srv.Notes(id)
			if it, _ := tm.srv.Item(id); tc.step > 0 && (len(notes) != 1 || !notes[0].CreatedAt.Before(it.UpdatedAt)) {
				t.Fatalf("the note should be older than its revision: %+v, item at %s", notes, it.UpdatedAt)
			}
			// Hours later ana syncs (her cache is at 4 now) and flushes: the
			// action still carries the revision it was queued on.
			tm.clk.Add(3 * time.Hour)
			if tc.synced {
				if _, err := tm.ana.svc.Sync.Sync(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if d, _ := tm.ana.svc.Triage.Item(ctx, id); d.Revision != 4 {
					t.Fatalf("revision %d", d.Revision)
				}
			}
			fr, err := tm.ana.svc.Actions.Flush(ctx)
			if err != nil || fr.Failed != 1 {
				t.Fatalf("%+v %v", fr, err)
			}
			ce := conflict(t, fr.Results[0].Err, policy.CodeItemChanged)
			if ce.Sentence != "Ben added a note 3 h ago" {
				t.Fatalf("sentence %q", ce.Sentence)
			}
			if tm.srv.Analyses(id) != 0 || tm.srv.Arrivals(screenapi.EPResubmit) != 1 {
				t.Fatalf("analyses %d arrivals %d: nothing may be paid", tm.srv.Analyses(id), tm.srv.Arrivals(screenapi.EPResubmit))
			}
			if out, _ := tm.ana.svc.Actions.Outbox(ctx); len(out) != 0 {
				t.Fatalf("outbox %+v", out)
			}
		})
	}
}
