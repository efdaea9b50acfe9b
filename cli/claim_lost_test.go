package cli_test

import (
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

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
