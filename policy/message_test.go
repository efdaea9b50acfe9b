package policy_test

import (
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// A file request's message goes to the customer: control characters
// (an escape, an OSC title sequence, a tab, C1), bidi controls and more
// than 4,000 characters are refused in words; newlines are text.
func TestCheckCustomerMessage(t *testing.T) {
	for _, ok := range []struct{ in, want string }{
		{"Please send a new photo.", "Please send a new photo."},
		{"  Line one\nLine two\n", "Line one\nLine two"},
		{"Line one\r\nLine two", "Line one\nLine two"},
		{"Merci, envoyez une nouvelle photo — 谢谢 ✓", "Merci, envoyez une nouvelle photo — 谢谢 ✓"},
		{"مرحبا، أرسل صورة جديدة", "مرحبا، أرسل صورة جديدة"},
		{strings.Repeat("a", policy.MaxCustomerMessageRunes), strings.Repeat("a", policy.MaxCustomerMessageRunes)},
		{strings.Repeat("é", policy.MaxCustomerMessageRunes), strings.Repeat("é", policy.MaxCustomerMessageRunes)},
	} {
		if got, err := policy.CheckCustomerMessage(ok.in); err != nil || got != ok.want {
			t.Errorf("%q: %q, %v", ok.in, got, err)
		}
	}
	for _, bad := range []struct{ in, says string }{
		{"", "needs a message"},
		{" \n\t ", "needs a message"},
		{"Hello \x1b[2J\x1b[Hworld", "escape character"},
		{"Hello \x1b]0;pwned\x07 world", "escape character"},
		{"Hello \u009b31m world", "control character"},
		{"Hello \u009d0;x\u009c world", "control character"},
		{"Hello\tworld", "a tab"},
		{"Hello\rworld", "carriage return"},
		{"Hello\x00world", "control character"},
		{"Hello\x7fworld", "control character"},
		{"Invoice gpj.\u202eexe", "right-to-left override"},
		{"Name: \u2067ana\u2069", "right-to-left isolate"},
		{"\u200fhello", "right-to-left mark"},
		{"bad \xff byte", "not UTF-8"},
		{strings.Repeat("a", policy.MaxCustomerMessageRunes+1), "at most 4000 characters; this one has 4001"},
		{strings.Repeat("x", 100<<10), "at most 4000 characters"},
	} {
		_, err := policy.CheckCustomerMessage(bad.in)
		if err == nil || policy.ErrorCode(err) != policy.CodeInvalidInput {
			t.Errorf("%.40q: %v", bad.in, err)
			continue
		}
		msg := policy.ErrorMessage(err)
		if !strings.Contains(msg, bad.says) || !strings.Contains(msg, "nothing was sent") {
			t.Errorf("%.40q: %q does not say %q", bad.in, msg, bad.says)
		}
		if strings.ContainsAny(msg, "\x1b\u202e\u009b\x00") {
			t.Errorf("%.40q: the refusal repeats the character: %q", bad.in, msg)
		}
	}
}
