package policy

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Notes reviewers leave on an item (contract version 1.1). A 1.0 service
// sends none.

// MaxNoteRunes is the contract's limit on a note's text, after trimming.
const MaxNoteRunes = 4000

// RawNote is a note as the service sent it.
type RawNote struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
}

// Note is a reviewer's note on an item, as the service keeps it.
type Note struct {
	ID        string
	Author    string
	Text      string
	CreatedAt time.Time
}

// CheckNoteText returns a note's text as it will be kept (trimmed), or an
// error saying why it cannot be a note: the contract's 1 to 4,000
// characters after trimming, no control characters but newline.
func CheckNoteText(text string) (string, error) {
	t := strings.TrimSpace(text)
	if !utf8.ValidString(t) {
		return "", Errorf(CodeValidationFailed, "a note must be UTF-8 text")
	}
	n := utf8.RuneCountInString(t)
	if n == 0 {
		return "", Errorf(CodeValidationFailed, "a note cannot be empty")
	}
	if n > MaxNoteRunes {
		return "", Errorf(CodeValidationFailed, "a note holds at most %d characters; this one has %d", MaxNoteRunes, n)
	}
	for _, r := range t {
		if r != '\n' && unicode.IsControl(r) {
			return "", Errorf(CodeValidationFailed, "a note cannot hold control characters (only newlines); found %U", r)
		}
	}
	return t, nil
}
