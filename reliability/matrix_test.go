package reliability

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// call is one column of the matrix: a command that talks to the API.
type call struct {
	name     string
	endpoint string                    // where the service counts its arrivals
	find     func(policy.RawItem) bool // the kind of item it acts on (nil: sync)
	args     func(file, item string) []string
	cutAt    int                               // limit_data upstream: the byte at which the request is cut
	inBody   bool                              // ... inside the body: the service starts the handler
	version  string                            // the contract the service speaks ("": its default)
	effects  func(s *service, item string) int // what one call does at the service (nil: analyses, file requests)
}

var calls = []call{
	{name: "sync", endpoint: screenapi.EPBatches, cutAt: 64,
		args: func(string, string) []string { return []string{"sync"} }},
	{name: "resubmit", endpoint: screenapi.EPResubmit, find: retryable, cutAt: 64,
		args: func(_, id string) []string { return []string{"resubmit", id} }},
	// The headers of a file request are about 320 bytes and its body about
	// 420: the cut at 450 falls inside the JSON body.
	{name: "file request", endpoint: screenapi.EPFileRequest, find: needsFile, cutAt: 450, inBody: true,
		args: func(_, id string) []string {
			return []string{"request-file", id, "--message", customerMessage}
		}},
	// The file is 8 KiB: the cut at 2 KiB falls inside the multipart body,
	// after the service has read the headers and started the handler.
	{name: "replacement", endpoint: screenapi.EPReplacement, find: needsFile, cutAt: 2048, inBody: true,
		args: func(file, id string) []string { return []string{"replace", id, file} }},
	// A decision (contract 1.2) on a scored item recommended review: a
	// clear, final at once. The cut at 64 falls inside its headers.
	{name: "decision", endpoint: screenapi.EPDecision, find: toReview, cutAt: 64, version: screenapi.Version12,
		args: func(_, id string) []string {
			return []string{"decide", id, "clear", "--reason", "BENIGN_ARTEFACT", "--comment", "glare on the laminate"}
		},
		effects: func(s *service, id string) int { return len(s.Decisions(id)) }},
	// A confirmation (contract 1.2) of ben's reject, which the service's
	// data holds awaiting a second reviewer: the console's reviewer agrees.
	// The cut at 64 falls inside its headers.
	{name: "confirmation", endpoint: screenapi.EPConfirmation, find: awaitingBen, cutAt: 64, version: screenapi.Version12,
		args: func(_, id string) []string {
			return []string{"confirm", id, "--comment", "MRZ check digits do not match, as ben says"}
		},
		effects: confirmations},
}

// awaitingBen: an item whose current decision, ben's, waits for a second
// reviewer.
func awaitingBen(it policy.RawItem) bool {
	n := len(it.Decisions)
	return n > 0 && it.Decisions[n-1].State == "awaiting_confirmation" && it.Decisions[n-1].By == "ben"
}

// confirmations counts the confirmations the service recorded on the item.
func confirmations(s *service, id string) int {
	n := 0
	for _, d := range s.Decisions(id) {
		if d.ConfirmedBy != "" {
			n++
		}
	}
	return n
}

// toReview: a scored item the pre-screen recommended for review.
func toReview(it policy.RawItem) bool {
	return it.Status == "scored" && it.RiskScore != nil && *it.RiskScore >= 0 && *it.RiskScore <= 100 &&
		it.Recommendation != nil && *it.Recommendation == "review" && len(it.Decisions) == 0
}

var customerMessage = "Please send a new photo of the front of your identity document. " +
	strings.Repeat("Make sure that all four corners are visible, that there is no glare, and that the text is sharp. ", 3)

// fault is one row of the matrix: a toxic on one direction of the proxy.
type fault struct {
	name   string
	typ    string
	stream string // upstream: console to service; downstream: service to console
	attrs  func(call) map[string]any
	holds  bool   // holds data until the toxic is removed
	want   string // the outcome class the call must end in
}

