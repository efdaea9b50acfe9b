package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
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
