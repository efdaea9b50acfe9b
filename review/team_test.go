package review_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// Two consoles (two caches, two tokens) against one reference service on
// loopback, with one clock for all of them so that a claim can expire
// without sleeping.

const anaTok, benTok = "team-token-ana", "team-token-ben"

// fakeClock runs with real time, plus whatever the test added: operation
// deadlines stay real while claims and "2 min ago" see the added time.
// With step set, every reading also moves it on by step, as a loaded
// machine may between two readings of one request.
type fakeClock struct {
	mu     sync.Mutex
	offset time.Duration
	step   time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += c.step
	return time.Now().Add(c.offset)
}

func (c *fakeClock) SetStep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.step = d
}
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

type console struct {
	db   *store.DB
	api  *client.Client
	svc  *review.Service
	path string
}

func openConsole(t testing.TB, url, tok, path string, now func() time.Time) *console {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := client.DefaultConfig()
	cfg.BaseURL, cfg.Token = url, client.Secret(tok)
	cfg.Timeout, cfg.Reserve, cfg.RetrySleep = 2*time.Second, 20*time.Millisecond, time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("REVIEW_CLIENT_TIMEOUT")); err == nil {
		cfg.Timeout = d // a helper process that must still be waiting when it is killed
	}
	api, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svc := review.New(db, api, cfg.Budget(), "local-name")
	if now != nil {
		db.SetClock(now)
		svc.SetClock(now)
	}
	return &console{db: db, api: api, svc: svc, path: path}
}

func (c *console) close() { c.api.Close(); c.db.Close() }

type team struct {
	srv      *screenapi.Server
	clk      *fakeClock
	ana, ben *console
}

func setupTeam(t *testing.T, version string) *team {
	t.Helper()
	clk := &fakeClock{}
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Now: clk.Now,
		Reviewers: []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	tm := &team{srv: srv, clk: clk,
		ana: openConsole(t, srv.URL(), anaTok, filepath.Join(dir, "ana.db"), clk.Now),
		ben: openConsole(t, srv.URL(), benTok, filepath.Join(dir, "ben.db"), clk.Now)}
	t.Cleanup(func() { tm.ana.close(); tm.ben.close() })
	for _, c := range []*console{tm.ana, tm.ben} {
		if _, err := c.svc.Sync(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	return tm
}

func conflict(t *testing.T, err error, code policy.Code) *review.ConflictError {
	t.Helper()
	var ce *review.ConflictError
	if !errors.As(err, &ce) || ce.Code != code || policy.ErrorCode(err) != code {
		t.Fatalf("want a %s conflict, got %v (%T)", code, err, err)
	}
	return ce
}

func TestMeNamesTheReviewerAndIsKeptForOfflineUse(t *testing.T) {
	tm := setupTeam(t, "")
	if tm.ana.svc.Reviewer() != "ana" || tm.ben.svc.Reviewer() != "ben" {
		t.Fatalf("reviewers %q %q", tm.ana.svc.Reviewer(), tm.ben.svc.Reviewer())
	}
	tm.srv.Refuse()
	again := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, nil)
	defer again.close()
	if again.svc.Reviewer() != "ana" {
		t.Fatalf("offline, the cache says who: %q", again.svc.Reviewer())
	}
	id, err := again.svc.Identify(context.Background())
	if err == nil || id.Reviewer != "ana" || id.DisplayName != "Ana Lima" || !strings.Contains(id.Source, "cache") {
		t.Fatalf("%+v %v", id, err)
	}
	// The audit records who acted.
	item := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	res, err := again.svc.Resubmit(context.Background(), item)
	if err != nil || res.Action.Reviewer != "ana" {
		t.Fatalf("%+v %v", res.Action, err)
	}
}

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
			won, err := first.svc.Resubmit(ctx, id)
			if err != nil || won.Action.State != policy.ActionDone {
				t.Fatalf("%+v %v", won, err)
			}
			tm.clk.Add(2 * time.Minute)
			lost, err := second.svc.Resubmit(ctx, id)
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
			d, _ := second.svc.Item(ctx, id)
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
				if results[i], err = c.svc.Resubmit(ctx, id); err != nil {
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
			if d, _ := c.svc.Item(ctx, id); d.Status != policy.StatusScored {
				t.Fatalf("a console does not show the new result: %+v", d.Item)
			}
		}
	})
}

