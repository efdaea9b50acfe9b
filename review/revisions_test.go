package review_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// forgetRevisions makes a cache look like one upgraded from before the
// revision column, or synced from a 1.0 service: every item at revision 0,
// and nothing due.
func forgetRevisions(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`UPDATE items SET revision = 0`, `DELETE FROM sync_state WHERE key = 'full_sync_due'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// matchLog records the If-Match of every POST that reaches the service.
type matchLog struct {
	mu    sync.Mutex
	posts map[string][]string // path -> If-Match of each POST
}

func (l *matchLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			l.mu.Lock()
			if l.posts == nil {
				l.posts = map[string][]string{}
			}
			l.posts[r.URL.Path] = append(l.posts[r.URL.Path], r.Header.Get("If-Match"))
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (l *matchLog) blind() (blind, all int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ms := range l.posts {
		for _, m := range ms {
			all++
			if m == "" {
				blind++
			}
		}
	}
	return blind, all
}

// An upgraded cache knows no revision. Two reviewers re-submitting one item
// still pay for one analysis: the second console reads the item first, sees
// that it was re-analysed since she looked, and sends nothing.
func TestAnUpgradedCacheDoesNotPayTwice(t *testing.T) {
	ctx := context.Background()
	tm := setupTeam(t, "")
	id := tm.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	forgetRevisions(t, tm.ana.path)
	forgetRevisions(t, tm.ben.path)
	// Ana's re-run fails again with a code a re-run may help: a blind
	// second re-submission would be accepted, and paid.
	tm.srv.Script(id, screenapi.Outcome{Code: string(policy.CodeClassifierTimeout)})

	won, err := tm.ana.svc.Actions.Resubmit(ctx, id)
	if err != nil || won.Action.State != policy.ActionDone {
		t.Fatalf("%+v %v", won, err)
	}
	lost, err := tm.ben.svc.Actions.Resubmit(ctx, id)
	if err != nil || lost.Action.State != policy.ActionFailed || lost.Action.LastErrorCode != policy.CodeItemChanged {
		t.Fatalf("%+v %v", lost, err)
	}
	ce := conflict(t, lost.Err, policy.CodeItemChanged)
	if !strings.HasPrefix(ce.Sentence, "re-analysed") || !strings.Contains(ce.Sentence, "nothing was sent") {
		t.Fatalf("sentence %q", ce.Sentence)
	}
	if n := tm.srv.Analyses(id); n != 1 {
		t.Fatalf("analyses %d: the upgraded cache paid twice", n)
	}
	if n := tm.srv.Arrivals(screenapi.EPResubmit); n != 1 {
		t.Fatalf("re-submissions that reached the service: %d, want 1", n)
	}
	// Ben's console now shows the result, with its revision.
	d, _ := tm.ben.svc.Triage.Item(ctx, id)
	if d.Attempt != won.Item.Attempt || d.Revision != tm.srv.Revision(id) {
		t.Fatalf("ben's cache: %+v", d.Item)
	}
}

// Every POST on a 1.1 service carries If-Match, even for items whose
// revision the cache did not know: a bulk run, a file request and a single
// re-submission on an upgraded cache.
func TestNoPostGoesOutBlindOnA11Service(t *testing.T) {
	ctx := context.Background()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	var log matchLog
	front := httptest.NewServer(log.wrap(srv.Handler()))
	t.Cleanup(front.Close)
	path := filepath.Join(t.TempDir(), "cache.db")
	db, api, svc := newService(t, front.URL, path)
	t.Cleanup(func() { api.Close(); db.Close() })
	if _, err := svc.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	forgetRevisions(t, path)

	if _, err := svc.Actions.Resubmit(ctx, srv.FindCode("FORENSICS_UNREACHABLE")); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Actions.RequestFile(ctx, srv.FindCode("DECODE_FAILED"), "Please send a sharper scan."); err != nil {
		t.Fatal(err)
	}
	plan, err := svc.Runs.PlanResubmit(ctx, review.Selection{Filter: store.ItemFilter{Retryable: true}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := svc.Runs.Confirm(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Runs.SendRun(ctx, run.ID, review.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	blind, all := log.blind()
	if all < 3 || blind != 0 {
		t.Fatalf("%d of %d POSTs went out with no If-Match", blind, all)
	}
	// What was learnt is kept: the cache knows the revisions it acted on.
	rows, err := svc.Actions.Outbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rows {
		t.Errorf("left open: %+v", a)
	}
}

// A re-submission whose answer was lost, on an item whose revision the
// cache did not know, is reconciled with its key: the read shows the item
// changed (by that very send), and the repeat asks only for the key's
// stored answer. One analysis, done.
func TestAnUnknownSendOnAnUnrevisedItemIsReconciledNotStopped(t *testing.T) {
	ctx := context.Background()
	e := setup(t)
	e.sync(t)
	forgetRevisions(t, e.path)
	id := e.srv.FindCode("FORENSICS_UNREACHABLE")
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPResubmit, Times: 1})
	res, err := e.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionUnknown {
		t.Fatalf("%+v %v", res, err)
	}
	fr, err := e.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 {
		t.Fatalf("%+v %v", fr, err)
	}
	if e.srv.Analyses(id) != 1 {
		t.Fatalf("analyses %d", e.srv.Analyses(id))
	}
}

// An answer to a paid re-submission that breaks the contract is not a
// verdict: the action stays unknown (reconciled with its key), the item
// stays in the reviewer's queue, marked invalid, with no score.
func TestABrokenAnswerToAResubmissionIsAnUnknownOutcome(t *testing.T) {
	ctx := context.Background()
	e := setup(t)
	e.sync(t)
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.Script(id, screenapi.Outcome{Score: 140})
	res, err := e.svc.Actions.Resubmit(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action.State != policy.ActionUnknown || policy.ErrorCode(res.Err) != policy.CodeInvalidResponse || res.Item != nil {
		t.Fatalf("a broken answer ended the action %s (%v)", res.Action.State, res.Err)
	}
	d, err := e.svc.Triage.Item(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != policy.StatusInvalid || d.RiskScore != nil || d.Recommendation != "" || d.Checked() {
		t.Fatalf("the item must show as invalid, unscored: %+v", d.Item)
	}
	var queued bool
	if err := e.svc.Triage.EachItem(ctx, store.ItemFilter{NeedsAction: true}, func(v review.ItemView) error {
		queued = queued || v.ID == id
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !queued {
		t.Fatal("the item left the reviewer's queue")
	}
}

// A cache from before the revision column, or from a 1.0 service that now
// speaks 1.1, learns every item's revision on its next sync, although an
// incremental sync would bring none of the unchanged batches.
func TestTheNextSyncAfterAnUpgradeIsAFullOne(t *testing.T) {
	ctx := context.Background()
	path := cacheFrom10(t)

	// The same data, now served as 1.1 (the same seed, so the same batches
	// at the same updated_at: an incremental sync would fetch none).
	srv11, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv11.Close)
	db, api, svc := newService(t, srv11.URL(), path)
	t.Cleanup(func() { api.Close(); db.Close() })
	if _, err := svc.Sync.Sync(ctx, nil); err != nil { // asks the version first: this sync is the full one
		t.Fatal(err)
	}
	var unrevised int
	if err := svc.Triage.EachItem(ctx, store.ItemFilter{}, func(v review.ItemView) error {
		if v.Revision == 0 {
			unrevised++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if unrevised != 0 {
		t.Fatalf("%d items still at revision 0 after the full sync", unrevised)
	}
	if why, _ := db.Sync.FullSyncDue(ctx); why != "" {
		t.Fatalf("the mark stays after a full sync: %q", why)
	}
}

// Her own note does not stop her own action: a re-submission queued
// offline meets a 412 that only her note caused, and goes out again with
// the same key at the new revision, once. Ben's note would stop it
// (TestActionQueuedOfflineOnAnOldRevisionIsRefusedOnFlush).
func TestHerOwnNoteDoesNotStopHerQueuedAction(t *testing.T) {
	ctx := context.Background()
	tm := setupTeam(t, "")
	id := tm.srv.FindCode("SOURCE_UNREACHABLE")
	tm.srv.Refuse()
	res, err := tm.ana.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("%+v %v", res, err)
	}
	if err := tm.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	rev := tm.srv.Revision(id)
	// The note goes to the service before the action does (a note waits
	// for no one): the item moves on to the next revision.
	if _, err := tm.ben.svc.Team.Claim(ctx, id, time.Minute); err != nil { // a claim by anyone moves no revision
		t.Fatal(err)
	}
	if _, err := tm.ben.svc.Team.Release(ctx, id); err != nil {
		t.Fatal(err)
	}
	n, err := tm.ana.svc.Team.AddNote(ctx, id, "Re-running it: the storage was down this morning.")
	if err != nil || n.Note.State != policy.ActionDone {
		t.Fatalf("%+v %v", n, err)
	}
	if tm.srv.Revision(id) != rev+1 {
		t.Fatalf("revision %d, want %d", tm.srv.Revision(id), rev+1)
	}
	fr, err := tm.ana.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 || fr.Failed != 0 {
		t.Fatalf("%+v %v", fr, err)
	}
	if got := fr.Results[0].Action; got.Key != res.Action.Key {
		t.Fatalf("sent with key %s, queued with %s", got.Key, res.Action.Key)
	}
	if tm.srv.Analyses(id) != 1 || tm.srv.Arrivals(screenapi.EPResubmit) != 2 {
		t.Fatalf("analyses %d, re-submissions that arrived %d: want 1 and 2 (the 412, then the send)",
			tm.srv.Analyses(id), tm.srv.Arrivals(screenapi.EPResubmit))
	}
}

// A cache that last saw a 1.0 service acts on a service that now speaks
// 1.1 before any sync told it so: the action still reads the item first
// and goes out with If-Match.
func TestACacheFromA10ServiceSendsIfMatchBeforeItsNextSync(t *testing.T) {
	ctx := context.Background()
	path := cacheFrom10(t)

	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	var log matchLog
	front := httptest.NewServer(log.wrap(srv.Handler()))
	t.Cleanup(front.Close)
	db, api, svc := newService(t, front.URL, path)
	t.Cleanup(func() { api.Close(); db.Close() })
	if svc.Team.APIVersion() != "1.0" {
		t.Fatalf("the cache says %q", svc.Team.APIVersion())
	}
	res, err := svc.Actions.Resubmit(ctx, srv.FindCode("SOURCE_UNREACHABLE"))
	if err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("%+v %v", res, err)
	}
	if blind, all := log.blind(); all != 1 || blind != 0 {
		t.Fatalf("%d of %d POSTs went out with no If-Match", blind, all)
	}
}

// The re-send after her own note may reach the service: a reviewer who
// stops the wait then must find the action unknown (reconciled with its
// key), never back in the queue where a cancel and a new intent would pay
// twice.
func TestStoppingTheResendAfterHerOwnNoteLeavesItUnknown(t *testing.T) {
	tm := setupTeam(t, "")
	id := tm.srv.FindCode("SOURCE_UNREACHABLE")
	tm.srv.Refuse()
	res, err := tm.ana.svc.Actions.Resubmit(context.Background(), id)
	if err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("%+v %v", res, err)
	}
	if err := tm.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.ana.svc.Team.AddNote(context.Background(), id, "Re-running it."); err != nil {
		t.Fatal(err)
	}
	release := tm.srv.Hold(id)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan review.FlushResult, 1)
	go func() {
		fr, _ := tm.ana.svc.Actions.Flush(ctx)
		done <- fr
	}()
	deadline := time.After(60 * time.Second)
	for tm.srv.Running(id) == 0 { // the re-send is at the service
		select {
		case <-deadline:
			t.Fatal("the re-send never reached the service")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	<-done
	release()
	out, err := tm.ana.svc.Actions.Outbox(context.Background())
	if err != nil || len(out) != 1 || out[0].State != policy.ActionUnknown {
		t.Fatalf("after a stopped re-send: %+v %v", out, err)
	}
}

// cacheFrom10 is the path of a cache synced from a 1.0 service (no
// revisions, the version "1.0" kept), closed, with the service gone.
func cacheFrom10(t *testing.T) string {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token, APIVersion: screenapi.Version10})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "cache.db")
	db, api, svc := newService(t, srv.URL(), path)
	defer func() { api.Close(); db.Close() }()
	if _, err := svc.Sync.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if svc.Team.APIVersion() != "1.0" {
		t.Fatalf("version %q", svc.Team.APIVersion())
	}
	return path
}
