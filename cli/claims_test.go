package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/screenapi"
)

const anaTok, benTok = "cli-token-ana-0123", "cli-token-ben-0123"

// teamHarnesses are two consoles (two caches, two tokens) on one service.
func teamHarnesses(t *testing.T, version string) (*screenapi.Server, *harness, *harness) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(name, tok string) *harness {
		dir := t.TempDir()
		return &harness{t: t, srv: srv, dir: dir, env: map[string]string{
			"REVIEWER_API_URL": srv.URL(), "REVIEWER_API_TOKEN": tok, "REVIEWER_DB": filepath.Join(dir, name+".db"),
			"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "15s", "REVIEWER_NAME": "local-" + name,
		}}
	}
	ana, ben := mk("ana", anaTok), mk("ben", benTok)
	ana.want(0, "sync")
	ben.want(0, "sync")
	return srv, ana, ben
}

func TestTeamCommands(t *testing.T) {
	srv, ana, ben := teamHarnesses(t, "")
	if out, _ := ana.want(0, "me"); !strings.Contains(out, "ana (Ana Lima), from the screening service") {
		t.Fatalf("me: %s", out)
	}

	// A claim by ana: ben's actions exit 6 with one line naming her.
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	if out, _ := ana.want(0, "claim", id, "--ttl", "20m"); !strings.Contains(out, "claimed "+id+" until") {
		t.Fatalf("claim: %s", out)
	}
	for i := 0; i < 2; i++ { // the service says it, then ben's cache does
		if _, errs := ben.want(6, "resubmit", id); !strings.Contains(errs, "CLAIMED") || !strings.Contains(errs, "Ana is on this until") {
			t.Fatalf("ben's re-submission: %s", errs)
		}
	}
	ben.want(6, "claim", id)
	if srv.Analyses(id) != 0 {
		t.Fatal("a claimed item was analysed")
	}
	ana.want(2, "claim", id, "--ttl", "10s")

	// Notes and the team fields.
	ana.want(0, "note", id, "Customer called, new scan coming.")
	out, _ := ana.want(0, "items", "--json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range items {
		for _, k := range []string{"revision", "claimed_by", "claim_expires_at", "status_since", "notes_count"} {
			if _, ok := it[k]; !ok {
				t.Fatalf("items --json lacks %q", k)
			}
		}
		if it["id"] == id {
			found = true
			if it["claimed_by"] != "ana" || it["notes_count"] != 1.0 || it["revision"] != 2.0 || it["claim_expires_at"] == nil { // the note moved it, the claim did not
				t.Fatalf("the claimed item: %v", it)
			}
		}
	}
	if !found {
		t.Fatal("item not listed")
	}
	ben.want(0, "sync")
	out, _ = ben.want(0, "item", id)
	for _, want := range []string{"revision: 2", "claim: ana until", "ana: Customer called, new scan coming."} {
		if !strings.Contains(out, want) {
			t.Fatalf("item lacks %q:\n%s", want, out)
		}
	}
	ana.want(0, "release", id)

	// Both re-submit one item: one analysis; the other exits 6 naming what.
	other := srv.FindCode("INTERNAL_ERROR")
	ana.want(0, "resubmit", other)
	_, errs := ben.want(6, "resubmit", other)
	if !strings.Contains(errs, "ITEM_CHANGED") || !strings.Contains(errs, "re-analysed") || !strings.Contains(errs, "score") {
		t.Fatalf("ben: %s", errs)
	}
	if srv.Analyses(other) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(other))
	}

	// A note written offline: exit 5, then once after a flush.
	srv.Refuse()
	ben.want(5, "note", other, "Written on the train.")
	if err := srv.Accept(); err != nil {
		t.Fatal(err)
	}
	if out, _ := ben.want(0, "flush"); !strings.Contains(out, "1 notes: 1 added") {
		t.Fatalf("flush: %s", out)
	}
	ben.want(0, "flush")
	if n := srv.Notes(other); len(n) != 1 || n[0].Author != "ben" {
		t.Fatalf("notes %+v", n)
	}

	// Next claims the oldest item nobody holds.
	out, _ = ben.want(0, "next", "--json")
	var next map[string]any
	if err := json.Unmarshal([]byte(out), &next); err != nil || next["claimed"] != true {
		t.Fatalf("next: %s %v", out, err)
	}
	nid := next["item"].(map[string]any)["id"].(string)
	if srv.ClaimOf(nid) != "ben" {
		t.Fatalf("next did not claim %s", nid)
	}
}

