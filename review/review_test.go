package review_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

const token = "review-test-token"

type env struct {
	srv  *screenapi.Server
	db   *store.DB
	api  *client.Client
	svc  *review.Service
	path string
}

// roomyTimeout is the request cap of tests that do not wait for a timeout:
// what a call needs under -race on two loaded cores, with room to spare.
const roomyTimeout = 20 * time.Second

// storeClocks are the clocks the tests' caches were opened with (the
// store takes its clock once, at Open): setStoreClock moves one.
var storeClocks sync.Map // *store.DB -> *atomic.Pointer[func() time.Time]

// openStore opens the cache at path with a clock setStoreClock can move.
func openStore(path string) (*store.DB, error) {
	clk := new(atomic.Pointer[func() time.Time])
	db, err := store.Open(path, store.WithConfig(store.Config{Now: func() time.Time {
		if now := clk.Load(); now != nil {
			return (*now)()
		}
		return time.Now()
	}}))
	if err == nil {
		storeClocks.Store(db, clk)
	}
	return db, err
}

// setStoreClock replaces the clock of a cache opened by openStore.
func setStoreClock(db *store.DB, now func() time.Time) {
	clk, ok := storeClocks.Load(db)
	if !ok {
		panic("setStoreClock: the cache was not opened by openStore")
	}
	clk.(*atomic.Pointer[func() time.Time]).Store(&now)
}

