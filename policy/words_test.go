package policy_test

import (
	"strings"
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

// Every status and every state has a word; a failed action reads as
// refused, and a status the console does not know is shown, not dropped.
func TestStatusAndStateWords(t *testing.T) {
	for _, s := range policy.Statuses() {
		if w := policy.StatusWord(s); w == "" || strings.Contains(w, "_") {
			t.Errorf("status %s: %q", s, w)
		}
	}
	if policy.StatusWord(policy.StatusAwaitingFile) != "awaiting file" || policy.StatusWord("under_review") != "under review" {
		t.Error("awaiting_file and an unknown status")
	}
	for _, st := range policy.ActionStates() {
		if policy.StateWord(st) == "" {
			t.Errorf("state %s has no word", st)
		}
	}
	if policy.StateWord(policy.ActionFailed) != "refused" {
		t.Errorf("failed reads %q", policy.StateWord(policy.ActionFailed))
	}
}
