// Package safetext makes text from outside (the screening service, a file
// name, an error message) safe to show: on a terminal, where a control
// character moves the cursor, rewrites the title, hides text or breaks the
// "one line each" of a listing, and in a CSV file, where a cell that starts
// like a formula runs in the reviewer's spreadsheet.
//
// It is the one place that escaping lives, so the command line, the window
// and the export cannot disagree about it. It is a package of its own
// because the command line and the workflow (export) both need it and
// neither should import the other.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits for Line: a value in a table column, a value on a line of its own,
// and a whole message.
const (
	Cell    = 80
	Value   = 200
	Message = 1000
	// MinMax is the shortest limit: room for the cut marker.
	MinMax = 32
)

// Line returns s as one line of plain printable text for a person, at most
// max characters long (counted in runes; a max below MinMax counts as MinMax): every control
// character (C0, DEL, C1), every Unicode format character (the bidi
// overrides and isolates, zero-width spaces and joiners, the byte order
// mark, soft hyphens), the line and paragraph separators, and every byte
// that is not UTF-8 is written as a Go escape (\n, \x1b, \u202e, \xff), and
// a backslash as \\, so the escaped text can be read back exactly. A value
// longer than max is cut at a character and ends with "… (N chars)", where
// N is the length of the original in runes.
func Line(s string, max int) string {
	max = maxInt(max, MinMax)
	if fast(s, max) {
		return s
	}
	suffix := "… (" + strconv.Itoa(utf8.RuneCountInString(s)) + " chars)"
	budget := max - utf8.RuneCountInString(suffix)
	var b strings.Builder
	runes, cutAt := 0, -1
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		piece := escapeRune(s[i:i+n], r, n)
		pr := utf8.RuneCountInString(piece)
		if cutAt < 0 && runes+pr > budget {
			cutAt = b.Len() // the last whole piece that leaves room for the suffix
		}
		if runes+pr > max {
			return b.String()[:cutAt] + suffix
		}
		b.WriteString(piece)
		runes += pr
		i += n
	}
	return b.String()
}

// Window is the window's last gate: the text a widget draws, with every
// character Line escapes written as Line writes it (\x1b, \u202e, \u200b,
// \xff), but for the newline, which it keeps. It escapes no backslash and
// cuts nothing, so that text it was given already safe (the console's own
// words, with each value from outside put through Line) comes back as it
// was, line breaks and all. What it returns holds no control character but
// the newline, no bidi control, no invisible character and no byte that is
// not UTF-8, whatever it was given.
func Window(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		r, n := utf8.DecodeRuneInString(s[i:])
		clean = r != utf8.RuneError && (r == '\n' || !needsEscape(r))
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\\':
			b.WriteByte('\\')
		default:
			b.WriteString(escapeRune(s[i:i+n], r, n))
		}
		i += n
	}
	return b.String()
}

// fast reports whether s needs neither escaping nor cutting.
func fast(s string, max int) bool {
	if len(s) > max*utf8.UTFMax {
		return false
	}
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || r == '\\' || needsEscape(r) {
			return false // RuneError: check it properly in the slow path
		}
		n++
	}
	return n <= max
}

func needsEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' ||
		unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

// escapeRune is the text shown for one rune (or one bad byte) of s.
func escapeRune(src string, r rune, n int) string {
	switch {
	case r == utf8.RuneError && n <= 1:
		return `\x` + hex2(src[0])
	case r == '\\':
		return `\\`
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r < 0x80 && needsEscape(r):
		return `\x` + hex2(byte(r))
	case needsEscape(r) && r != utf8.RuneError:
		if r > 0xffff {
			return `\U` + pad(strconv.FormatInt(int64(r), 16), 8)
		}
		return `\u` + pad(strconv.FormatInt(int64(r), 16), 4)
	}
	return src
}

func hex2(b byte) string { return pad(strconv.FormatInt(int64(b), 16), 2) }

func pad(s string, n int) string { return strings.Repeat("0", maxInt(0, n-len(s))) + s }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// CSVCell makes a cell safe for the export. First it strips what has no
// place in a cell: every control character but the newline (C0 with tab
// and carriage return, DEL, C1: a raw ESC would drive the terminal of
// whoever runs cat on the file) and the bidi controls (which make a cell
// read as something else); a byte that is not UTF-8 becomes U+FFFD. Then
// it neutralises a cell that a spreadsheet would run as a formula: one
// that starts, after any leading whitespace, with =, +, -, @ (or their
// full-width forms), | or %, or that starts with a newline. Such a cell
// gets a leading apostrophe, which spreadsheets show as text. Any other
// cell is returned unchanged.
func CSVCell(v string) string {
	v = stripForCSV(v)
	if v == "" {
		return v
	}
	if v[0] == '\n' { // tab and carriage return are stripped already
		return "'" + v
	}
	t := strings.TrimLeftFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
	if t == "" {
		return v
	}
	r, _ := utf8.DecodeRuneInString(t)
	switch r {
	case '=', '+', '-', '@', '＝', '＋', '－', '＠', '|', '%':
		return "'" + v
	}
	return v
}

// stripForCSV drops the control characters but newline, the bidi controls
// and the invisible characters, and turns bytes that are not UTF-8 into
// U+FFFD.
func stripForCSV(v string) string {
	clean := true
	for i := 0; i < len(v) && clean; {
		r, n := utf8.DecodeRuneInString(v[i:])
		clean = !(r == utf8.RuneError && n <= 1) && !strippedInCSV(r)
		i += n
	}
	if clean {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for _, r := range v { // a byte that is not UTF-8 ranges as U+FFFD
		if !strippedInCSV(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func strippedInCSV(r rune) bool {
	return (unicode.IsControl(r) && r != '\n') || IsBidiControl(r) || IsInvisible(r)
}

// IsInvisible reports whether r is a character nobody sees that is no
// joiner a script needs: the line and paragraph separators, the zero-width
// space, the byte order mark, the word joiner and the tag characters.
func IsInvisible(r rune) bool {
	switch {
	case r == '\u2028', r == '\u2029', r == '\u200b', r == '\ufeff', r == '\u2060':
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// IsBidiControl reports whether r reorders text: the bidi embeddings,
// overrides, isolates and marks.
func IsBidiControl(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Sentence is Line for a message that quotes values: each word (a run
// without spaces) longer than Value characters is cut on its own, so that
// a 10,000-character id in "no item … in the cache; run sync" leaves the
// rest of the sentence readable; then the whole is cut at Message
// characters, at a word.
func Sentence(s string) string {
	if fast(s, Value) {
		return s
	}
	words := strings.Split(s, " ")
	total := 0
	for i, w := range words {
		words[i] = Line(w, Value)
		total += utf8.RuneCountInString(words[i]) + 1
	}
	if total-1 <= Message {
		return strings.Join(words, " ")
	}
	suffix := " … (" + strconv.Itoa(utf8.RuneCountInString(s)) + " chars)"
	budget := Message - utf8.RuneCountInString(suffix)
	var b strings.Builder
	n := 0
	for i, w := range words {
		wn := utf8.RuneCountInString(w)
		if i > 0 {
			wn++
		}
		if n+wn > budget {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		n += wn
	}
	return b.String() + suffix
}
