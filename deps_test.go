package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTheConsoleDoesNotLinkThePDFRenderer: PDFium's bindings and wazero
// live in reviewer-pdf only (cmd/reviewer-pdf). In the console's binary
// they would be resident in every window (some 14 MB of code and data),
// PDF or not.
func TestTheConsoleDoesNotLinkThePDFRenderer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/klippa-app/go-pdfium", "github.com/tetratelabs/wazero", "/internal/document/pdfium"} {
			if strings.Contains(p, bad) {
				t.Errorf("the console links %s", p)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "./cmd/reviewer-pdf").Output()
	if err != nil || !strings.Contains(string(out), "github.com/klippa-app/go-pdfium\n") {
		t.Fatalf("reviewer-pdf does not link go-pdfium: %v", err)
	}
}
