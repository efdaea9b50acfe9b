package policy_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// A claim's end reads with its date whenever it is not today: "until 23:59"
// for a claim that ends tomorrow, or in the year 9999, would tell the
// reviewer the item frees up tonight.
func TestUntilTextShowsTheDateWhenTheClaimDoesNotEndToday(t *testing.T) {
	noon := time.Date(2026, 12, 1, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		end  time.Time
		want string
	}{
		{time.Date(2026, 12, 1, 12, 30, 0, 0, time.Local), "12:30"},
		{time.Date(2026, 12, 1, 23, 59, 0, 0, time.Local), "23:59"},
		{time.Date(2026, 12, 2, 0, 5, 0, 0, time.Local), "Dec 2 00:05"},
		{time.Date(2026, 12, 2, 23, 59, 0, 0, time.Local), "Dec 2 23:59"},
		{time.Date(2026, 11, 30, 23, 59, 0, 0, time.Local), "Nov 30 23:59"},
		{time.Date(2027, 1, 1, 9, 17, 0, 0, time.Local), "Jan 1 2027 09:17"},
		{time.Date(9999, 12, 31, 23, 59, 0, 0, time.Local), "Dec 31 9999 23:59"},
	} {
		if got := policy.UntilText(c.end, noon); got != c.want {
			t.Errorf("UntilText(%v) = %q, want %q", c.end, got, c.want)
		}
		// The same instant in another zone reads the same: the reviewer's
		// zone decides, not the zone the service wrote.
		if got := policy.UntilText(c.end.UTC(), noon.UTC()); got != c.want {
			t.Errorf("UntilText(%v in UTC) = %q, want %q", c.end, got, c.want)
		}
	}
}

// REVIEWER_CLAIM_TTL and claim --ttl share one check: the contract's 60 to
// 3600 seconds, whole seconds, and zero is refused like any other value
// outside the range (it used to stand for the default, and shortened a
// longer claim the reviewer meant to renew).
func TestParseClaimTTLRefusesWhatTheContractDoesNotAllow(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want time.Duration
	}{{"15m", 15 * time.Minute}, {"1m", time.Minute}, {"60s", time.Minute}, {"1h", time.Hour}, {"3600s", time.Hour}, {" 20m ", 20 * time.Minute}} {
		if d, err := policy.ParseClaimTTL(ok.in); err != nil || d != ok.want {
			t.Errorf("ParseClaimTTL(%q) = %v, %v; want %v", ok.in, d, err, ok.want)
		}
	}
	for _, bad := range []string{"0s", "0", "", "59s", "-15m", "1h0m1s", "61m", "90.5s", "15", "soon"} {
		d, err := policy.ParseClaimTTL(bad)
		if err == nil {
			t.Errorf("ParseClaimTTL(%q) = %v: it must be refused", bad, d)
			continue
		}
		if policy.ErrorCode(err) != policy.CodeInvalidInput {
			t.Errorf("ParseClaimTTL(%q): code %s", bad, policy.ErrorCode(err))
		}
		if msg := policy.ErrorMessage(err); !strings.Contains(msg, "1m to 1h") && !strings.Contains(msg, "not a Go duration") {
			t.Errorf("ParseClaimTTL(%q): %q does not say what is allowed", bad, msg)
		}
	}
}

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

func TestUnseen(t *testing.T) {
	score := func(n int) *int { return &n }
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	saw := policy.Item{ID: "i1", Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout,
		ReportedCode: "CLASSIFIER_TIMEOUT", Attempt: 1, FileName: "front.jpg", MediaType: "image/jpeg", SizeBytes: 10,
		UpdatedAt: at}
	saw.Notes = []policy.Note{{ID: "n1", Author: "ben"}}
	known := map[string]bool{"n1": true}
	seen := func(id string) bool { return known[id] }

	cases := []struct {
		name   string
		change func(*policy.Item)
		want   []string
	}{
		{"nothing", func(*policy.Item) {}, nil},
		{"only the revision and updated_at", func(it *policy.Item) { it.Revision, it.UpdatedAt = 9, at.Add(time.Hour) }, nil},
		{"a claim by another reviewer", func(it *policy.Item) {
			it.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: at.Add(time.Hour)}
		}, nil},
		{"her own note", func(it *policy.Item) {
			it.Notes = append(it.Notes, policy.Note{ID: "n2", Author: "ana"})
		}, nil},
		{"another's note she has not seen", func(it *policy.Item) {
			it.Notes = append(it.Notes, policy.Note{ID: "n2", Author: "ben"})
		}, []string{"notes"}},
		{"re-analysed into a score", func(it *policy.Item) {
			it.Status, it.ErrorCode, it.ReportedCode, it.Attempt = policy.StatusScored, "", "", 2
			it.RiskScore, it.Recommendation = score(12), policy.RecommendForward
		}, []string{"status", "attempt", "result"}},
		{"re-analysed into another code", func(it *policy.Item) {
			it.ErrorCode, it.ReportedCode, it.Attempt = policy.CodeForensicsUnreachable, "FORENSICS_UNREACHABLE", 2
		}, []string{"attempt", "result"}},
		{"a new file request", func(it *policy.Item) {
			it.Status, it.ErrorCode, it.ReportedCode = policy.StatusAwaitingFile, "", ""
		}, []string{"status", "result"}},
		{"a replacement file", func(it *policy.Item) { it.FileName, it.SizeBytes = "front-2.jpg", 99 }, []string{"file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := saw
			now.Notes = append([]policy.Note(nil), saw.Notes...)
			c.change(&now)
			if got := policy.Unseen(saw, now, "ana", seen); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Unseen = %v, want %v", got, c.want)
			}
		})
	}
}