func TestTeamCommandsOnAVersion10Service(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, screenapi.Version10)
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	if out, _ := ana.want(0, "me"); !strings.Contains(out, "local-ana") || !strings.Contains(out, "does not offer") {
		t.Fatalf("me: %s", out)
	}
	for _, args := range [][]string{{"claim", id}, {"release", id}, {"note", id, "hello"}} {
		if _, errs := ana.want(3, args...); !strings.Contains(errs, "this service does not offer") {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	if out, _ := ana.want(0, "next"); !strings.Contains(out, "does not offer claims") {
		t.Fatalf("next: %s", out)
	}
	ana.want(0, "resubmit", id)
	out, _ := ana.want(0, "items", "--json")
	var items []map[string]any
	json.Unmarshal([]byte(out), &items)
	if items[0]["revision"] != nil || items[0]["claimed_by"] != nil {
		t.Fatalf("a 1.0 item: %v", items[0])
	}
}

// A claim or a release whose answer was lost after the service ran it is
// an unknown outcome (exit 4), but it has no key and no place in the
// outbox: the line must not send the reviewer to 'reviewer flush' (which
// never reconciles a claim) nor call the console offline; it says to run
// the same command again, which renews a claim and never doubles it.
func TestAClaimWhoseAnswerIsLostSaysToClaimAgain(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, "")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	for _, op := range []struct{ cmd, ep string }{{"claim", screenapi.EPClaim}, {"release", screenapi.EPRelease}} {
		srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: op.ep, Times: 1})
		_, errs := ana.want(4, op.cmd, id)
		if strings.Contains(errs, "offline") || strings.Contains(errs, "reconcile it with the same key") ||
			!strings.Contains(errs, "reviewer "+op.cmd+" "+id) {
			t.Fatalf("%s whose answer was lost: %s", op.cmd, errs)
		}
		out, _ := ana.want(0, op.cmd, id) // and running it again settles it
		if !strings.Contains(out, map[string]string{"claim": "claimed", "release": "released"}[op.cmd]) {
			t.Fatalf("%s again: %s", op.cmd, out)
		}
	}
}