func (f fault) label() string {
	arrow := "↑"
	if f.stream == "downstream" {
		arrow = "↓"
	}
	return f.name + " " + arrow
}

func fixed(m map[string]any) func(call) map[string]any { return func(call) map[string]any { return m } }

func faults() []fault {
	var out []fault
	both := func(f fault) {
		for _, s := range []string{"upstream", "downstream"} {
			g := f
			g.stream = s
			out = append(out, g)
		}
	}
	// 13 s is past the console's 11 s request timeout.
	both(fault{name: "latency 13s", typ: "latency", attrs: fixed(map[string]any{"latency": 13000}), holds: true, want: "unknown"})
	both(fault{name: "bandwidth 0", typ: "bandwidth", attrs: fixed(map[string]any{"rate": 0}), holds: true, want: "unknown"})
	both(fault{name: "slow_close 2s", typ: "slow_close", attrs: fixed(map[string]any{"delay": 2000}), want: "ok"})
	both(fault{name: "timeout 500ms", typ: "timeout", attrs: fixed(map[string]any{"timeout": 500}), want: "unknown"})
	// Upstream, the reset comes before the request reaches the service;
	// downstream, after the service has done the work.
	both(fault{name: "reset_peer", typ: "reset_peer", attrs: fixed(map[string]any{"timeout": 0}), want: "unknown"})
	out = append(out,
		fault{name: "limit_data (request cut)", typ: "limit_data", stream: "upstream",
			attrs: func(c call) map[string]any { return map[string]any{"bytes": c.cutAt} }, want: "unknown"},
		// 200 bytes: the status line, the headers and the start of the body.
		fault{name: "limit_data (answer cut)", typ: "limit_data", stream: "downstream",
			attrs: fixed(map[string]any{"bytes": 200}), want: "unknown"})
	both(fault{name: "slicer", typ: "slicer", attrs: fixed(map[string]any{"average_size": 64, "size_variation": 32, "delay": 100}), want: "ok"})
	return out
}

// short is the part of the matrix that runs in `make test`: one cell of
// each kind of outcome for each call.
var short = map[string]bool{
	"sync/limit_data (answer cut) ↓":         true,
	"sync/slicer ↓":                          true,
	"resubmit/reset_peer ↓":                  true,
	"file request/timeout 500ms ↑":           true,
	"replacement/limit_data (request cut) ↑": true,
	"decision/reset_peer ↓":                  true,
	"confirmation/limit_data (answer cut) ↓": true,
}

// row is one measured cell.
type row struct {
	call, fault string
	order       int

	class     string // outcome class of the call
	exit      int
	state     string // the action's state after the call (sync: synced / failed)
	arrivals  int    // at the call's endpoint, once the proxy was quiet
	paid      int    // paid analyses
	offline   string // a flush with the API unreachable: exit and state; "-" when not needed
	faulty    string // a flush through the same fault: exit and state; "-" when not needed
	finalExit int    // the final flush (sync: sync) with the proxy healthy
	final     string // the action's state after it
	arrEnd    int
	paidEnd   int
	cache     string // the item in the cache (sync: items cached / served)
	problems  []string
}

func (r *row) check(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		msg := oneLine(fmt.Sprintf(format, args...))
		r.problems = append(r.problems, msg)
		t.Error(msg)
	}
}

