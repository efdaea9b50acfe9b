package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExportIntoAMissingFolder: the reviewer is told that the folder does
// not exist, by its name, as a usage error; never the name of the temporary
// file the export would have gone through.
func TestExportIntoAMissingFolder(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	dir := filepath.Join(h.dir, "reports", "2026")
	_, errs := h.want(2, "export", "--csv", filepath.Join(dir, "out.csv"))
	if !strings.Contains(errs, dir) || !strings.Contains(errs, "does not exist") || strings.Contains(errs, ".tmp") {
		t.Fatalf("export into a missing folder: %s", errs)
	}
}