// Two processes, each its own console, re-submit one item at once.
var teamHelpers = map[string]func() int{
	"team-resubmit": func() int {
		c := openConsole(&testing.T{}, os.Getenv("REVIEW_URL"), os.Getenv("REVIEW_TOKEN"), os.Getenv("REVIEW_DB"), nil)
		defer c.close()
		<-time.After(time.Until(mustTime(os.Getenv("REVIEW_AT"))))
		res, err := c.svc.Resubmit(context.Background(), os.Getenv("REVIEW_ITEM"))
		fmt.Println(res.Action.State, policy.ErrorCode(res.Err), policy.ErrorCode(err))
		return 0
	},
	"team-note": func() int {
		c := openConsole(&testing.T{}, os.Getenv("REVIEW_URL"), os.Getenv("REVIEW_TOKEN"), os.Getenv("REVIEW_DB"), nil)
		defer c.close()
		res, err := c.svc.AddNote(context.Background(), os.Getenv("REVIEW_ITEM"), "Customer called, new scan coming.")
		fmt.Println(res.Note.State, err)
		return 0
	},
}

func mustTime(v string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, v)
	return t
}

func teamHelper(tm *team, c *console, tok, mode, item string, at time.Time) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "REVIEW_HELPER="+mode, "REVIEW_URL="+tm.srv.URL(), "REVIEW_DB="+c.path,
		"REVIEW_TOKEN="+tok, "REVIEW_ITEM="+item, "REVIEW_AT="+at.Format(time.RFC3339Nano))
	return cmd
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
			if _, err := tm.ana.svc.Sync(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if d, _ := tm.ana.svc.Item(ctx, id); d.Revision != 3 {
				t.Fatalf("revision %d", d.Revision)
			}
			tm.srv.Refuse()
			res, err := tm.ana.svc.Resubmit(ctx, id)
			if err != nil || res.Action.State != policy.ActionQueued {
				t.Fatalf("%+v %v", res, err)
			}
			if err := tm.srv.Accept(); err != nil {
				t.Fatal(err)
			}
			// Meanwhile ben moves it to revision 4 with a note.
			tm.clk.SetStep(tc.step)
			if _, err := tm.ben.svc.AddNote(ctx, id, "Customer is sending a sharper scan."); err != nil {
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
				if _, err := tm.ana.svc.Sync(ctx, nil); err != nil {
					t.Fatal(err)
				}
				if d, _ := tm.ana.svc.Item(ctx, id); d.Revision != 4 {
					t.Fatalf("revision %d", d.Revision)
				}
			}
			fr, err := tm.ana.svc.Flush(ctx)
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
			if out, _ := tm.ana.svc.Outbox(ctx); len(out) != 0 {
				t.Fatalf("outbox %+v", out)
			}
		})
	}
}