func TestFaultMatrix(t *testing.T) {
	var mu sync.Mutex
	var rows []*row
	t.Run("cells", func(t *testing.T) {
		n := 0
		for _, f := range faults() {
			for _, c := range calls {
				n++
				name := c.name + "/" + f.label()
				if !full && !short[name] {
					continue
				}
				r := &row{call: c.name, fault: f.label(), order: n, offline: "-", faulty: "-"}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					defer func() {
						mu.Lock()
						rows = append(rows, r)
						mu.Unlock()
					}()
					if c.find == nil {
						syncCell(t, r, c, f)
					} else {
						actionCell(t, r, c, f)
					}
				})
			}
		}
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i].order < rows[j].order })
	table := matrix(rows)
	t.Logf("the fault matrix:\n%s", table)
	if path := os.Getenv("RELIABILITY_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// matrix prints the rows as a table, then what failed, cell by cell.
func matrix(rows []*row) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CALL\tFAULT\tCLASS\tEXIT\tSTATE\tARRIVED\tPAID\tFLUSH OFFLINE\tFLUSH FAULTY\tFINAL EXIT\tFINAL STATE\tARRIVED\tPAID\tCACHE\tRESULT")
	var failed []string
	for _, r := range rows {
		result := "ok"
		if len(r.problems) > 0 {
			result = fmt.Sprintf("FAIL (%d)", len(r.problems))
			for _, p := range r.problems {
				failed = append(failed, fmt.Sprintf("%s / %s: %s", r.call, r.fault, p))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s\n", r.call, r.fault, r.class, r.exit, r.state,
			r.arrivals, r.paid, r.offline, r.faulty, r.finalExit, r.final, r.arrEnd, r.paidEnd, r.cache, result)
	}
	tw.Flush()
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n%d problems:\n%s\n", len(failed), strings.Join(failed, "\n"))
	}
	return b.String()
}

