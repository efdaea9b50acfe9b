package screenapi

import (
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// TestTheServiceAndTheConsoleReadTheContractAlike: the reference service
// judges by its own reading of the contract (contract.go), not by the
// console's policy, so that one mistake cannot pass both sides. The two
// readings are held to each other here, code by code and case by case.
func TestTheServiceAndTheConsoleReadTheContractAlike(t *testing.T) {
	codes := append(policy.ItemCodes(), policy.CodeInvalidResponse, "SOMETHING_NEW", "")
	for _, c := range codes {
		if got, want := rerunCannotHelp(string(c)), policy.IsItemCode(c) && !policy.Retryable(c); got != want {
			t.Errorf("%q: the service refuses a re-run %v, the console %v", c, got, want)
		}
	}
	if len(itemCodes) != len(policy.ItemCodes()) {
		t.Errorf("the service knows %d item codes, the console %d", len(itemCodes), len(policy.ItemCodes()))
	}
	for _, b := range []string{"\xff\xd8\xff\xe0", "\xff\xd8", "\x89PNG\r\n\x1a\nrest", "\x89PNG\r\n", "RIFF\x00\x00\x00\x00WEBPVP8 ",
		"RIFF\x00\x00\x00\x00WEBM", "%PDF-1.7", "%PDF", "GIF89a", "", "<html>"} {
		if got, want := mediaType([]byte(b)), policy.SniffMediaType([]byte(b)); got != want {
			t.Errorf("%q: the service says %q, the console %q", b, got, want)
		}
	}
	for _, text := range []string{"ok", "  two\nlines  ", "", "   ", "bell\a", "tab\there", strings.Repeat("é", 4000),
		strings.Repeat("é", 4001), "\xff\xfe"} {
		got, gerr := noteText(text)
		want, werr := policy.CheckNoteText(text)
		if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != policy.ErrorMessage(werr)) {
			t.Errorf("%q: the service keeps %q (%v), the console %q (%v)", text, got, gerr, want, werr)
		}
	}
	if MaxFileSize != policy.MaxFileSize || classifierBudget != policy.ServiceClassifierBudget || maxNoteChars != policy.MaxNoteRunes {
		t.Error("the service's limits are not the console's")
	}
}

// TestTheServiceAndTheConsoleReadDecisionsAlike holds the service's reading
// of a decision's rules (contract.go) to the console's (policy), case by
// case: which comments are kept, and which decisions wait for four eyes.
func TestTheServiceAndTheConsoleReadDecisionsAlike(t *testing.T) {
	list := []policy.ReasonCode{{Code: "R", Label: "r", Outcomes: policy.Outcomes()}}
	for _, o := range outcomes {
		for _, c := range []string{"", "  ", "ok", " two\nlines ", "bell\a", strings.Repeat("é", 2000), strings.Repeat("é", 2001), "\xff"} {
			got, gerr := decisionComment(o, c)
			want, werr := policy.CheckReason(list, policy.Outcome(o), "R", c)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Errorf("%s %q: the service keeps %q (%v), the console %q (%v)", o, c, got, gerr, want, werr)
			}
		}
		for _, rec := range []string{"forward", "review", "reject", ""} {
			if got, want := fourEyes(o, rec), policy.NeedsFourEyes(policy.Outcome(o), policy.Recommendation(rec)); got != want {
				t.Errorf("%s of an item recommended %q: four eyes %v at the service, %v at the console", o, rec, got, want)
			}
		}
	}
	if len(outcomes) != len(policy.Outcomes()) || maxDecisionChars != policy.MaxDecisionCommentRunes {
		t.Error("the service's outcomes or comment limit are not the console's")
	}
}