func newService(t testing.TB, url, path string, mod ...func(*client.Config)) (*store.DB, *client.Client, *review.Service) {
	t.Helper()
	db, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := client.DefaultConfig()
	cfg.BaseURL, cfg.Token = url, token
	cfg.Timeout, cfg.Reserve = roomyTimeout, 20*time.Millisecond
	cfg.RetrySleep = time.Millisecond
	for _, m := range mod {
		m(&cfg)
	}
	api, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := review.New(db, api, review.Config{Budget: cfg.Budget(), Reviewer: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	return db, api, svc
}

// with builds the env's workflow again with its settings changed by mod
// (settings are given at New); the clock and test hooks stay.
func (e *env) with(t testing.TB, mod func(*review.Config)) {
	t.Helper()
	svc, err := e.svc.With(mod)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
}

func setup(t *testing.T, mod ...func(*client.Config)) *env {
	t.Helper()
	return setupVersion(t, "", mod...)
}

func setupVersion(t *testing.T, version string, mod ...func(*client.Config)) *env {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token, APIVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "cache.db")
	db, api, svc := newService(t, srv.URL(), path, mod...)
	t.Cleanup(func() { api.Close(); db.Close() })
	return &env{srv: srv, db: db, api: api, svc: svc, path: path}
}

func (e *env) sync(t *testing.T) review.SyncProgress {
	t.Helper()
	p, err := e.svc.Sync.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSyncFirstAndIncremental(t *testing.T) {
	e := setup(t)
	e.svc.SetPageSize(10)
	var seen []review.SyncProgress
	p, err := e.svc.Sync.Sync(context.Background(), func(p review.SyncProgress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if p.Pages != 5 || p.Batches != 48 || len(seen) != 5 || p.Changed != p.Items || p.Invalid < 4 {
		t.Fatalf("first sync %+v, %d progress reports", p, len(seen))
	}
	nb, ni, _ := e.db.Items.Counts(context.Background())
	if nb != 48 || ni != p.Items {
		t.Fatalf("cache holds %d batches %d items", nb, ni)
	}
	pos, _ := e.db.Sync.SyncPosition(context.Background())
	arrivals := e.srv.Arrivals(screenapi.EPBatches)

	p = e.sync(t)
	// It asks once, and what comes again it already holds: nothing is
	// taken in, nothing written.
	if p.Pages != 1 || p.Changed != 0 || p.Batches != 0 || p.Items != 0 || p.Invalid != 0 || p.Held == 0 || p.ByOthers != 0 ||
		e.srv.Arrivals(screenapi.EPBatches) != arrivals+1 {
		t.Fatalf("a sync with nothing changed: %+v", p)
	}
	if pos2, _ := e.db.Sync.SyncPosition(context.Background()); !pos2.Equal(pos) {
		t.Fatalf("position moved %v -> %v", pos, pos2)
	}
	// A change at the service comes down, alone.
	id := e.srv.FindCode("SOURCE_UNREACHABLE")
	e.srv.Touch(id, func(it *policy.RawItem) {
		s, r := 33.0, "forward"
		it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage = "scored", &s, &r, nil, nil
	})
	p = e.sync(t)
	if p.Changed != 1 {
		t.Fatalf("incremental sync %+v", p)
	}
	it, _ := e.db.Items.Item(context.Background(), id)
	if it.Status != policy.StatusScored || *it.RiskScore != 33 {
		t.Fatalf("%+v", it)
	}
}

func TestSyncStoresBrokenItemsAsInvalidAndTheRestNormally(t *testing.T) {
	e := setup(t)
	e.sync(t)
	rows, _ := e.db.Items.Items(context.Background(), store.ItemFilter{Status: policy.StatusInvalid})
	if len(rows) < 4 {
		t.Fatalf("%d invalid items", len(rows))
	}
	for _, r := range rows {
		if r.RiskScore != nil || r.Recommendation != "" || r.ErrorCode != policy.CodeInvalidResponse || r.Problem == "" {
			t.Fatalf("invalid item shown as checked: %+v", r)
		}
		siblings, _ := e.db.Items.Items(context.Background(), store.ItemFilter{BatchID: r.BatchID})
		if len(siblings) != e.srv.BatchSize(r.BatchID) {
			t.Fatalf("the rest of batch %s was not stored", r.BatchID)
		}
	}
}

func TestMalformedPageIsNotApplied(t *testing.T) {
	e := setup(t)
	e.svc.SetPageSize(10)
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultMalformed, Endpoint: screenapi.EPBatches, Times: 1})
	p, err := e.svc.Sync.Sync(context.Background(), nil)
	if policy.ErrorCode(err) != policy.CodeInvalidResponse || p.Pages != 0 {
		t.Fatalf("%+v %v", p, err)
	}
	if nb, _, _ := e.db.Items.Counts(context.Background()); nb != 0 {
		t.Fatalf("%d batches stored from a malformed page", nb)
	}
	if pos, _ := e.db.Sync.SyncPosition(context.Background()); !pos.IsZero() {
		t.Fatal("position moved")
	}
	if p = e.sync(t); p.Batches != 48 {
		t.Fatalf("%+v", p)
	}
}

func TestSyncStopsCleanlyWhenCancelled(t *testing.T) {
	e := setup(t)
	e.svc.SetPageSize(10)
	ctx, cancel := context.WithCancel(context.Background())
	p, err := e.svc.Sync.Sync(ctx, func(review.SyncProgress) { cancel() })
	// The reviewer's cancel is hers, in her words: not a deadline.
	if policy.ErrorCode(err) != policy.CodeCancelled || p.Pages != 1 || policy.ErrorMessage(err) != "sync cancelled by you after 1 page" {
		t.Fatalf("%+v %v", p, err)
	}
	if nb, _, _ := e.db.Items.Counts(context.Background()); nb != 10 {
		t.Fatalf("%d batches: the committed page must stay", nb)
	}
	if p = e.sync(t); p.Batches < 38 { // resumes from the position
		t.Fatalf("%+v", p)
	}
}

func TestEveryCodeEveryAction(t *testing.T) {
	codes := append(policy.ItemCodes(), "QUANTUM_FLUX_CAPACITOR")
	for _, code := range codes {
		t.Run(string(code), func(t *testing.T) {
			e := setup(t)
			e.sync(t)
			id := e.srv.FindCode(string(code))
			if id == "" {
				t.Fatalf("no seeded item with %s", code)
			}
			retryable := policy.Retryable(policy.NormalizeItemCode(string(code)))
			ctx := context.Background()

			res, err := e.svc.Actions.Resubmit(ctx, id)
			if retryable {
				if err != nil || res.Action.State != policy.ActionDone || res.Item.Status != policy.StatusScored {
					t.Fatalf("resubmit: %+v %v", res, err)
				}
				if e.srv.Analyses(id) != 1 {
					t.Fatalf("analyses %d", e.srv.Analyses(id))
				}
				if _, err := e.svc.Actions.RequestFile(ctx, id, "Please send a new photo."); policy.ErrorCode(err) != policy.CodeConflict {
					t.Fatalf("request file on a scored item: %v", err)
				}
				return
			}
			if policy.ErrorCode(err) != policy.CodeNotRetryable || !strings.Contains(err.Error(), string(code)) {
				t.Fatalf("resubmit of %s: %v", code, err)
			}
			if e.srv.Arrivals(screenapi.EPResubmit) != 0 {
				t.Fatal("a refused re-submission reached the API")
			}
			for _, empty := range []string{"", " \n\t"} {
				if _, err := e.svc.Actions.RequestFile(ctx, id, empty); policy.ErrorCode(err) != policy.CodeInvalidInput {
					t.Fatalf("an empty message %q: %v, want it refused", empty, err)
				}
			}
			if e.srv.FileRequests(id) != 0 {
				t.Fatal("an empty file request reached the API")
			}
			res, err = e.svc.Actions.RequestFile(ctx, id, policy.Info(code).CustomerMessage)
			if err != nil || res.Action.State != policy.ActionDone || res.Item.Status != policy.StatusAwaitingFile {
				t.Fatalf("request file: %+v %v", res, err)
			}
			if e.srv.FileRequests(id) != 1 || res.Action.Message != policy.Info(code).CustomerMessage {
				t.Fatalf("file requests %d message %q", e.srv.FileRequests(id), res.Action.Message)
			}
			res, err = e.svc.Actions.Replace(ctx, id, "new.png", screenapi.Scan(1<<10), review.ReplaceOptions{})
			if err != nil || res.Action.State != policy.ActionDone || res.Item.Status != policy.StatusScored {
				t.Fatalf("replace: %+v %v", res, err)
			}
			if e.srv.Analyses(id) != 1 {
				t.Fatalf("analyses %d", e.srv.Analyses(id))
			}
		})
	}
}

func TestRefusalsMakeNoCall(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("DECODE_FAILED")
	if _, err := e.svc.Actions.Replace(ctx, id, "x.gif", []byte("GIF89a....."), review.ReplaceOptions{}); policy.ErrorCode(err) != policy.CodeInvalidFile {
		t.Fatalf("bad file: %v", err)
	}
	big := append([]byte("\xFF\xD8\xFF"), make([]byte, policy.MaxFileSize)...)
	if _, err := e.svc.Actions.Replace(ctx, id, "x.jpg", big, review.ReplaceOptions{}); policy.ErrorCode(err) != policy.CodeInvalidFile {
		t.Fatalf("big file: %v", err)
	}
	// An open action blocks every other action on the item.
	e.srv.Refuse()
	res, err := e.svc.Actions.RequestFile(ctx, id, "please")
	if err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := e.svc.Actions.Replace(ctx, id, "x.png", screenapi.Scan(1<<10), review.ReplaceOptions{}); policy.ErrorCode(err) != policy.CodeActionOpen {
		t.Fatalf("second action: %v", err)
	}
	if e.srv.Arrivals(screenapi.EPReplacement)+e.srv.Arrivals(screenapi.EPFileRequest) != 0 {
		t.Fatal("a refused action reached the API")
	}
	// A queued action can be cancelled, and then the item is free again.
	if c, err := e.svc.Actions.Cancel(ctx, res.Action.ID); err != nil || c.State != policy.ActionCancelled {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestOfflineQueueThenFlush(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.Refuse()
	res, err := e.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionQueued || policy.ErrorCode(res.Err) != policy.CodeAPIUnreachable {
		t.Fatalf("%+v %v", res, err)
	}
	st, _ := e.svc.Sync.Connectivity(ctx)
	if st.Conn.State != review.ConnOffline {
		t.Fatalf("status %+v", st)
	}
	// Reading works with the API down.
	if items, err := e.svc.Triage.Items(ctx, store.ItemFilter{}); err != nil || len(items) == 0 {
		t.Fatal(err)
	}
	d, _ := e.svc.Triage.Item(ctx, id)
	if len(d.Attempts) != 2 || d.Next.Kind != policy.NextNone || d.OpenAction() != policy.ActionQueued {
		t.Fatalf("attempts %d next %s open %s", len(d.Attempts), d.Next.Kind, d.OpenAction())
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	fr, err := e.svc.Actions.Flush(ctx)
	if err != nil || fr.Done != 1 {
		t.Fatalf("%+v %v", fr, err)
	}
	if e.srv.Analyses(id) != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("analyses %d arrivals %d", e.srv.Analyses(id), e.srv.Arrivals(screenapi.EPResubmit))
	}
	if fr, _ = e.svc.Actions.Flush(ctx); len(fr.Results) != 0 {
		t.Fatalf("a second flush sent %+v", fr)
	}
}

func TestUnknownOutcomeIsReconciledWithTheSameKey(t *testing.T) {
	for _, kind := range []screenapi.FaultKind{screenapi.FaultResetAfter, screenapi.FaultReset, screenapi.FaultBadGateway} {
		t.Run(string(kind), func(t *testing.T) {
			e := setup(t)
			e.sync(t)
			ctx := context.Background()
			id := e.srv.FindCode("FORENSICS_UNREACHABLE")
			e.srv.SetFault(screenapi.Fault{Kind: kind, Endpoint: screenapi.EPResubmit, Times: 1})
			res, err := e.svc.Actions.Resubmit(ctx, id)
			if err != nil || res.Action.State != policy.ActionUnknown || policy.ErrorCode(res.Err) != policy.CodeOutcomeUnknown {
				t.Fatalf("%+v %v", res, err)
			}
			d, _ := e.svc.Triage.Item(ctx, id)
			if d.Next.Kind != policy.NextReconcile || d.Checked() {
				t.Fatalf("next %s", d.Next.Kind)
			}
			if _, err := e.svc.Actions.Resubmit(ctx, id); policy.ErrorCode(err) != policy.CodeActionOpen {
				t.Fatalf("a second click must be refused: %v", err)
			}
			fr, err := e.svc.Actions.Flush(ctx)
			if err != nil || fr.Done != 1 {
				t.Fatalf("%+v %v", fr, err)
			}
			if got := fr.Results[0].Action; got.Key != res.Action.Key || got.Sends != 2 {
				t.Fatalf("reconciled with key %s (sends %d), first sent with %s", got.Key, got.Sends, res.Action.Key)
			}
			if e.srv.Analyses(id) != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 2 {
				t.Fatalf("analyses %d arrivals %d: one paid analysis in all", e.srv.Analyses(id), e.srv.Arrivals(screenapi.EPResubmit))
			}
		})
	}
}

func TestRateLimitSetsAWait(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, RetryAfter: "120", Times: 1})
	res, err := e.svc.Actions.Resubmit(ctx, e.srv.FindCode("CLASSIFIER_TIMEOUT"))
	// A 429 ran nothing: the action is queued again until its Retry-After.
	if err != nil || res.Action.State != policy.ActionQueued || policy.ErrorCode(res.Err) != policy.CodeRateLimited ||
		res.Action.NotBefore.Before(time.Now().Add(100*time.Second)) {
		t.Fatalf("%+v %v", res, err)
	}
	other := e.srv.FindCode("INTERNAL_ERROR")
	d, _ := e.svc.Triage.Item(ctx, other)
	if d.Next.Kind != policy.NextWait || d.Next.Until.Before(time.Now().Add(100*time.Second)) {
		t.Fatalf("next %+v", d.Next)
	}
	before := e.srv.Arrivals(screenapi.EPResubmit)
	if _, err := e.svc.Actions.Resubmit(ctx, other); policy.ErrorCode(err) != policy.CodeRateLimitWait {
		t.Fatalf("%v", err)
	}
	if e.srv.Arrivals(screenapi.EPResubmit) != before {
		t.Fatal("a call was made during the wait")
	}
}

func TestSyncKeepsTheReviewersOpenAction(t *testing.T) {
	for _, v := range []string{screenapi.Version10, screenapi.Version11} {
		t.Run(v, func(t *testing.T) { syncKeepsTheReviewersOpenAction(t, v) })
	}
}

func syncKeepsTheReviewersOpenAction(t *testing.T, version string) {
	e := setupVersion(t, version, func(c *client.Config) { c.Timeout = 2 * time.Second }) // waits out a hang
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("SOURCE_UNREACHABLE")
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultHang, Endpoint: screenapi.EPResubmit, Times: 1})
	svcShort := e.svc
	res, _ := svcShort.Actions.Resubmit(ctx, id) // times out: unknown
	if res.Action.State != policy.ActionUnknown {
		t.Fatalf("%+v", res)
	}
	e.srv.Touch(id, func(it *policy.RawItem) { it.Attempt++ })
	if p := e.sync(t); p.Changed != 1 {
		t.Fatalf("%+v", p)
	}
	d, _ := e.svc.Triage.Item(ctx, id)
	if d.OpenAction() != policy.ActionUnknown || d.Action.Key != res.Action.Key || d.Attempt != 2 {
		t.Fatalf("sync overwrote the open action: %+v", d.Action)
	}
	if version == screenapi.Version11 {
		// The item moved on while the answer was lost: the reconciling send
		// carries the revision of the queued action, and nothing runs.
		fr, _ := e.svc.Actions.Flush(ctx)
		if fr.Failed != 1 || policy.ErrorCode(fr.Results[0].Err) != policy.CodeItemChanged || e.srv.Analyses(id) != 0 {
			t.Fatalf("%+v analyses %d", fr, e.srv.Analyses(id))
		}
		return
	}
	if fr, _ := e.svc.Actions.Flush(ctx); fr.Done != 1 || e.srv.Analyses(id) != 1 {
		t.Fatalf("%+v analyses %d", fr, e.srv.Analyses(id))
	}
}

