package policy

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxCustomerMessageRunes is the longest message a file request carries to
// the customer. The contract names no limit of its own for it; it is the
// contract's limit for a note (4,000 characters), the other text a
// reviewer writes.
const MaxCustomerMessageRunes = 4000

// CheckCustomerMessage returns the message of a file request as it will be
// sent (trimmed; a Windows line break becomes a newline), or an error in
// words saying why it cannot go to the customer: it is empty, longer than
// MaxCustomerMessageRunes characters, not UTF-8, or holds a control
// character other than a newline (an escape sequence, a tab, a lone
// carriage return) or a bidi control (which would make the customer read
// something other than what the reviewer wrote). Every way a file request
// is made (one item, a bulk plan, the window) goes through it before
// anything is queued.
func CheckCustomerMessage(text string) (string, error) {
	t := strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if t == "" {
		return "", Errorf(CodeInvalidInput, "a file request needs a message for the customer, and it cannot be empty; nothing was sent")
	}
	if !utf8.ValidString(t) {
		return "", Errorf(CodeInvalidInput, "the message for the customer is not UTF-8 text; nothing was sent")
	}
	if n := utf8.RuneCountInString(t); n > MaxCustomerMessageRunes {
		return "", Errorf(CodeInvalidInput, "the message for the customer holds at most %d characters; this one has %d; nothing was sent",
			MaxCustomerMessageRunes, n)
	}
	pos := 0
	for _, r := range t {
		pos++
		if what := forbiddenInMessage(r); what != "" {
			return "", Errorf(CodeInvalidInput,
				"the message for the customer holds %s (U+%04X) at character %d: only letters, punctuation, spaces and newlines go to a customer; nothing was sent",
				what, r, pos)
		}
	}
	return t, nil
}

// bidiControls are the Unicode characters that reorder text: embeddings,
// overrides, isolates and marks.
var bidiControls = map[rune]string{
	'\u061c': "an Arabic letter mark", '\u200e': "a left-to-right mark", '\u200f': "a right-to-left mark",
	'\u202a': "a left-to-right embedding", '\u202b': "a right-to-left embedding", '\u202c': "a pop directional formatting",
	'\u202d': "a left-to-right override", '\u202e': "a right-to-left override",
	'\u2066': "a left-to-right isolate", '\u2067': "a right-to-left isolate", '\u2068': "a first strong isolate",
	'\u2069': "a pop directional isolate",
}

// forbiddenInMessage names r when it may not go to a customer, or "".
func forbiddenInMessage(r rune) string {
	if w, ok := bidiControls[r]; ok {
		return "a bidi control, " + w
	}
	switch {
	case r == '\n':
		return ""
	case r == 0x1b:
		return "an escape character (ESC, which starts terminal escape and OSC sequences)"
	case r == '\t':
		return "a tab"
	case r == '\r':
		return "a carriage return without a newline"
	case r == 0x9b || r == 0x9d:
		return "a control character (a terminal's CSI or OSC)"
	case unicode.IsControl(r):
		return "a control character"
	case r == '\u2028' || r == '\u2029':
		return "a line or paragraph separator (use a newline)"
	case r == '\u200b' || r == '\ufeff' || r == '\u2060':
		return "an invisible character (a zero-width space, a byte order mark or a word joiner)"
	case r >= 0xe0000 && r <= 0xe007f:
		return "an invisible tag character"
	}
	// The zero-width joiner and non-joiner stay: Persian and Indic scripts
	// and emoji need them.
	return ""
}
