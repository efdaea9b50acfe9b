package policy

import "fmt"

// MaxFileSize is the service's limit on one file (10 MiB).
const MaxFileSize = 10 << 20

// SniffMediaType returns the media type of a JPEG, PNG, WebP or PDF by its
// content (never its name), or "" for anything else.
func SniffMediaType(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF:
		return "image/jpeg"
	case len(data) >= 8 && string(data[:8]) == "\x89PNG\r\n\x1a\n":
		return "image/png"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	case len(data) >= 5 && string(data[:5]) == "%PDF-":
		return "application/pdf"
	}
	return ""
}

// CheckFile checks a replacement file before any call: at most 10 MiB, and a
// JPEG, PNG, WebP or PDF by its content. It returns the media type.
func CheckFile(data []byte) (string, error) {
	if len(data) == 0 {
		return "", Errorf(CodeInvalidFile, "the file is empty")
	}
	if len(data) > MaxFileSize {
		return "", Errorf(CodeInvalidFile, "the file is %.1f MiB; the service takes at most 10 MiB", float64(len(data))/(1<<20))
	}
	mt := SniffMediaType(data)
	if mt == "" {
		return "", Errorf(CodeInvalidFile, "the file is not a JPEG, PNG, WebP or PDF (%s)", describeStart(data))
	}
	return mt, nil
}

func describeStart(data []byte) string {
	n := min(len(data), 4)
	return fmt.Sprintf("it starts with % x", data[:n])
}