func TestTwoFlushesAtOnceSendEachActionOnce(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	e.srv.Refuse()
	var ids []string
	for _, c := range []string{"CLASSIFIER_TIMEOUT", "CLASSIFIER_UNAVAILABLE", "FORENSICS_UNREACHABLE", "SOURCE_UNREACHABLE", "INTERNAL_ERROR"} {
		id := e.srv.FindCode(c)
		ids = append(ids, id)
		if res, err := e.svc.Actions.Resubmit(ctx, id); err != nil || res.Action.State != policy.ActionQueued {
			t.Fatalf("%+v %v", res, err)
		}
	}
	e.srv.Accept()
	// A second process on the same cache flushes at the same time.
	db2, api2, svc2 := newService(t, e.srv.URL(), e.path)
	defer db2.Close()
	defer api2.Close()
	var wg sync.WaitGroup
	for _, s := range []*review.Service{e.svc, svc2} {
		wg.Add(1)
		go func(s *review.Service) {
			defer wg.Done()
			if _, err := s.Actions.Flush(ctx); err != nil {
				t.Error(err)
			}
		}(s)
	}
	wg.Wait()
	// The first process's circuit opened while the API was refusing (five
	// failures): what it claimed went back to the queue. Flush the rest.
	if _, err := svc2.Actions.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if e.srv.Analyses(id) != 1 {
			t.Fatalf("%s analysed %d times", id, e.srv.Analyses(id))
		}
	}
	if out, _ := e.svc.Actions.Outbox(ctx); len(out) != 0 {
		t.Fatalf("outbox %+v", out)
	}
}