// actionCell: one action through the faulty proxy, then (if its outcome
// is unknown) a flush with the API unreachable, a cancel and a second try,
// then a flush with the proxy healthy.
func actionCell(t *testing.T, r *row, c call, f fault) {
	svc := startService(t, screenapi.Options{APIVersion: c.version})
	px := newProxy(t, svc.Addr())
	dir := t.TempDir()
	con := newConsole(t, dir, px.url)
	con.at(svc.url).must(cli.ExitOK, "sync")
	id := svc.pick(t, 1, map[string]bool{}, c.find)[0]
	args := c.args(writeFile(t, dir, "scan.png", scan(8<<10)), id)
	effects := func() int {
		if c.effects != nil {
			return c.effects(svc, id)
		}
		if c.endpoint == screenapi.EPFileRequest {
			return svc.FileRequests(id)
		}
		return svc.Analyses(id)
	}

	px.add(t, toxic{Type: f.typ, Stream: f.stream, Attributes: f.attrs(c)})
	res := con.run(args...)
	if f.holds {
		px.heal() // what the proxy held reaches the service now, late
	}
	svc.quiet(t)
	px.heal()

	it := con.item(id)
	if len(it.Actions) != 1 {
		t.Fatalf("the item has %d actions after one call: %s", len(it.Actions), res)
	}
	act := it.Actions[0]
	if len(it.Attempts) > 0 {
		r.class = it.Attempts[0].Class
	}
	r.exit, r.state = res.code, act.State
	r.arrivals, r.paid = svc.Arrivals(c.endpoint), svc.Analyses(id)
	r.check(t, r.class == f.want, "class %q, want %q", r.class, f.want)
	if f.typ == "limit_data" && f.stream == "upstream" {
		// The cell tests what it means to: a cut in the headers never
		// reaches the handler, a cut in the body does.
		want := 0
		if c.inBody {
			want = 1
		}
		r.check(t, r.arrivals == want, "the request cut at byte %d arrived %d times, want %d", c.cutAt, r.arrivals, want)
	}
	r.check(t, act.State == stateFor(r.class), "state %s after class %s", act.State, r.class)
	r.check(t, res.code == exitFor(act.State), "exit %d for state %s: %s", res.code, act.State, oneLine(res.stderr))
	r.check(t, res.code == 0 || strings.Count(strings.TrimSpace(res.stderr), "\n") == 0, "stderr is more than one line: %q", res.stderr)
	r.check(t, svc.keyArrivals(act.Key) <= 1, "the key arrived %d times from one call", svc.keyArrivals(act.Key))
	r.check(t, effects() <= 1 && r.paid <= 1, "%d effects, %d paid analyses after one call", effects(), r.paid)

	if act.State == "unknown" || act.State == "sending" {
		// The action may have been carried out: whatever a flush meets
		// short of an answer, it stays unknown, uncancellable, and it keeps
		// its item's one open action.
		off := con.at(deadURL(t)).run("flush")
		st := con.item(id).state(act.ID)
		r.offline = fmt.Sprintf("%d %s", off.code, st)
		r.check(t, st == "unknown", "a flush that could not connect left the action %s", st)
		r.check(t, off.code == cli.ExitUnknown, "offline flush: %s", off)
		if cr := con.run("cancel", strconv.FormatInt(act.ID, 10)); cr.code != cli.ExitRefused {
			r.check(t, false, "cancel of an action that may have been carried out: exit %d %s", cr.code, oneLine(cr.stdout+cr.stderr))
		}
		if again := con.run(args...); again.code != cli.ExitRefused {
			r.check(t, false, "a second %s while the first is unknown: exit %d %s", c.name, again.code, oneLine(again.stderr))
		}
		svc.quiet(t)

		// A reconciling flush through the same fault meets no answer
		// either: the action stays unknown, with its key, and the service
		// (replaying, or never reached) does no second analysis.
		px.add(t, toxic{Type: f.typ, Stream: f.stream, Attributes: f.attrs(c)})
		again := con.run("flush")
		if f.holds {
			px.heal()
		}
		svc.quiet(t)
		px.heal()
		st = con.item(id).state(act.ID)
		r.faulty = fmt.Sprintf("%d %s", again.code, st)
		r.check(t, st == "unknown" && again.code == cli.ExitUnknown, "a flush through the fault: exit %d, %s", again.code, st)
		r.check(t, svc.Analyses(id) <= 1 && effects() <= 1, "%d effects, %d paid analyses after a reconciling flush", effects(), svc.Analyses(id))
	}

	fin := con.run("flush")
	svc.quiet(t)
	it = con.item(id)
	r.finalExit, r.arrEnd, r.paidEnd, r.cache = fin.code, svc.Arrivals(c.endpoint), svc.Analyses(id), it.Status
	for _, a := range it.Actions {
		if a.ID == act.ID {
			r.final = a.State
		}
		r.check(t, a.State == "done" || a.State == "failed", "action %d (%s) left %s", a.ID, a.Key, a.State)
	}
	r.check(t, r.final == "done", "the action ended %s: %s", r.final, fin)
	r.check(t, fin.code == cli.ExitOK, "final flush: %s", fin)
	r.check(t, effects() == 1, "%d effects at the service for one action", effects())
	r.check(t, r.paidEnd <= 1, "%d paid analyses for one action", r.paidEnd)
	if want, _ := svc.Item(id); r.final == "done" {
		r.check(t, it.Status == want.Status, "the cache shows %s, the service %s", it.Status, want.Status)
	}
	if ds := svc.Decisions(id); r.final == "done" && len(ds) > 0 {
		// A decision or a confirmation: the cache shows the decision as the
		// service holds it, with who confirmed it.
		want, got := ds[len(ds)-1], it.Decision
		confirmed := ""
		if got != nil && got.ConfirmedBy != nil {
			confirmed = *got.ConfirmedBy
		}
		r.check(t, got != nil && got.ID == want.ID && got.State == want.State && confirmed == want.ConfirmedBy,
			"the cache shows the decision %+v (confirmed by %q), the service %+v", got, confirmed, want)
		r.cache += " " + want.State
	}
}

