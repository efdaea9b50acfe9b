package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/screenapi"
)

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
