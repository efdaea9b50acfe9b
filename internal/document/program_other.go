//go:build !windows

package document

import "os"

// RendererName is the PDF renderer's executable.
const RendererName = "reviewer-pdf"

// isProgram: a regular file someone may run.
func isProgram(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