// A claim is never queued: with the service unreachable, claim, release
// and next say the claim could not be made, that nothing is queued, and
// to run them again (exit 7), never "not sent, queued" (5) nor a silent 0.
func TestClaimWhileUnreachableSaysNothingIsQueued(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, "")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	srv.Refuse()

	for _, args := range [][]string{{"claim", id}, {"release", id}} {
		_, errs := ana.want(7, args...)
		if !strings.Contains(errs, "nothing is queued") || !strings.Contains(errs, "run 'reviewer "+strings.Join(args, " ")+"' again") ||
			strings.Contains(errs, "flush") {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	out, errs := ana.want(7, "next")
	if !strings.Contains(out, "not claimed") || !strings.Contains(errs, "could not be claimed") ||
		!strings.Contains(errs, "run 'reviewer next' again") {
		t.Fatalf("next: %s / %s", out, errs)
	}
	out, _ = ana.want(7, "next", "--json")
	var next map[string]any
	if err := json.Unmarshal([]byte(out), &next); err != nil || next["claimed"] != false || next["item"] == nil {
		t.Fatalf("next --json: %s %v", out, err)
	}
	if box, _ := ana.want(0, "outbox", "--json"); strings.TrimSpace(box) != "[]" {
		t.Fatalf("a claim was queued: %s", box)
	}

	// Reachable again: the same command claims.
	if err := srv.Accept(); err != nil {
		t.Fatal(err)
	}
	if out, _ := ana.want(0, "claim", id); !strings.Contains(out, "claimed "+id) {
		t.Fatalf("claim: %s", out)
	}
}

// A claim (a PUT) whose answer is a 200 that cannot be read, an HTML page
// or an empty body, may have been made: an unknown outcome (exit 4) that
// says to run the claim again (no flush settles a claim), never exit 1.
func TestClaimWithAnUnreadableAnswerIsAnUnknownOutcome(t *testing.T) {
	for _, kind := range []screenapi.FaultKind{screenapi.FaultHTMLPage, screenapi.FaultEmpty, screenapi.FaultMalformed} {
		t.Run(string(kind), func(t *testing.T) {
			srv, ana, _ := teamHarnesses(t, "")
			id := srv.FindCode("CLASSIFIER_TIMEOUT")
			srv.SetFault(screenapi.Fault{Kind: kind, Endpoint: screenapi.EPClaim, Times: 1})
			_, errs := ana.want(4, "claim", id)
			if !strings.Contains(errs, "may have reached the service") || !strings.Contains(errs, "run 'reviewer claim "+id+"' again") {
				t.Fatalf("claim: %s", errs)
			}
			srv.SetFault(screenapi.Fault{Kind: kind, Endpoint: screenapi.EPRelease, Times: 1})
			if _, errs := ana.want(4, "release", id); !strings.Contains(errs, "run 'reviewer release "+id+"' again") {
				t.Fatalf("release: %s", errs)
			}
			srv.SetFault(screenapi.Fault{Kind: kind, Endpoint: screenapi.EPClaim, Times: 1})
			out, errs := ana.want(4, "next")
			if !strings.Contains(out, "not claimed") || !strings.Contains(errs, "may have reached the service") || !strings.Contains(errs, "again") {
				t.Fatalf("next: %s / %s", out, errs)
			}
			if box, _ := ana.want(0, "outbox", "--json"); strings.TrimSpace(box) != "[]" {
				t.Fatalf("a claim was queued: %s", box)
			}
			// The service answers again: the same command settles it.
			if out, _ := ana.want(0, "claim", id); !strings.Contains(out, "claimed "+id) {
				t.Fatalf("claim: %s", out)
			}
		})
	}
}

// A claim that does not end today names its day: the service here runs two
// days ahead, so every claim it grants ends on another day than the
// reviewer's today, and "until 10:19" alone would be a lie.
func TestAClaimThatEndsAnotherDayIsShownWithItsDate(t *testing.T) {
	ahead := 48 * time.Hour
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Now: func() time.Time { return time.Now().Add(ahead) },
		Reviewers: []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(name, tok string) *harness {
		dir := t.TempDir()
		return &harness{t: t, srv: srv, dir: dir, env: map[string]string{
			"REVIEWER_API_URL": srv.URL(), "REVIEWER_API_TOKEN": tok, "REVIEWER_DB": filepath.Join(dir, name+".db"),
			"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "15s",
		}}
	}
	ana, ben := mk("ana", anaTok), mk("ben", benTok)
	ana.want(0, "sync")
	ben.want(0, "sync")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")

	claimed, _ := ana.want(0, "claim", id, "--ttl", "20m")
	out, _ := ana.want(0, "items", "--json")
	var items []struct {
		ID             string    `json:"id"`
		ClaimExpiresAt time.Time `json:"claim_expires_at"`
	}
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatal(err)
	}
	var end time.Time
	for _, it := range items {
		if it.ID == id {
			end = it.ClaimExpiresAt
		}
	}
	if end.IsZero() {
		t.Fatalf("the claim is not in items --json:\n%s", out)
	}
	day, clock := end.Local().Format("Jan 2"), end.Local().Format("15:04")
	if !strings.Contains(claimed, "until "+day) || !strings.Contains(claimed, clock) {
		t.Fatalf("claim says %q; want the date %q and the time %q", claimed, day, clock)
	}
	ben.want(0, "sync")
	if out, _ := ben.want(0, "item", id); !strings.Contains(out, "claim: ana until "+day) {
		t.Fatalf("item lacks the claim's date %q:\n%s", day, out)
	}
	if _, errs := ben.want(6, "resubmit", id); !strings.Contains(errs, "Ana is on this until "+day) {
		t.Fatalf("ben's re-submission lacks the claim's date %q: %s", day, errs)
	}
}