// syncCell: a first sync through the faulty proxy, then a sync with the
// proxy healthy; the cache must then hold what the service holds.
func syncCell(t *testing.T, r *row, c call, f fault) {
	svc := startService(t, screenapi.Options{})
	px := newProxy(t, svc.Addr())
	con := newConsole(t, t.TempDir(), px.url)

	px.add(t, toxic{Type: f.typ, Stream: f.stream, Attributes: f.attrs(c)})
	res := con.run("sync")
	if f.holds {
		px.heal()
	}
	svc.quiet(t)
	px.heal()

	r.exit, r.arrivals, r.paid = res.code, svc.Arrivals(c.endpoint), svc.TotalAnalyses()
	r.class, r.state = "ok", "synced"
	if res.code != cli.ExitOK {
		r.class, r.state = lastSyncClass(t, con.db()), "failed read"
	}
	r.check(t, r.class == f.want, "class %q, want %q: %s", r.class, f.want, oneLine(res.stderr))
	if r.class == "ok" {
		r.check(t, res.code == cli.ExitOK, "sync: %s", res)
	} else {
		// A failed read is a failed read: its own status, not
		// "outcome unknown, run flush" (4), not "queued" (5): there is no action.
		r.check(t, res.code == cli.ExitReadFailed, "a failed sync exits %d, want %d", res.code, cli.ExitReadFailed)
		r.check(t, !strings.Contains(res.stderr, "flush") && !strings.Contains(res.stderr, "queued"),
			"a failed sync talks of actions: %s", oneLine(res.stderr))
		r.check(t, strings.Count(strings.TrimSpace(res.stderr), "\n") == 0, "stderr is more than one line: %q", res.stderr)
	}

	fin := con.run("sync")
	svc.quiet(t)
	n, diff := cacheAgrees(t, con.db(), svc)
	r.finalExit, r.final, r.arrEnd, r.paidEnd = fin.code, "synced", svc.Arrivals(c.endpoint), svc.TotalAnalyses()
	r.cache = fmt.Sprintf("%d/%d items", n, len(svc.items()))
	if fin.code != cli.ExitOK {
		r.final = "failed read"
	}
	r.check(t, fin.code == cli.ExitOK, "final sync: %s", fin)
	r.check(t, diff == "", "after the final sync: %s", diff)
	r.check(t, r.paidEnd == 0, "a sync caused %d paid analyses", r.paidEnd)
	r.check(t, len(con.outbox()) == 0, "a sync left actions in the outbox")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestReconcileWhileTheServiceStillRuns: the proxy drops the connection
// while the service is still analysing; a flush right after meets the
// running request (409 IDEMPOTENCY_KEY_IN_USE) and must keep the action
// unknown, not count the 409 as the service's "no"; once the analysis has
// ended, a flush gets its stored answer. One paid analysis in all.
func TestReconcileWhileTheServiceStillRuns(t *testing.T) {
	t.Parallel()
	svc := startService(t, screenapi.Options{})
	px := newProxy(t, svc.Addr())
	con := newConsole(t, t.TempDir(), px.url)
	con.at(svc.url).must(cli.ExitOK, "sync")
	id := svc.pick(t, 1, map[string]bool{}, retryable)[0]
	svc.SetAnalysisLatency(id, 9*time.Second) // under the service's 10 s budget

	px.add(t, toxic{Type: "timeout", Stream: "downstream", Attributes: map[string]any{"timeout": 300}})
	first := con.run("resubmit", id)
	px.heal()
	if first.code != cli.ExitUnknown {
		t.Fatalf("the dropped call: %s", first)
	}
	act := con.item(id).Actions[0]

	flush := con.run("flush")
	svc.mu.Lock()
	stillRunning := svc.keysAnswered[act.Key] == 1 // the flush's request, not the first
	svc.mu.Unlock()
	st := con.item(id).state(act.ID)
	if stillRunning {
		// The first request had not been answered when this flush ended,
		// so the flush's request met it running.
		if flush.code != cli.ExitUnknown || st != "unknown" {
			t.Errorf("a flush that met the running request: exit %d, action %s: %s", flush.code, st, flush)
		}
	} else {
		t.Logf("the analysis ended before the flush did (a very loaded machine): exit %d, %s", flush.code, st)
	}
	if n := svc.keyArrivals(act.Key); n != 2 {
		t.Errorf("the key arrived %d times, want 2", n)
	}

	svc.quiet(t) // the analysis ends
	fin := con.run("flush")
	if fin.code != cli.ExitOK || con.item(id).state(act.ID) != "done" {
		t.Errorf("after the analysis ended: %s", fin)
	}
	if n := svc.Analyses(id); n != 1 {
		t.Errorf("%d paid analyses for one action", n)
	}
}

// TestFlushManyThroughAFault: a flush of seven queued actions through a
// proxy that resets every answer. The service does the work of the first
// five; the console's circuit opens after five failures, and the last two
// are not sent. Then a flush through the same fault, then a healthy one.
// An action whose request reached the service never goes back to the
// queue, an action never sent is not called unknown, and each action ends
// with one effect.
func TestFlushManyThroughAFault(t *testing.T) {
	t.Parallel()
	svc := startService(t, screenapi.Options{})
	px := newProxy(t, svc.Addr())
	dir := t.TempDir()
	con := newConsole(t, dir, px.url)
	con.at(svc.url).must(cli.ExitOK, "sync")
	offline := con.at(deadURL(t))
	offline.env["REVIEWER_RETRY_SLEEP"] = "1ms"
	used := map[string]bool{}
	kind := map[string]string{}
	for _, id := range svc.pick(t, 3, used, retryable) {
		offline.must(cli.ExitQueued, "resubmit", id)
		kind[id] = "resubmit"
	}
	for _, id := range svc.pick(t, 2, used, needsFile) {
		offline.must(cli.ExitQueued, "request-file", id, "--message", "Please send a new photo.")
		kind[id] = "file_request"
	}
	scanPath := writeFile(t, dir, "scan.png", scan(4<<10))
	for _, id := range svc.pick(t, 2, used, needsFile) {
		offline.must(cli.ExitQueued, "replace", id, scanPath)
		kind[id] = "replacement"
	}

	check := func(when string) {
		t.Helper()
		for _, a := range actions(t, con.db()) {
			arrived := svc.keyArrivals(a.key) > 0
			switch {
			case arrived && a.state != "unknown" && a.state != "done":
				t.Errorf("%s: action %d (%s) reached the service and is %s", when, a.id, a.kind, a.state)
			case !arrived && a.state != "queued":
				t.Errorf("%s: action %d (%s) never reached the service and is %s", when, a.id, a.kind, a.state)
			}
			if n := svc.Analyses(a.item) + svc.FileRequests(a.item); n > 1 {
				t.Errorf("%s: action %d (%s): %d effects", when, a.id, a.kind, n)
			}
		}
	}
	px.add(t, toxic{Type: "reset_peer", Stream: "downstream", Attributes: map[string]any{"timeout": 0}})
	for _, when := range []string{"the first flush through the fault", "the second"} {
		f := con.run("flush")
		svc.quiet(t)
		if f.code != cli.ExitUnknown {
			t.Errorf("%s: %s", when, f)
		}
		t.Logf("%s: exit %d %s", when, f.code, oneLine(f.stdout+f.stderr))
		check(when)
	}
	px.heal()
	if f := con.run("flush"); f.code != cli.ExitOK {
		t.Errorf("the healthy flush: %s", f)
	}
	svc.quiet(t)
	for _, a := range actions(t, con.db()) {
		effects := svc.Analyses(a.item)
		if a.kind == "file_request" {
			effects = svc.FileRequests(a.item)
		}
		if a.state != "done" || effects != 1 {
			t.Errorf("action %d (%s): %s with %d effects", a.id, a.kind, a.state, effects)
		}
	}
	if len(kind) != 7 {
		t.Fatalf("%d items", len(kind))
	}
}
