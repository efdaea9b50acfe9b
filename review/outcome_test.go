package review_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// An answer that breaks the contract came back after the request went out:
// the service may have run the paid analysis. The action is unknown (never
// failed, never cancellable), and the flush reconciles it with its own key.
func TestABadAnswerAfterSendingIsAnUnknownOutcome(t *testing.T) {
	for _, kind := range []screenapi.FaultKind{screenapi.FaultMalformed, screenapi.FaultOversized} {
		t.Run(string(kind), func(t *testing.T) {
			e := setup(t)
			e.sync(t)
			ctx := context.Background()
			id := e.srv.FindCode("SOURCE_UNREACHABLE")
			e.srv.SetFault(screenapi.Fault{Kind: kind, Endpoint: screenapi.EPResubmit, Times: 1})
			res, _ := e.svc.Actions.Resubmit(ctx, id)
			if res.Action.State != policy.ActionUnknown || policy.ErrorCode(res.Err) != policy.CodeInvalidResponse {
				t.Fatalf("action %s, code %s: a bad answer to a sent request must leave the outcome unknown", res.Action.State, policy.ErrorCode(res.Err))
			}
			if _, err := e.svc.Actions.Cancel(ctx, res.Action.ID); err == nil {
				t.Fatal("an action that may have been carried out was cancelled")
			}
			fr, err := e.svc.Actions.Flush(ctx)
			if err != nil || fr.Done != 1 {
				t.Fatalf("flush %+v %v", fr, err)
			}
			d, _ := e.svc.Triage.Item(ctx, id)
			if len(d.Actions) != 1 || d.Actions[0].State != policy.ActionDone || d.Actions[0].Key != res.Action.Key {
				t.Fatalf("actions %+v: want the one action done under its first key", d.Actions)
			}
			if e.srv.Analyses(id) != 1 {
				t.Fatalf("paid analyses %d, want 1", e.srv.Analyses(id))
			}
		})
	}
}

// A certificate the console does not trust stops the call in the handshake,
// before a byte of the request is written: nothing reached the service, so
// the action is queued (not failed) and goes out once the API is trusted.
func TestAnUntrustedCertificateQueuesTheAction(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	ca, err := screenapi.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, code string
		selfSigned bool
	}{{"self-signed", "CLASSIFIER_TIMEOUT", true}, {"expired", "FORENSICS_UNREACHABLE", false}} {
		t.Run(tc.name, func(t *testing.T) {
			selfSigned := tc.selfSigned
			notAfter := time.Now().Add(time.Hour)
			if !selfSigned {
				notAfter = time.Now().Add(-time.Hour)
			}
			cert, err := ca.Leaf("127.0.0.1", notAfter, selfSigned)
			if err != nil {
				t.Fatal(err)
			}
			tlsSrv, err := screenapi.StartTLS("127.0.0.1:0", screenapi.Options{Token: token}, cert)
			if err != nil {
				t.Fatal(err)
			}
			defer tlsSrv.Close()
			if !strings.HasPrefix(tlsSrv.URL(), "https://") {
				t.Fatalf("TLS service at %s", tlsSrv.URL())
			}
			db, api, svc := newService(t, tlsSrv.URL(), e.path)
			defer db.Close()
			defer api.Close()
			id := e.srv.FindCode(tc.code)
			res, _ := svc.Actions.Resubmit(ctx, id)
			if res.Action.State != policy.ActionQueued || policy.ErrorCode(res.Err) != policy.CodeTLSUntrusted {
				t.Fatalf("action %s, code %s: an untrusted certificate must queue the action", res.Action.State, policy.ErrorCode(res.Err))
			}
			if n := tlsSrv.Arrivals(screenapi.EPResubmit); n != 0 {
				t.Fatalf("%d requests reached the untrusted service", n)
			}
			// The trusted service takes it, once, under the same key.
			if fr, err := e.svc.Actions.Flush(ctx); err != nil || fr.Done != 1 {
				t.Fatalf("flush %+v %v", fr, err)
			}
			d, _ := e.svc.Triage.Item(ctx, id)
			if d.Actions[len(d.Actions)-1].Key != res.Action.Key || e.srv.Analyses(id) != 1 {
				t.Fatalf("actions %+v analyses %d", d.Actions, e.srv.Analyses(id))
			}
		})
	}
}
