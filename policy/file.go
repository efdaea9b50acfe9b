package policy

import (
	"bytes"
	"time"
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
// JPEG, PNG, WebP or PDF by its content. It returns the media type. Its
// error says in words what kind of file it is, never any of its content:
// the file may be anything a symbolic link points to.
func CheckFile(data []byte) (string, error) {
	if len(data) == 0 {
		return "", Errorf(CodeInvalidFile, "the file is empty")
	}
	if len(data) > MaxFileSize {
		return "", Errorf(CodeInvalidFile, "the file is %.1f MiB; the service takes at most 10 MiB", float64(len(data))/(1<<20))
	}
	mt := SniffMediaType(data)
	if mt == "" {
		return "", Errorf(CodeInvalidFile, "the file is %s, not a JPEG, PNG, WebP or PDF", DescribeContent(data))
	}
	return mt, nil
}

// DescribeContent says in a few words what kind of file data is, by its
// content: "a PDF", "plain text", "a GIF image", "unknown binary data". The
// answer is one of a fixed set of phrases: it never quotes the content.
func DescribeContent(data []byte) string {
	if mt := SniffMediaType(data); mt != "" {
		return map[string]string{"image/jpeg": "a JPEG image", "image/png": "a PNG image",
			"image/webp": "a WebP image", "application/pdf": "a PDF"}[mt]
	}
	has := func(off int, magic string) bool {
		return len(data) >= off+len(magic) && string(data[off:off+len(magic)]) == magic
	}
	switch {
	case len(data) == 0:
		return "empty"
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return "a GIF image"
	case has(0, "II*\x00"), has(0, "MM\x00*"):
		return "a TIFF image"
	case has(0, "BM") && len(data) >= 26:
		return "a BMP image"
	case has(4, "ftypheic"), has(4, "ftypheix"), has(4, "ftypmif1"), has(4, "ftyphevc"):
		return "a HEIC image"
	case has(4, "ftyp"):
		return "a video or other ISO media file"
	case has(0, "PK\x03\x04"):
		return "a ZIP archive (or an Office document)"
	case has(0, "\x1f\x8b"):
		return "a gzip archive"
	case has(0, "\x7fELF"), has(0, "MZ"):
		return "a program"
	case isText(data):
		t := bytes.ToLower(bytes.TrimLeft(data[:min(len(data), 512)], " \t\r\n\ufeff"))
		if bytes.HasPrefix(t, []byte("<!doctype html")) || bytes.HasPrefix(t, []byte("<html")) {
			return "an HTML page"
		}
		return "plain text"
	}
	return "unknown binary data"
}

// isText reports whether the first 4 KiB of data look like text: UTF-8
// (a rune cut at the end of the window is allowed) with no control
// characters but tab, newline, carriage return and form feed.
func isText(data []byte) bool {
	w := data[:min(len(data), 4096)]
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRune(w[i:])
		if r == utf8.RuneError && n <= 1 {
			return len(w) == 4096 && len(w)-i < utf8.UTFMax && !utf8.FullRune(w[i:])
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			return false
		}
		i += n
	}
	return true
}

// DefaultKeptFileRetention is how long the console keeps the file of a
// replacement that failed (the service ran nothing), so that the reviewer
// can upload it again without asking the customer anew: an identity
// document is kept no longer than a working week needs
// (REVIEWER_KEPT_FILE_RETENTION).
const DefaultKeptFileRetention = 7 * 24 * time.Hour
