package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// TestMain doubles as the command line in a child process: with
// RELIABILITY_CHILD set, the test binary runs `reviewer $RELIABILITY_CHILD`
// on its environment, so that the kill loops can SIGKILL a real process.
func TestMain(m *testing.M) {
	if args := os.Getenv("RELIABILITY_CHILD"); args != "" {
		os.Exit(cli.Run(strings.Split(args, "\x1f"), cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Lookup: os.LookupEnv}))
	}
	os.Exit(m.Run())
}

func kills() int {
	if full {
		return 20
	}
	return 3
}

func seed(t *testing.T) *rand.Rand {
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("RELIABILITY_SEED"); v != "" {
		s, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("RELIABILITY_SEED=%d", s)
	return rand.New(rand.NewPCG(s, s))
}

// child is the command line in a process of its own, on the console's
// cache and configuration.
func (c *console) child(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REVIEWER_") && !strings.HasPrefix(kv, "RELIABILITY_") {
			env = append(env, kv)
		}
	}
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	cmd.Env = append(env, "RELIABILITY_CHILD="+strings.Join(args, "\x1f"))
	return cmd
}

// point is where a kill lands.
type point struct {
	name string
	// event waits for the moment (nil: right away); then the kill waits delay.
	event func(stop <-chan struct{}) bool
	delay time.Duration
}

// pickPoint chooses a kill point at random: a random moment of the run
// (start-up, opening the cache, claiming), the k-th request arriving at
// the service (the call in flight), or within tail after the k-th answer
// left it (the outcome being recorded).
func pickPoint(rng *rand.Rand, svc *service, calls int, startup, tail time.Duration) point {
	svc.mu.Lock()
	arrived, answered := svc.arrived, svc.answered
	svc.mu.Unlock()
	k := 1 + rng.IntN(max(calls, 1))
	switch rng.IntN(3) {
	case 0:
		return point{name: "at random", delay: time.Duration(rng.Int64N(int64(2*startup) + 1))}
	case 1:
		return point{name: fmt.Sprintf("at arrival %d", k), delay: time.Duration(rng.Int64N(int64(3 * time.Millisecond))),
			event: func(stop <-chan struct{}) bool {
				return svc.awaitOr(stop, func() bool { return svc.arrived >= arrived+k })
			}}
	}
	return point{name: fmt.Sprintf("after answer %d", k), delay: time.Duration(rng.Int64N(int64(tail))),
		event: func(stop <-chan struct{}) bool {
			return svc.awaitOr(stop, func() bool { return svc.answered >= answered+k })
		}}
}

// awaitOr waits for cond on the service's events, until stop is closed.
func (s *service) awaitOr(stop <-chan struct{}, cond func() bool) bool {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-stop:
			return false
		}
	}
}

// killAt runs the child and SIGKILLs it at the point. It reports whether
// the kill landed (false: the child had already ended by itself).
func killAt(t *testing.T, cmd *exec.Cmd, p point) (bool, string) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := make(chan struct{})
	reached := make(chan bool, 1)
	go func() {
		if p.event == nil {
			reached <- true
			return
		}
		reached <- p.event(stop)
	}()
	select {
	case <-exited:
		close(stop)
		return false, out.String()
	case <-reached:
	case <-time.After(settle):
		close(stop)
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("the child neither reached %s nor ended", p.name)
	}
	close(stop)
	if p.delay > 0 {
		select {
		case <-exited:
			return false, out.String()
		case <-time.After(p.delay):
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := <-exited
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true, out.String()
		}
	}
	return false, out.String()
}

// startup measures how long the child takes to start and open the cache.
func startup(t *testing.T, con *console) time.Duration {
	t.Helper()
	start := time.Now()
	if out, err := con.child("outbox").CombinedOutput(); err != nil {
		t.Fatalf("child: %v %s", err, out)
	}
	return time.Since(start)
}

// actionRow is an action as the cache holds it.
type actionRow struct {
	id              int64
	item, kind, key string
	state           string
	leaseUntilMS    int64
}