func TestExportCSVShowsNoScoreForUncheckedItems(t *testing.T) {
	e := setup(t)
	e.sync(t)
	var buf bytes.Buffer
	n, err := e.svc.Triage.ExportCSV(context.Background(), &buf, "")
	if err != nil || n < 100 {
		t.Fatalf("%d %v", n, err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != n+1 {
		t.Fatalf("%d records %v", len(recs), err)
	}
	for _, r := range recs[1:] {
		if r[5] != "scored" && (r[6] != "" || r[7] != "") {
			t.Fatalf("an unchecked item exported with a verdict: %v", r)
		}
	}
}

// --- two processes -------------------------------------------------------

// TestMain doubles as a helper process for the tests that need a second
// process (a crash, a race between two processes).
func TestMain(m *testing.M) {
	if mode := os.Getenv("REVIEW_HELPER"); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

func helper(mode string) int {
	if h, ok := teamHelpers[mode]; ok { // two consoles, below
		return h()
	}
	t := &testing.T{}
	db, api, svc := newService(t, os.Getenv("REVIEW_URL"), os.Getenv("REVIEW_DB"))
	defer db.Close()
	defer api.Close()
	switch mode {
	case "crash":
		svc.SetAfterIntent(func(store.Action) { syscall.Kill(os.Getpid(), syscall.SIGKILL) })
	case "bulk-crash":
		bulkCrash(svc)
		return 0
	case "crash-after-call": // the service ran it; the answer dies with the process
		svc.SetAfterCall(func(store.Action) { syscall.Kill(os.Getpid(), syscall.SIGKILL) })
	case "race":
		// Ready with the cache open; go when the parent closes stdin, so
		// that both processes write their intent at the same moment.
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
	}
	res, err := svc.Actions.Resubmit(context.Background(), os.Getenv("REVIEW_ITEM"))
	fmt.Println(res.Action.State, policy.ErrorCode(err))
	return 0
}

func helperCmd(e *env, mode, item string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "REVIEW_HELPER="+mode, "REVIEW_URL="+e.srv.URL(), "REVIEW_DB="+e.path, "REVIEW_ITEM="+item)
	return cmd
}

// TestTwoProcessesResubmittingOneItemPayForOneAnalysis starts two processes
// on one cache that write their intent for the same item at the same moment.
// The service holds the winner's analysis until the loser has finished, so
// the loser always meets the winner's open action: the partial UNIQUE index
// refuses its insert (ACTION_OPEN), every run, and one analysis is paid.
func TestTwoProcessesResubmittingOneItemPayForOneAnalysis(t *testing.T) {
	e := setup(t)
	e.sync(t)
	id := e.srv.FindCode("CLASSIFIER_UNAVAILABLE")
	release := e.srv.Hold(id)
	defer release()
	type result struct {
		i    int
		line string
		err  error
	}
	done := make(chan result, 2)
	var stdins [2]io.WriteCloser
	for i := range 2 {
		cmd := helperCmd(e, "race", id)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdins[i] = in
		lines := bufio.NewScanner(out)
		if !lines.Scan() || lines.Text() != "ready" {
			t.Fatalf("helper %d did not get ready: %q %v", i, lines.Text(), lines.Err())
		}
		go func() {
			var last string
			for lines.Scan() {
				last = lines.Text()
			}
			done <- result{i, last, cmd.Wait()}
		}()
	}
	for _, in := range stdins {
		in.Close() // both go
	}
	// The loser made no call and the winner's call is held: the loser ends
	// first. Without the refusal both would be held, so the wait is bounded.
	var first result
	select {
	case first = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("neither process finished while one analysis was held: both were sent")
	}
	if first.err != nil || strings.TrimSpace(first.line) != "ACTION_OPEN" {
		t.Fatalf("the first process to finish said %q (%v), want a refusal by the open action", first.line, first.err)
	}
	if n := e.srv.Arrivals(screenapi.EPResubmit); n > 1 {
		t.Fatalf("%d re-submissions arrived while the winner was held", n)
	}
	release()
	second := <-done
	if second.err != nil || strings.TrimSpace(second.line) != "done" {
		t.Fatalf("the winner said %q (%v), want done", second.line, second.err)
	}
	if e.srv.Analyses(id) != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("analyses %d arrivals %d", e.srv.Analyses(id), e.srv.Arrivals(screenapi.EPResubmit))
	}
	acts, _ := e.db.Outbox.ItemActions(context.Background(), id)
	if len(acts) != 1 || acts[0].State != policy.ActionDone {
		t.Fatalf("actions %+v", acts)
	}
}

func TestKilledBetweenIntentAndSendIsSentOnceAfterRestart(t *testing.T) {
	e := setup(t)
	e.sync(t)
	id := e.srv.FindCode("SOURCE_UNREACHABLE")
	cmd := helperCmd(e, "crash", id)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v", err)
	}
	if e.srv.Arrivals(screenapi.EPResubmit) != 0 {
		t.Fatal("the action was sent before the crash")
	}
	// "Restart": a new process opens the same cache.
	db2, api2, svc2 := newService(t, e.srv.URL(), e.path)
	defer db2.Close()
	defer api2.Close()
	out, _ := svc2.Actions.Outbox(context.Background())
	if len(out) != 1 || out[0].State != policy.ActionQueued || out[0].ItemID != id {
		t.Fatalf("outbox after the crash %+v", out)
	}
	fr, err := svc2.Actions.Flush(context.Background())
	if err != nil || fr.Done != 1 {
		t.Fatalf("%+v %v", fr, err)
	}
	svc2.Actions.Flush(context.Background())
	if e.srv.Analyses(id) != 1 || e.srv.Arrivals(screenapi.EPResubmit) != 1 {
		t.Fatalf("analyses %d arrivals %d", e.srv.Analyses(id), e.srv.Arrivals(screenapi.EPResubmit))
	}
}

