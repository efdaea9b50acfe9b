package policy

import (
	"strings"
	"testing"
)

// A refused file is explained in words, never in hex.
func TestCheckFileSaysWhatTheFileIs(t *testing.T) {
	for in, want := range map[string]string{
		"this is a note\n":             "plain text, not a JPEG",
		"GIF89a...":                    "a GIF image",
		"PK\x03\x04zip":                "a ZIP archive",
		"<!DOCTYPE html><html>":        "an HTML page",
		"\x00\x01\x02\x03\x04\x05junk": "unknown binary data",
	} {
		_, err := CheckFile([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "starts with") {
			t.Fatalf("%q: %v", in, err)
		}
	}
	if _, err := CheckFile([]byte("\xFF\xD8\xFFjpeg")); err != nil {
		t.Fatal(err)
	}
}
