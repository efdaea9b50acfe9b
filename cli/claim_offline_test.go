package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

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
