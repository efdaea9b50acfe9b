package policy

import (
	"bytes"
	"unicode/utf8"
)

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
		return "", Errorf(CodeInvalidFile, "this is %s, not a JPEG, PNG, WebP or PDF", describeKind(data))
	}
	return mt, nil
}

// describeKind says in words what a refused file seems to be, from its
// first bytes.
func describeKind(data []byte) string {
	starts := func(p string) bool { return bytes.HasPrefix(data, []byte(p)) }
	switch {
	case starts("GIF8"):
		return "a GIF image"
	case starts("BM"):
		return "a BMP image"
	case starts("II*\x00"), starts("MM\x00*"):
		return "a TIFF image"
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		return "a HEIC photo or a video"
	case starts("PK\x03\x04"):
		return "a ZIP archive (or a Word or Excel file)"
	case starts("\xD0\xCF\x11\xE0"):
		return "an old Microsoft Office file"
	case starts("\x1f\x8b"):
		return "a gzip archive"
	case starts("\x7fELF"), starts("MZ"):
		return "a program"
	}
	head := data[:min(len(data), 512)]
	lower := bytes.ToLower(bytes.TrimSpace(head))
	if bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html")) {
		return "a web page (HTML)"
	}
	if bytes.HasPrefix(lower, []byte("<svg")) || bytes.HasPrefix(lower, []byte("<?xml")) {
		return "an XML or SVG file"
	}
	if utf8.Valid(head) && !bytes.ContainsFunc(head, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' }) {
		return "plain text"
	}
	return "a file of a type the service does not take"
}