func TestAClaimRefusesOthersAndExpires(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	it, err := tm.ana.svc.Claim(ctx, id, 0)
	if err != nil || it.Claim == nil || it.Claim.Reviewer != "ana" || it.Claim.ExpiresAt.Sub(tm.clk.Now()) > 15*time.Minute || it.Claim.ExpiresAt.Sub(tm.clk.Now()) < 14*time.Minute {
		t.Fatalf("%+v %v", it.Claim, err)
	}
	until := policy.UntilText(it.Claim.ExpiresAt, tm.clk.Now())
	// Ben has not synced: the service refuses, and his cache learns the claim.
	res, err := tm.ben.svc.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionFailed {
		t.Fatalf("%+v %v", res, err)
	}
	if ce := conflict(t, res.Err, policy.CodeClaimed); ce.Sentence != "Ana is on this until "+until {
		t.Fatalf("sentence %q", ce.Sentence)
	}
	// Now his cache knows: refused before any call.
	arrivals := tm.srv.Arrivals(screenapi.EPResubmit)
	_, err = tm.ben.svc.Resubmit(ctx, id)
	if ce := conflict(t, err, policy.CodeClaimed); !strings.Contains(ce.Sentence, "Ana is on this until "+until) {
		t.Fatalf("sentence %q", ce.Sentence)
	}
	if _, err := tm.ben.svc.Claim(ctx, id, 0); policy.ErrorCode(err) != policy.CodeClaimed {
		t.Fatalf("claim: %v", err)
	}
	if tm.srv.Arrivals(screenapi.EPResubmit) != arrivals || tm.srv.Analyses(id) != 0 {
		t.Fatal("a refused action reached the API")
	}
	// Next skips what ana holds.
	if n, err := tm.ben.svc.Next(ctx); err != nil || n.Item == nil || n.Item.ID == id || !n.Claimed {
		t.Fatalf("next: %+v %v", n, err)
	}
	// The claim expires: an expired claim is no claim.
	tm.clk.Add(15*time.Minute + time.Second)
	res, err = tm.ben.svc.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionDone || tm.srv.Analyses(id) != 1 {
		t.Fatalf("after expiry: %+v %v analyses %d", res, err, tm.srv.Analyses(id))
	}
	// Ana may release a claim of hers; releasing is recorded.
	other := tm.srv.FindCode("INTERNAL_ERROR")
	if _, err := tm.ana.svc.Claim(ctx, other, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	// Her own claim is no obstacle to her own action.
	if res, err := tm.ana.svc.Resubmit(ctx, other); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ana on her own claim: %+v %v", res, err)
	}
	if it, err := tm.ana.svc.Release(ctx, other); err != nil || it.Claim != nil || tm.srv.ClaimOf(other) != "" {
		t.Fatalf("release: %+v %v", it.Claim, err)
	}
	if _, err := tm.ana.svc.Claim(ctx, other, 10*time.Second); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a 10 s claim: %v", err)
	}
}

func TestNextTakesTheOldestNobodyHolds(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	first, err := tm.ana.svc.Next(ctx)
	if err != nil || first.Item == nil || !first.Claimed || tm.srv.ClaimOf(first.Item.ID) != "ana" {
		t.Fatalf("%+v %v", first, err)
	}
	// Ben has not synced ana's claim: his Next meets 409 on the same item,
	// skips it, and claims the one after.
	second, err := tm.ben.svc.Next(ctx)
	if err != nil || second.Item == nil || second.Item.ID == first.Item.ID || tm.srv.ClaimOf(second.Item.ID) != "ben" {
		t.Fatalf("%+v %v", second, err)
	}
	if !second.Item.StatusSince.After(first.Item.StatusSince) && !(second.Item.StatusSince.Equal(first.Item.StatusSince) && second.Item.ID > first.Item.ID) {
		t.Fatalf("not oldest first: %s %v then %s %v", first.Item.ID, first.Item.StatusSince, second.Item.ID, second.Item.StatusSince)
	}
	// Offline: picked from the cache, not claimed, and said so.
	tm.srv.Refuse()
	off, err := tm.ben.svc.Next(ctx)
	if err != nil || off.Item == nil || off.Claimed || !strings.Contains(off.Why, "not claimed") ||
		policy.ErrorCode(off.ClaimErr) != policy.CodeAPIUnreachable {
		t.Fatalf("offline next: %+v %v", off, err)
	}
}

