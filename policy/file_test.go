package policy_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

var kinds = []string{"a JPEG image", "a PNG image", "a WebP image", "a PDF", "empty", "a GIF image", "a TIFF image",
	"a BMP image", "a HEIC image", "a video or other ISO media file", "a ZIP archive (or an Office document)",
	"a gzip archive", "a program", "an HTML page", "plain text", "unknown binary data"}

func TestCheckFileSaysWhatAFileIsNeverWhatItHolds(t *testing.T) {
	for data, want := range map[string]string{
		"root:$6$salt$hash:19000:0:99999:7:::\n": "plain text",
		"\x00\x01\x02\x03\xfe\xff":               "unknown binary data",
		"GIF89a....":                             "a GIF image",
		"<!DOCTYPE html><html></html>":           "an HTML page",
		"\x7fELF\x02\x01\x01":                    "a program",
		"PK\x03\x04rest":                         "a ZIP archive",
	} {
		_, err := policy.CheckFile([]byte(data))
		if err == nil || policy.ErrorCode(err) != policy.CodeInvalidFile || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", data, err, want)
		}
		if strings.Contains(err.Error(), fmt.Sprintf("% x", data[:4])) || strings.Contains(err.Error(), "root") {
			t.Errorf("%q: the content was echoed: %v", data, err)
		}
	}
	if mt, err := policy.CheckFile([]byte("%PDF-1.7\n")); err != nil || mt != "application/pdf" {
		t.Fatalf("pdf: %q %v", mt, err)
	}
}

func FuzzCheckFile(f *testing.F) {
	for _, s := range []string{"%PDF-1.7\n", "\xff\xd8\xff\xe0", "\x89PNG\r\n\x1a\n", "RIFF\x00\x00\x00\x00WEBPVP8 ",
		"root:x:0:0", "", "\x00", "GIF89a", "<html>", "PK\x03\x04", "\xef\xbb\xbf<!doctype html>", "héllo\n", "\xe2\x82"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mt, err := policy.CheckFile(data)
		kind := policy.DescribeContent(data)
		known := false
		for _, k := range kinds {
			known = known || k == kind
		}
		if !known {
			t.Fatalf("DescribeContent said %q", kind)
		}
		if err == nil {
			if len(data) == 0 || len(data) > policy.MaxFileSize || mt == "" || mt != policy.SniffMediaType(data) {
				t.Fatalf("accepted %d bytes as %q", len(data), mt)
			}
			return
		}
		if mt != "" || policy.ErrorCode(err) != policy.CodeInvalidFile {
			t.Fatalf("refused with %q %v", mt, err)
		}
		msg := err.Error()
		for i := 0; i < len(msg); i++ {
			if msg[i] < 0x20 || msg[i] > 0x7e {
				t.Fatalf("the message holds byte %#x: %q", msg[i], msg)
			}
		}
		// Never the content: no hex of its first bytes, no run of it.
		if len(data) >= 4 && strings.Contains(msg, fmt.Sprintf("% x", data[:4])) {
			t.Fatalf("hex of the content in %q", msg)
		}
		if len(data) >= 12 && bytes.Contains([]byte(msg), data[:12]) && !strings.Contains(strings.Join(kinds, " "), string(data[:12])) {
			t.Fatalf("the content in %q", msg)
		}
	})
}

// A refused file is explained in words, never in hex.
func TestCheckFileSaysWhatTheFileIs(t *testing.T) {
	for in, want := range map[string]string{
		"this is a note\n":             "plain text, not a JPEG",
		"GIF89a...":                    "a GIF image",
		"PK\x03\x04zip":                "a ZIP archive",
		"<!DOCTYPE html><html>":        "an HTML page",
		"\x00\x01\x02\x03\x04\x05junk": "unknown binary data",
	} {
		_, err := policy.CheckFile([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "starts with") {
			t.Fatalf("%q: %v", in, err)
		}
	}
	if _, err := policy.CheckFile([]byte("\xFF\xD8\xFFjpeg")); err != nil {
		t.Fatal(err)
	}
}

// Every code the console knows has words; none reads " ()." or names the
// code twice.
func TestEveryCodeHasAHeadline(t *testing.T) {
	codes := append(policy.ItemCodes(), policy.CodeUnauthenticated, policy.CodeForbidden, policy.CodeNotFound, policy.CodeValidationFailed, policy.CodeNotRetryable,
		policy.CodeIdempotencyKeyInUse, policy.CodeIdempotencyKeyReused, policy.CodeRateLimited, policy.CodeServiceUnavailable, policy.CodeAPIUnreachable,
		policy.CodeOutcomeUnknown, policy.CodeTLSUntrusted, policy.CodeInvalidResponse, policy.CodeDeadlineExceeded, policy.CodeCircuitOpen, policy.CodeActionOpen,
		policy.CodeRateLimitWait, policy.CodeInvalidFile, policy.CodeInvalidInput, policy.CodeConflict)
	for _, c := range codes {
		h := policy.Headline(c)
		if h == "" || !strings.HasSuffix(h, ".") || strings.Contains(h, " .") || strings.Count(h, string(c)) > 1 ||
			strings.Contains(h, "answered with an error") {
			t.Fatalf("%s: %q", c, h)
		}
	}
	if policy.Headline("") != "" {
		t.Fatal("a headline for no code")
	}
}
