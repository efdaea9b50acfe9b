package cli_test

import (
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// A file request's message reaches the customer: escape and OSC sequences,
// bidi controls and a 100 KB message are refused in words (exit 2), one
// item or in bulk, before anything is queued or sent.
func TestAFileRequestMessageWithControlsOrTooLongIsRefusedBeforeItIsQueued(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode(string(policy.CodeDecodeFailed))
	for _, bad := range []struct{ msg, says string }{
		{"Please send a new photo.\x1b[2J\x1b[H", "escape character"},
		{"Please send \x1b]8;;https://evil.example\x07this link\x1b]8;;\x07", "escape character"},
		{"Please send a new photo.\u202eexe.gpj", "right-to-left override"},
		{"Please\tsend", "a tab"},
		{strings.Repeat("Please send a new photo. ", 4100), "at most 4000 characters"}, // 100 KB
	} {
		_, errs := h.want(2, "request-file", id, "--message", bad.msg)
		if !strings.Contains(errs, bad.says) || strings.ContainsAny(errs, "\x1b\u202e") {
			t.Errorf("%.30q: %s", bad.msg, errs)
		}
		_, errs = h.want(2, "request-file", "--non-retryable", "--code", "DECODE_FAILED", "--yes",
			"--message", "DECODE_FAILED="+bad.msg)
		if !strings.Contains(errs, bad.says) || !strings.Contains(errs, "DECODE_FAILED") {
			t.Errorf("bulk %.30q: %s", bad.msg, errs)
		}
	}
	if box := h.outboxOf(); len(box) != 0 {
		t.Fatalf("a refused message was queued: %v", box)
	}
	if n := h.srv.Arrivals(screenapi.EPFileRequest); n != 0 {
		t.Fatalf("%d file requests reached the service", n)
	}
	// Newlines are text; 4,000 characters are allowed.
	h.want(0, "request-file", id, "--message", "Please send a new photo.\nThe last one was blurred.")
	if n := h.srv.Arrivals(screenapi.EPFileRequest); n != 1 {
		t.Fatalf("%d file requests reached the service, want 1", n)
	}
}
