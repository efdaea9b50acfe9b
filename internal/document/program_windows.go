package document

import "os"

// RendererName is the PDF renderer's executable: Windows finds programs by
// their .exe.
const RendererName = "reviewer-pdf.exe"

// isProgram: a regular file. Windows has no mode bit that says a file may
// be run (Go reports every file 0666 or 0444), only the name's .exe.
func isProgram(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
