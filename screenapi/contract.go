package screenapi

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// What the reference service judges by, written from the contract's text
// (../shared/screening-api.md), not from the console's policy: were the
// two one piece of code, one mistake in the domain would pass both sides
// of every test. Only the wire's vocabulary (the item's JSON, the codes'
// names) is shared.

// MaxFileSize is the service's limit on a file: "at most 10 MiB".
const MaxFileSize = 10 << 20

// classifierBudget is the classifier's budget: "ran past its 10 s budget".
const classifierBudget = 10 * time.Second

// maxNoteChars is a note's longest text: "1 to 4,000 characters after
// trimming".
const maxNoteChars = 4000

// itemCode is one row of the contract's table of item error codes: whether
// re-submitting the same file can help, and the service's words for it.
type itemCode struct {
	rerunHelps bool
	message    string
}

var itemCodes = map[string]itemCode{
	"CLASSIFIER_TIMEOUT":     {true, "The AI-generation classifier ran out of time (10 s budget). A re-run of the same file may help."},
	"CLASSIFIER_UNAVAILABLE": {true, "The AI-generation classifier was down. A re-run of the same file may help."},
	"FORENSICS_UNREACHABLE":  {true, "The screening API could not reach its forensics service. A re-run of the same file may help."},
	"SOURCE_UNREACHABLE":     {true, "The file could not be fetched from storage. A re-run of the same file may help."},
	"INTERNAL_ERROR":         {true, "The screening service failed in an unexpected way. A re-run of the same file may help."},
	"DECODE_FAILED":          {false, "The file could not be decoded as an image or PDF. A new file is needed from the customer."},
	"PAYLOAD_TOO_LARGE":      {false, "The file is over the service's 10 MiB limit. A new, smaller file is needed from the customer."},
	"UNSUPPORTED_MEDIA_TYPE": {false, "The file is not a JPEG, PNG, WebP or PDF. A new file is needed from the customer."},
}

// codeMessage is the service's error_message for an item's code; a code
// the table does not hold (a fault switch's) is said as INTERNAL_ERROR.
func codeMessage(code string) string {
	if c, ok := itemCodes[code]; ok {
		return c.message
	}
	return itemCodes["INTERNAL_ERROR"].message
}

// rerunCannotHelp reports whether the contract says re-submitting the same
// file cannot help an item in error with code ("no: a new file is needed").
// A code outside the table is not refused: the service does not judge what
// it does not know.
func rerunCannotHelp(code string) bool {
	c, ok := itemCodes[code]
	return ok && !c.rerunHelps
}

// mediaType is the type of a file by its first bytes: "the file is not
// JPEG, PNG, WebP or PDF" is UNSUPPORTED_MEDIA_TYPE, whatever its name or
// declared type; "" for anything else.
func mediaType(data []byte) string {
	s := string(data[:min(len(data), 12)])
	switch {
	case strings.HasPrefix(s, "\xff\xd8\xff"):
		return "image/jpeg"
	case strings.HasPrefix(s, "\x89PNG\r\n\x1a\n"):
		return "image/png"
	case len(s) == 12 && s[:4] == "RIFF" && s[8:] == "WEBP":
		return "image/webp"
	case strings.HasPrefix(s, "%PDF-"):
		return "application/pdf"
	}
	return ""
}

// noteText is a note's text as the service keeps it, or why it is refused
// (422 VALIDATION_FAILED): "1 to 4,000 characters after trimming, no
// control characters but newline".
func noteText(text string) (string, error) {
	t := strings.TrimSpace(text)
	if !utf8.ValidString(t) {
		return "", fmt.Errorf("a note must be UTF-8 text")
	}
	n := utf8.RuneCountInString(t)
	if n == 0 {
		return "", fmt.Errorf("a note cannot be empty")
	}
	if n > maxNoteChars {
		return "", fmt.Errorf("a note holds at most %d characters; this one has %d", maxNoteChars, n)
	}
	for _, r := range t {
		if r != '\n' && unicode.IsControl(r) {
			return "", fmt.Errorf("a note cannot hold control characters (only newlines); found %U", r)
		}
	}
	return t, nil
}

// outcomes are a decision's outcomes: "clear | reject | escalate".
var outcomes = []string{"clear", "reject", "escalate"}

// maxDecisionChars is a decision's longest comment: "follows a note's text
// rules, at most 2,000 characters".
const maxDecisionChars = 2000

// decisionComment is a decision's comment as the service keeps it, or why
// it is refused (422 VALIDATION_FAILED): a note's text rules, at most
// 2,000 characters, "required (at least 1 character) for reject and
// escalate, optional for clear".
func decisionComment(outcome, comment string) (string, error) {
	if strings.TrimSpace(comment) == "" {
		if outcome == "clear" {
			return "", nil
		}
		return "", fmt.Errorf("a comment is required to %s", outcome)
	}
	return commentText(comment)
}

// confirmationComment is a confirmation's comment, or why it is refused:
// "the comment is required when agree is false".
func confirmationComment(agree bool, comment string) (string, error) {
	if strings.TrimSpace(comment) == "" {
		if agree {
			return "", nil
		}
		return "", fmt.Errorf("a comment is required to return a decision (agree: false)")
	}
	return commentText(comment)
}

func commentText(comment string) (string, error) {
	t, err := noteText(comment)
	if err != nil {
		return "", fmt.Errorf("comment: %s", strings.TrimPrefix(err.Error(), "a note "))
	}
	if n := utf8.RuneCountInString(t); n > maxDecisionChars {
		return "", fmt.Errorf("a comment holds at most %d characters; this one has %d", maxDecisionChars, n)
	}
	return t, nil
}

// fourEyes reports whether a decision waits for a second reviewer: "a
// reject, and a clear of an item whose recommendation is reject".
func fourEyes(outcome, recommendation string) bool {
	return outcome == "reject" || (outcome == "clear" && recommendation == "reject")
}