// clock is an injected clock the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func onClock(e *env, at time.Time) *clock {
	c := &clock{t: at}
	e.svc.SetClock(c.now)
	setStoreClock(e.db, c.now)
	return c
}

func has(items []review.ItemView, id string) bool {
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}

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
	db, err := openStore(path)
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
	svc, err := review.New(db, api, review.Config{Budget: cfg.Budget(), Reviewer: "local-name"})
	if err != nil {
		t.Fatal(err)
	}
	if now != nil {
		setStoreClock(db, now)
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
		if _, err := c.svc.Sync.Sync(context.Background(), nil); err != nil {
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

// Two processes, each its own console, re-submit one item at once.
var teamHelpers = map[string]func() int{
	"team-resubmit": func() int {
		c := openConsole(&testing.T{}, os.Getenv("REVIEW_URL"), os.Getenv("REVIEW_TOKEN"), os.Getenv("REVIEW_DB"), nil)
		defer c.close()
		<-time.After(time.Until(mustTime(os.Getenv("REVIEW_AT"))))
		res, err := c.svc.Actions.Resubmit(context.Background(), os.Getenv("REVIEW_ITEM"))
		fmt.Println(res.Action.State, policy.ErrorCode(res.Err), policy.ErrorCode(err))
		return 0
	},
	"team-note": func() int {
		c := openConsole(&testing.T{}, os.Getenv("REVIEW_URL"), os.Getenv("REVIEW_TOKEN"), os.Getenv("REVIEW_DB"), nil)
		defer c.close()
		res, err := c.svc.Team.AddNote(context.Background(), os.Getenv("REVIEW_ITEM"), "Customer called, new scan coming.")
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

// A 503 is not trusted to have run nothing: the action ends failed, with
// the reason kept. Queue again is a new intent with a new key, sent once;
// an action refused for another reason is not queued again.
func TestA503FailsAndQueueAgainIsANewIntentWithANewKey(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("CLASSIFIER_TIMEOUT")
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPResubmit, Times: 1})
	res, err := e.svc.Actions.Resubmit(ctx, id)
	if err != nil || res.Action.State != policy.ActionFailed || res.Action.LastErrorCode != policy.CodeServiceUnavailable {
		t.Fatalf("after a 503: %+v %v", res.Action, err)
	}
	again, err := e.svc.Actions.QueueAgain(ctx, res.Action.ID)
	if err != nil || again.Action.State != policy.ActionDone || again.Action.ID == res.Action.ID || again.Action.Key == res.Action.Key {
		t.Fatalf("queued again: %+v %v", again.Action, err)
	}
	if e.srv.Arrivals(screenapi.EPResubmit) != 2 || e.srv.Analyses(id) != 1 {
		t.Fatalf("%d arrivals, %d analyses", e.srv.Arrivals(screenapi.EPResubmit), e.srv.Analyses(id))
	}
	if _, err := e.svc.Actions.QueueAgain(ctx, again.Action.ID); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("a done action queued again: %v", err)
	}
	other := e.srv.FindCode("INTERNAL_ERROR")
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, Times: 1})
	if res, err := e.svc.Actions.Resubmit(ctx, other); err != nil || res.Action.State != policy.ActionQueued {
		t.Fatalf("a 429: %+v %v", res.Action, err)
	} else if _, err := e.svc.Actions.QueueAgain(ctx, res.Action.ID); policy.ErrorCode(err) != policy.CodeConflict {
		t.Fatalf("a queued action queued again: %v", err)
	}
}