func TestNotesWrittenOfflineArriveOnce(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	tm.srv.Refuse()
	for _, text := range []string{"Customer called.", "New scan coming\non Monday."} {
		r, err := tm.ana.svc.AddNote(ctx, id, text)
		if err != nil || r.Note.State != policy.ActionQueued || policy.ErrorCode(r.Err) != policy.CodeAPIUnreachable {
			t.Fatalf("%+v %v", r, err)
		}
	}
	// A note never blocks a paid action on the same item.
	res, err := tm.ana.svc.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("a queued note blocked the re-submission: %+v %v", res, err)
	}
	if _, err := tm.ana.svc.AddNote(ctx, id, "  \u0007 "); policy.ErrorCode(err) != policy.CodeInvalidInput {
		t.Fatalf("a bad note: %v", err)
	}
	d, _ := tm.ana.svc.Item(ctx, id)
	if d.Notes != 2 || len(d.NoteRows) != 2 || d.NoteRows[0].Author != "ana" {
		t.Fatalf("notes in the cache: %+v", d.NoteRows)
	}
	if err := tm.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	fr, err := tm.ana.svc.Flush(ctx)
	if err != nil || fr.Done != 1 || len(fr.Notes) != 2 {
		t.Fatalf("%+v %v", fr, err)
	}
	for _, n := range fr.Notes {
		if n.Note.State != policy.ActionDone || n.Note.RemoteID == "" {
			t.Fatalf("%+v", n)
		}
	}
	if fr, _ := tm.ana.svc.Flush(ctx); len(fr.Notes) != 0 || len(tm.srv.Notes(id)) != 2 || tm.srv.Arrivals(screenapi.EPNote) != 2 {
		t.Fatalf("a second flush: %+v; the service has %d notes", fr, len(tm.srv.Notes(id)))
	}
	// Ben reads them after a sync, and ana's sync brings no duplicate.
	for _, c := range []*console{tm.ana, tm.ben} {
		if _, err := c.svc.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		d, _ := c.svc.Item(ctx, id)
		if len(d.NoteRows) != 2 || d.NoteRows[1].Text != "New scan coming\non Monday." || d.NoteRows[0].Author != "ana" {
			t.Fatalf("notes %+v", d.NoteRows)
		}
	}
}

func TestANoteWhoseAnswerWasLostIsSentOnce(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("DECODE_FAILED")
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPNote, Times: 1})
	r, err := tm.ben.svc.AddNote(ctx, id, "Customer called.")
	if err != nil || r.Note.State != policy.ActionUnknown {
		t.Fatalf("%+v %v", r, err)
	}
	// A sync brings the note before the reconciliation does.
	if _, err := tm.ben.svc.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fr, err := tm.ben.svc.Flush(ctx)
	if err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone {
		t.Fatalf("%+v %v", fr, err)
	}
	d, _ := tm.ben.svc.Item(ctx, id)
	if len(tm.srv.Notes(id)) != 1 || len(d.NoteRows) != 1 || d.NoteRows[0].Key != r.Note.Key {
		t.Fatalf("service %d notes, cache %+v", len(tm.srv.Notes(id)), d.NoteRows)
	}
}

