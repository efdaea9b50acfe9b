package policy_test

import (
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// One set of words for the kinds of action, wherever a person reads them.
func TestActionWord(t *testing.T) {
	for _, tt := range []struct {
		kind policy.ActionKind
		want string
	}{
		{policy.ActionResubmit, "re-submission"},
		{policy.ActionFileRequest, "request for a new file"},
		{policy.ActionReplacement, "replacement upload"},
		{"note", "action"},
		{"", "action"},
	} {
		if got := policy.ActionWord(tt.kind); got != tt.want {
			t.Errorf("ActionWord(%q) = %q, want %q", tt.kind, got, tt.want)
		}
	}
}
