package review

import (
	"errors"
	"testing"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// Every way a call can end, and what it tells the action machine. The
// mistake to guard against is a call that may have reached the service
// read as "not sent", or an answer that is not about the key read as one.
func TestEventOfEveryOutcome(t *testing.T) {
	ce := func(class client.Class, code policy.Code, status int) error {
		e := &client.Error{Class: class, Code: code, HTTPStatus: status}
		if class == client.ClassAnsweredNo {
			e.ReportedCode = string(code) // the service's own error body
		}
		return e
	}
	bare := func(code policy.Code, status int) error {
		return &client.Error{Class: client.ClassAnsweredNo, Code: code, HTTPStatus: status}
	}
	tests := []struct {
		name string
		err  error
		want policy.ActionEvent
	}{
		{"answer", nil, policy.EventAnswered},
		{"not connected", ce(client.ClassNotConnected, policy.CodeAPIUnreachable, 0), policy.EventNotSent},
		{"circuit open", ce(client.ClassNotStarted, policy.CodeCircuitOpen, 0), policy.EventNotSent},
		{"no budget", ce(client.ClassNotStarted, policy.CodeDeadlineExceeded, 0), policy.EventNotSent},
		{"untrusted certificate", ce(client.ClassUntrusted, policy.CodeTLSUntrusted, 0), policy.EventNotSent},
		{"timeout after sending", ce(client.ClassUnknown, policy.CodeOutcomeUnknown, 0), policy.EventNoAnswer},
		{"proxy 502", ce(client.ClassUnknown, policy.CodeOutcomeUnknown, 502), policy.EventNoAnswer},
		{"broken 200", ce(client.ClassBadAnswer, policy.CodeInvalidResponse, 200), policy.EventNoAnswer},
		{"key in use", ce(client.ClassAnsweredNo, policy.CodeIdempotencyKeyInUse, 409), policy.EventNoAnswer},
		{"429", ce(client.ClassRateLimited, policy.CodeRateLimited, 429), policy.EventRateLimited},
		{"503 with body", ce(client.ClassAnsweredNo, policy.CodeServiceUnavailable, 503), policy.EventTurnedAway},
		{"500 with body", ce(client.ClassAnsweredNo, policy.CodeInternal, 500), policy.EventTurnedAway},
		{"401", ce(client.ClassAnsweredNo, policy.CodeUnauthenticated, 401), policy.EventTurnedAway},
		{"403", ce(client.ClassAnsweredNo, policy.CodeForbidden, 403), policy.EventTurnedAway},
		{"claimed", ce(client.ClassAnsweredNo, policy.CodeClaimed, 409), policy.EventTurnedAway},
		{"not retryable", ce(client.ClassAnsweredNo, policy.CodeNotRetryable, 422), policy.EventRefused},
		{"validation", ce(client.ClassAnsweredNo, policy.CodeValidationFailed, 422), policy.EventRefused},
		{"key reused", ce(client.ClassAnsweredNo, policy.CodeIdempotencyKeyReused, 422), policy.EventRefused},
		{"not found", ce(client.ClassAnsweredNo, policy.CodeNotFound, 404), policy.EventRefused},
		{"a proxy's bare 404", bare(policy.CodeNotFound, 404), policy.EventTurnedAway},
		{"a proxy's bare 408", bare(policy.CodeInvalidResponse, 408), policy.EventTurnedAway},
		{"a proxy's bare 413", bare(policy.CodeInvalidResponse, 413), policy.EventTurnedAway},
		{"an error nobody classified", errors.New("boom"), policy.EventNoAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := event(tt.err); got != tt.want {
				t.Errorf("event = %s, want %s", got, tt.want)
			}
		})
	}
	// An unknown outcome stays unknown through everything short of an
	// answer for its key.
	for _, tt := range tests {
		to, ok := policy.Transition(policy.ActionUnknown, event(tt.err))
		if closes := ok && !to.Open(); closes != (tt.want == policy.EventAnswered || tt.want == policy.EventRefused) {
			t.Errorf("%s: an unknown action goes to %s", tt.name, to)
		}
	}
}