func TestANoteKilledDuringItsSendArrivesOnce(t *testing.T) {
	tm := setupTeam(t, "")
	id := tm.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	// The service makes the note, then never answers: the process dies
	// while its request is out.
	tm.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHangAfter, Endpoint: screenapi.EPNote, Times: 1})
	tm.ana.close()
	cmd := teamHelper(tm, tm.ana, anaTok, "team-note", id, time.Now())
	cmd.Env = append(cmd.Env, "REVIEW_CLIENT_TIMEOUT=60s")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for len(tm.srv.Notes(id)) == 0 {
		select {
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("the note never reached the service")
		case <-time.After(5 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	if err := cmd.Wait(); err == nil {
		t.Fatal("the helper was not killed")
	}
	// Restart: the note is still "sending" under a lease that a later flush
	// finds run out.
	later := func() time.Time { return time.Now().Add(time.Hour) }
	again := openConsole(t, tm.srv.URL(), anaTok, tm.ana.path, later)
	defer again.close()
	fr, err := again.svc.Flush(context.Background())
	if err != nil || len(fr.Notes) != 1 || fr.Notes[0].Note.State != policy.ActionDone || fr.Notes[0].Note.Sends != 2 {
		t.Fatalf("%+v %v", fr, err)
	}
	if n := tm.srv.Notes(id); len(n) != 1 || n[0].Author != "ana" {
		t.Fatalf("service notes %+v", n)
	}
}

func TestAVersion10ServiceLeavesTeamworkOut(t *testing.T) {
	tm := setupTeam(t, screenapi.Version10)
	ctx := context.Background()
	c := tm.ana
	if c.svc.Reviewer() != "local-name" || c.svc.APIVersion() != "1.0" {
		t.Fatalf("reviewer %q version %q", c.svc.Reviewer(), c.svc.APIVersion())
	}
	id := tm.srv.FindCode("CLASSIFIER_TIMEOUT")
	if _, err := c.svc.Claim(ctx, id, 0); policy.ErrorCode(err) != policy.CodeNotOffered || !strings.Contains(err.Error(), "does not offer") {
		t.Fatalf("claim: %v", err)
	}
	if _, err := c.svc.AddNote(ctx, id, "hello"); policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatalf("note: %v", err)
	}
	if tm.srv.Arrivals(screenapi.EPClaim)+tm.srv.Arrivals(screenapi.EPNote) != 0 {
		t.Fatal("a call the service cannot answer was made")
	}
	n, err := c.svc.Next(ctx)
	if err != nil || n.Item == nil || n.Claimed || !strings.Contains(n.Why, "does not offer claims") {
		t.Fatalf("next: %+v %v", n, err)
	}
	res, err := c.svc.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionDone || res.Item.Revision != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	// A console that never learnt the version finds out from a 404.
	fresh := openConsole(t, tm.srv.URL(), anaTok, filepath.Join(t.TempDir(), "fresh.db"), nil)
	defer fresh.close()
	if _, err := fresh.svc.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if fresh.svc.APIVersion() != "1.0" {
		t.Fatalf("version %q", fresh.svc.APIVersion())
	}
}

func TestOwnNoteDoesNotTurnOwnActionIntoItemChanged(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("SOURCE_UNREACHABLE")
	if r, err := tm.ana.svc.AddNote(ctx, id, "Retrying after the storage outage."); err != nil || r.Note.State != policy.ActionDone {
		t.Fatalf("%+v %v", r, err)
	}
	res, err := tm.ana.svc.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionDone || tm.srv.Analyses(id) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestNotesReachTheAuditAndTheExport(t *testing.T) {
	tm := setupTeam(t, "")
	ctx := context.Background()
	id := tm.srv.FindCode("DECODE_FAILED")
	if _, err := tm.ben.svc.AddNote(ctx, id, "=HYPERLINK(\"x\") is what the customer typed"); err != nil {
		t.Fatal(err)
	}
	d, _ := tm.ben.svc.Item(ctx, id)
	events := map[string]bool{}
	for _, e := range d.Audit {
		events[e.Event] = events[e.Event] || e.Reviewer == "ben"
	}
	if !events["note written"] || !events["note added"] {
		t.Fatalf("audit %+v", d.Audit)
	}
	var buf bytes.Buffer
	if _, err := tm.ben.svc.ExportCSV(ctx, &buf, d.BatchID); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := recs[0][len(recs[0])-1]; h != "notes" {
		t.Fatalf("last column %q", h)
	}
	for _, r := range recs[1:] {
		if r[2] == id {
			if cell := r[len(r)-1]; !strings.HasPrefix(cell, "ben (") || !strings.Contains(cell, "is what the customer typed") {
				t.Fatalf("notes cell %q", cell)
			}
			return
		}
	}
	t.Fatal("item not exported")
}