func actions(t *testing.T, path string) map[int64]actionRow {
	t.Helper()
	rows, err := openCache(t, path).Query(`SELECT id, item_id, kind, idempotency_key, state, COALESCE(lease_until, 0) FROM actions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]actionRow{}
	for rows.Next() {
		var a actionRow
		if err := rows.Scan(&a.id, &a.item, &a.kind, &a.key, &a.state, &a.leaseUntilMS); err != nil {
			t.Fatal(err)
		}
		out[a.id] = a
	}
	return out
}

// killBench is what the flush and action kill loops start from: a service
// of 120 batches with a short analysis, a synced console, the same console
// pointed at a dead address, a small PDF to upload, and how long a child
// takes to start.
type killBench struct {
	rng          *rand.Rand
	svc          *service
	con, offline *console
	scanPath     string
	spin         time.Duration
}

func newKillBench(t *testing.T) killBench {
	k := killBench{rng: seed(t)}
	k.svc = startService(t, screenapi.Options{Batches: 120, AnalysisLatency: 15 * time.Millisecond})
	dir := t.TempDir()
	k.con = newConsole(t, dir, k.svc.url)
	k.con.must(cli.ExitOK, "sync")
	k.offline = k.con.at(deadURL(t))
	k.offline.env["REVIEWER_RETRY_SLEEP"] = "1ms"
	k.scanPath = writeFile(t, dir, "scan.png", scan(4<<10))
	k.spin = startup(t, k.con)
	return k
}

// TestKillDuringFlush: SIGKILLs at random points of `reviewer flush` in a
// child process, each time with new actions queued. After each kill the
// cache passes integrity_check, no action is lost, none that reached the
// service is back in the queue, and no item had two effects. At the end,
// once the dead senders' leases ran out, a flush settles every action with
// exactly one effect each at the service.
func TestKillDuringFlush(t *testing.T) {
	t.Parallel() // most of it is waiting for leases to run out
	k := newKillBench(t)
	rng, svc, con, offline, scanPath, spin := k.rng, k.svc, k.con, k.offline, k.scanPath, k.spin

	used := map[string]bool{}
	want := map[string]string{} // item -> action kind
	landed := 0
	for round := 0; landed < kills(); round++ {
		if round >= 4*kills() {
			t.Fatalf("only %d of %d kills landed in %d rounds", landed, kills(), round)
		}
		r := svc.pick(t, 1, used, retryable)[0]
		f := svc.pick(t, 2, used, needsFile)
		offline.must(cli.ExitQueued, "resubmit", r)
		offline.must(cli.ExitQueued, "request-file", f[0], "--message", "Please send a new photo.")
		offline.must(cli.ExitQueued, "replace", f[1], scanPath)
		want[r], want[f[0]], want[f[1]] = "resubmit", "file_request", "replacement"

		p := pickPoint(rng, svc, 3, spin, 10*time.Millisecond)
		killed, out := killAt(t, con.child("flush"), p)
		if killed {
			landed++
		}
		t.Logf("round %d: kill %s (+%v): landed %v %s", round, p.name, p.delay.Round(time.Microsecond), killed, oneLine(out))
		svc.quiet(t)
		checkAfterKill(t, svc, con.db(), want)
	}

	settleAfterKills(t, svc, con, offline, want)
	t.Logf("%d kills of a flush landed; %d actions, each with one effect", landed, len(want))
}

// TestKillDuringAnAction: SIGKILLs at random points of the action
// commands themselves (resubmit, request-file, replace) in a child process
// with the service reachable: before the intent is stored, while the
// request is in flight, while the answer is being recorded. After each kill
// the cache is sound; no key reaches the service without an action in the
// cache holding it (durable intent first); an action that reached the
// service is never queued again. At the end every stored action is settled
// with one effect, and an item whose intent was never stored had none.
func TestKillDuringAnAction(t *testing.T) {
	t.Parallel()
	k := newKillBench(t)
	rng, svc, con, offline, scanPath, spin := k.rng, k.svc, k.con, k.offline, k.scanPath, k.spin

	used := map[string]bool{}
	want := map[string]string{} // item -> the kind of its stored action
	var untouched []string      // items whose intent a kill cut before it was stored
	landed := 0
	for round := 0; landed < kills(); round++ {
		if round >= 4*kills() {
			t.Fatalf("only %d of %d kills landed in %d rounds", landed, kills(), round)
		}
		var kind string
		var args []string
		switch rng.IntN(3) {
		case 0:
			id := svc.pick(t, 1, used, retryable)[0]
			kind, args = "resubmit", []string{"resubmit", id}
		case 1:
			id := svc.pick(t, 1, used, needsFile)[0]
			kind, args = "file_request", []string{"request-file", id, "--message", "Please send a new photo."}
		default:
			id := svc.pick(t, 1, used, needsFile)[0]
			kind, args = "replacement", []string{"replace", id, scanPath}
		}
		item := args[1]
		p := pickPoint(rng, svc, 1, spin, 5*time.Millisecond)
		killed, out := killAt(t, con.child(args...), p)
		if killed {
			landed++
		}
		t.Logf("round %d: %s, kill %s (+%v): landed %v %s", round, kind, p.name, p.delay.Round(time.Microsecond), killed, oneLine(out))
		svc.quiet(t)
		stored := false
		for _, a := range actions(t, con.db()) {
			stored = stored || a.item == item
		}
		if stored {
			want[item] = kind
		} else {
			untouched = append(untouched, item)
		}
		checkAfterKill(t, svc, con.db(), want)
	}
	settleAfterKills(t, svc, con, offline, want)
	for _, item := range untouched {
		if svc.Analyses(item) != 0 || svc.FileRequests(item) != 0 {
			t.Errorf("%s had an effect at the service without a stored intent", item)
		}
	}
	t.Logf("%d kills of an action landed; %d actions stored, each with one effect; %d cut before the intent, with none",
		landed, len(want), len(untouched))
}

// settleAfterKills: once the killed senders' leases ran out, a flush with
// the API unreachable must put nothing that reached the service back in
// the queue, and a flush with the service healthy must settle every action
// with exactly one effect each.
func settleAfterKills(t *testing.T, svc *service, con, offline *console, want map[string]string) {
	t.Helper()
	var lease int64
	for _, a := range actions(t, con.db()) {
		if a.state == "sending" {
			lease = max(lease, a.leaseUntilMS)
		}
	}
	if wait := time.Until(time.UnixMilli(lease + 1)); lease > 0 && wait > 0 {
		t.Logf("waiting %v for the killed senders' leases to run out", wait.Round(time.Millisecond))
		<-time.After(wait)
	}
	// A flush that cannot connect meets the dead senders' actions first:
	// those that reached the service may have been carried out, so they
	// must not go back to the queue.
	off := offline.run("flush")
	t.Logf("flush with the API unreachable: exit %d %s", off.code, oneLine(off.stdout+off.stderr))
	checkAfterKill(t, svc, con.db(), want)
	fin := con.run("flush")
	svc.quiet(t)
	if fin.code != cli.ExitOK {
		t.Errorf("final flush: %s", fin)
	}
	checkAfterKill(t, svc, con.db(), want)
	for _, a := range actions(t, con.db()) {
		if a.state != "done" {
			t.Errorf("action %d on %s (%s) ended %s", a.id, a.item, a.kind, a.state)
		}
		if svc.keyArrivals(a.key) < 1 {
			t.Errorf("action %d (%s) never reached the service", a.id, a.kind)
		}
	}
	for item, kind := range want {
		analyses, requests := svc.Analyses(item), svc.FileRequests(item)
		switch {
		case kind == "file_request" && (requests != 1 || analyses != 0):
			t.Errorf("file request on %s: %d requests, %d analyses", item, requests, analyses)
		case kind != "file_request" && analyses != 1:
			t.Errorf("%s on %s: %d paid analyses", kind, item, analyses)
		}
	}
}

// checkAfterKill: the cache is sound, every action is there and in a state
// that says where it is, one that reached the service is not queued
// again, and no item had more than one effect.
func checkAfterKill(t *testing.T, svc *service, path string, want map[string]string) {
	t.Helper()
	if got := integrity(t, path); got != "ok" {
		t.Fatalf("integrity_check: %s", got)
	}
	byItem, byKey := map[string]actionRow{}, map[string]bool{}
	for _, a := range actions(t, path) {
		byItem[a.item], byKey[a.key] = a, true
		switch a.state {
		case "queued", "sending", "unknown", "done", "failed":
		default:
			t.Errorf("action %d on %s is %s", a.id, a.item, a.state)
		}
		if n := svc.keyArrivals(a.key); n > 0 && (a.state == "queued" || a.state == "cancelled") {
			t.Errorf("action %d on %s reached the service %d times and is %s again", a.id, a.item, n, a.state)
		}
	}
	svc.mu.Lock()
	for key := range svc.keys {
		if !byKey[key] {
			t.Errorf("the key %s reached the service but no action in the cache holds it", key)
		}
	}
	svc.mu.Unlock()
	for item, kind := range want {
		a, ok := byItem[item]
		if !ok || a.kind != kind {
			t.Errorf("the %s on %s is lost: %+v", kind, item, a)
		}
		if svc.Analyses(item) > 1 || svc.FileRequests(item) > 1 {
			t.Errorf("%s on %s: %d analyses, %d file requests", kind, item, svc.Analyses(item), svc.FileRequests(item))
		}
	}
}

// TestKillDuringSync: SIGKILLs at random points of `reviewer sync` in a
// child process, with changes at the service before each. After each kill
// the cache passes integrity_check, the queued actions are untouched, and
// nothing was paid for; at the end, one sync brings the cache level with
// the service, item by item.
func TestKillDuringSync(t *testing.T) {
	t.Parallel()
	rng := seed(t)
	// The seeded batches end in the past, so every change the service makes
	// on its own clock is newer than anything the cache holds (and a date
	// ahead of the console's clock would be a broken answer).
	svc := startService(t, screenapi.Options{Batches: 250})
	dir := t.TempDir()
	con := newConsole(t, dir, svc.url)
	con.must(cli.ExitOK, "sync")
	offline := con.at(deadURL(t))
	offline.env["REVIEWER_RETRY_SLEEP"] = "1ms"
	used := map[string]bool{}
	r := svc.pick(t, 1, used, retryable)[0]
	f := svc.pick(t, 1, used, needsFile)[0]
	offline.must(cli.ExitQueued, "resubmit", r)
	offline.must(cli.ExitQueued, "request-file", f, "--message", "Please send a new photo.")
	before := actions(t, con.db())
	spin := startup(t, con)
	items := svc.items()

	landed := 0
	for round := 0; landed < kills(); round++ {
		if round >= 4*kills() {
			t.Fatalf("only %d of %d kills landed in %d rounds", landed, kills(), round)
		}
		// Change items in most batches, so that the sync has pages to bring.
		for _, it := range items {
			if rng.IntN(3) == 0 {
				svc.Touch(it.ID, func(*policy.RawItem) {})
			}
		}
		p := pickPoint(rng, svc, 3, spin, 20*time.Millisecond)
		killed, out := killAt(t, con.child("sync"), p)
		if killed {
			landed++
		}
		t.Logf("round %d: kill %s (+%v): landed %v %s", round, p.name, p.delay.Round(time.Microsecond), killed, oneLine(out))
		svc.quiet(t)
		if got := integrity(t, con.db()); got != "ok" {
			t.Fatalf("integrity_check: %s", got)
		}
		after := actions(t, con.db())
		for id, a := range before {
			if after[id] != a {
				t.Errorf("a sync changed action %d: %+v, was %+v", id, after[id], a)
			}
		}
		if len(after) != len(before) {
			t.Errorf("%d actions after a sync, %d before", len(after), len(before))
		}
		if n := svc.TotalAnalyses(); n != 0 {
			t.Fatalf("a sync caused %d paid analyses", n)
		}
	}
	con.must(cli.ExitOK, "sync")
	if n, diff := cacheAgrees(t, con.db(), svc); diff != "" {
		t.Errorf("after the final sync (%d items): %s", n, diff)
	}
	t.Logf("%d kills of a sync landed; the cache agrees with the service", landed)
}