// claim --ttl refuses what REVIEWER_CLAIM_TTL refuses, in the same words:
// "0s" is not "the default" (which shortened a one-hour claim to 15
// minutes), and no call is made.
func TestClaimTTLFlagRefusesWhatTheVariableRefuses(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, "")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	ana.want(0, "claim", id, "--ttl", "1h")
	before := srv.Arrivals(screenapi.EPClaim)
	for _, bad := range []string{"0s", "0", "30s", "2h", "1.5s", "soon", ""} {
		_, flagErr := ana.want(2, "claim", id, "--ttl", bad)
		if bad == "" {
			continue // an empty flag is a mistake; an empty variable is an unset one
		}
		ana.env["REVIEWER_CLAIM_TTL"] = bad
		_, envErr := ana.want(2, "claim", id)
		delete(ana.env, "REVIEWER_CLAIM_TTL")
		i := strings.Index(flagErr, "--ttl: ")
		j := strings.Index(flagErr, " (see reviewer -h)")
		if i < 0 || j < i || !strings.Contains(envErr, "REVIEWER_CLAIM_TTL: "+flagErr[i+len("--ttl: "):j]) {
			t.Errorf("--ttl %q: %q\nREVIEWER_CLAIM_TTL=%q: %q\nthey must refuse it alike", bad, flagErr, bad, envErr)
		}
	}
	if got := srv.Arrivals(screenapi.EPClaim); got != before {
		t.Fatalf("%d claims reached the service after a refused length", got-before)
	}
	if got := srv.ClaimOf(id); got != "ana" {
		t.Fatalf("the one-hour claim is gone: held by %q", got)
	}
}

// The window's claim timing is a setting: the time away after which a
// claim held only by looking is let go. The
// flag wins over the environment, each has its default, a value out of its
// range stops the program naming where it came from, and the help says
// both.
func TestClaimTimingsAreConfigured(t *testing.T) {
	for _, tc := range []struct {
		flag, env         string
		read              func(cli.Window) time.Duration
		def               time.Duration
		envVal, flagVal   string
		envWant, flagWant time.Duration
		badFlag, badEnv   string
	}{
		{"--claim-away", "REVIEWER_CLAIM_AWAY", func(w cli.Window) time.Duration { return w.Service.Team.ClaimAway() },
			15 * time.Minute, "30m", "2h", 30 * time.Minute, 2 * time.Hour, "30s", "9h"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			h := newHarness(t)
			if got, _ := h.window(0); tc.read(got) != tc.def {
				t.Fatalf("default %v", tc.read(got))
			}
			h.env[tc.env] = tc.envVal
			if got, _ := h.window(0); tc.read(got) != tc.envWant {
				t.Fatalf("%s=%s: %v", tc.env, tc.envVal, tc.read(got))
			}
			if got, _ := h.window(0, tc.flag, tc.flagVal); tc.read(got) != tc.flagWant {
				t.Fatalf("%s %s: %v", tc.flag, tc.flagVal, tc.read(got))
			}
			if _, errs := h.window(2, tc.flag, tc.badFlag); !strings.Contains(errs, tc.flag) {
				t.Fatalf("%s %s: %s", tc.flag, tc.badFlag, errs)
			}
			h.env[tc.env] = tc.badEnv
			if _, errs := h.window(2, "items"); !strings.Contains(errs, tc.env) {
				t.Fatalf("%s=%s: %s", tc.env, tc.badEnv, errs)
			}
			delete(h.env, tc.env)
			if help, _ := h.want(0, "-h"); !strings.Contains(help, strings.TrimPrefix(tc.flag, "-")) || !strings.Contains(help, tc.env) {
				t.Fatalf("the help does not say %s: %s", tc.flag, help)
			}
		})
	}
}
