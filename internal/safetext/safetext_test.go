package safetext

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// unescape reads Line's escapes back, to prove nothing is lost.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
			i += 2
		case 'n':
			b.WriteByte('\n')
			i += 2
		case 'r':
			b.WriteByte('\r')
			i += 2
		case 't':
			b.WriteByte('\t')
			i += 2
		case 'x', 'u', 'U':
			l := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i+1]]
			if i+2+l > len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+2:i+2+l], 16, 32)
			if err != nil {
				return "", false
			}
			if s[i+1] == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += 2 + l
		default:
			return "", false
		}
	}
	return b.String(), true
}

// checkPrintable fails when out holds anything a terminal would act on.
func checkPrintable(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%q -> %q: not UTF-8", in, out)
	}
	for _, r := range out {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			t.Fatalf("%q -> %q: holds %U", in, out, r)
		}
	}
}

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"itm_0001":               "itm_0001",
		"a\nb":                   `a\nb`,
		"\x1b]0;pwned\x07title":  `\x1b]0;pwned\x07title`,
		"evil\u202etxt.exe":      `evil\u202etxt.exe`,
		"back\\slash":            `back\\slash`,
		"bad\xffbyte":            `bad\xffbyte`,
		"c1\u009bcsi":            `c1\u009bcsi`,
		"zero\u200bwidth\ufeff":  `zero\u200bwidth\ufeff`,
		"Ünïcödé ok — fine":      "Ünïcödé ok — fine",
		"tab\there\rand\u2028ls": `tab\there\rand\u2028ls`,
	} {
		got := Line(in, Value)
		if got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
		checkPrintable(t, in, got)
	}
	long := strings.Repeat("x", 10000)
	got := Line(long, Cell)
	if utf8.RuneCountInString(got) > Cell || !strings.HasSuffix(got, "… (10000 chars)") {
		t.Fatalf("cut: %q", got)
	}
	// A cut never splits an escape.
	got = Line(strings.Repeat("\x1b", 100), 40)
	if !strings.HasSuffix(got, `\x1b… (100 chars)`) || utf8.RuneCountInString(got) > 40 {
		t.Fatalf("cut escape: %q", got)
	}
}

// The window's gate escapes what Line escapes but keeps the console's own
// line breaks and what Line made safe already.
func TestWindow(t *testing.T) {
	for in, want := range map[string]string{
		"Customer ID \u202eVERIFIED_FAKE\u202c ok": `Customer ID \u202eVERIFIED_FAKE\u202c ok`,
		"(from the screening service)":             "(from the screening service)",
		"line one\nline two":                       "line one\nline two",
		"crlf\r\n\x1b[2J\ttab":                     `crlf\r` + "\n" + `\x1b[2J\ttab`,
		"zero\u200bwidth\ufeff\u2066iso":           `zero\u200bwidth\ufeff\u2066iso`,
		"bad\xffbyte \\ kept":                      `bad\xffbyte \ kept`,
		"c1\u009bcsi\u2028sep":                     `c1\u009bcsi\u2028sep`,
	} {
		got := Window(in)
		if got != want {
			t.Errorf("Window(%q) = %q, want %q", in, got, want)
		}
		checkPrintable(t, in, strings.ReplaceAll(got, "\n", " "))
	}
}

func TestSentenceCutsLongWordsAndKeepsTheRest(t *testing.T) {
	msg := "NOT_FOUND: no item " + strings.Repeat("A", 10000) + " in the cache; run sync\n\x1b[2J"
	got := Sentence(msg)
	if !strings.HasSuffix(got, `in the cache; run sync\n\x1b[2J`) || !strings.Contains(got, "… (10000 chars)") ||
		utf8.RuneCountInString(got) > Message {
		t.Fatalf("%q", got)
	}
	checkPrintable(t, msg, got)
	long := strings.Repeat("word ", 1000)
	if got := Sentence(long); utf8.RuneCountInString(got) > Message || !strings.HasSuffix(got, "… (5000 chars)") {
		t.Fatalf("%q", got)
	}
	if got := Sentence("plain message"); got != "plain message" {
		t.Fatalf("%q", got)
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "itm_0001", "a\nb\r\n", "\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x07link", "\u202eevil",
		"\\x1b", "bad\xff\xfe", strings.Repeat("é", 300), "\u2066iso\u2069", "\u00ad", "\U000e0041tag"} {
		f.Add(s, 80)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max%2000 + 1
		if max < 0 {
			max = -max
		}
		out := Line(s, max)
		checkPrintable(t, s, out)
		limit := max
		if limit < MinMax {
			limit = MinMax
		}
		if n := utf8.RuneCountInString(out); n > limit {
			t.Fatalf("%d runes > %d", n, limit)
		}
		sent := Sentence(s)
		checkPrintable(t, s, sent)
		if n := utf8.RuneCountInString(sent); n > Message {
			t.Fatalf("Sentence: %d runes", n)
		}
		// The window's gate: nothing but the newline left to reorder,
		// hide or control text, and Line's output passes it unchanged.
		checkPrintable(t, s, strings.ReplaceAll(Window(s), "\n", " "))
		if w := Window(out); w != out {
			t.Fatalf("Window(%q) = %q: changed what Line made safe", out, w)
		}
		if w := Window(Window(s)); w != Window(s) {
			t.Fatalf("Window is not idempotent on %q", s)
		}
		full := Line(s, 1<<30)
		back, ok := unescape(full)
		if !ok || back != s {
			t.Fatalf("%q -> %q -> %q (%v): does not round-trip", s, full, back, ok)
		}
		if out != full {
			// Cut: what is kept is a prefix of the whole escape, and the
			// marker gives the length.
			marker := "… (" + strconv.Itoa(utf8.RuneCountInString(s)) + " chars)"
			kept, found := strings.CutSuffix(out, marker)
			if !found || !strings.HasPrefix(full, kept) {
				t.Fatalf("cut %q of %q", out, full)
			}
			if back, ok := unescape(kept); !ok || !strings.HasPrefix(s, back) {
				t.Fatalf("cut inside an escape: %q", kept)
			}
		}
	})
}

func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		"=2+2": "'=2+2", "@SUM(A1)": "'@SUM(A1)", "+1": "'+1", "-1": "'-1", "\nx": "'\nx",
		"  =1": "'  =1", "\u00a0@x": "'\u00a0@x", "＝1": "'＝1", "bat_0001": "bat_0001", "": "", "a=b": "a=b",
		// Control characters but newline, and bidi controls, are stripped
		// first; what they hid is then guarded like any other cell.
		"\tx": "x", "\rx": "x", "\t=1": "'=1", "\x1b=cmd": "'=cmd", "\r\n+1": "'\n+1",
		"ACME\x1b[2J\x1b]0;pwned\x07 Ltd": "ACME[2J]0;pwned Ltd", "a\u009b31mb\u007fc\x00d": "a31mbcd",
		"line one\r\nline two": "line one\nline two", "tab\there": "tabhere",
		"invoice gpj.\u202eexe": "invoice gpj.exe", "\u2067ana\u2069 \u200f": "ana ", "\u061c\u200e": "",
		"bad \xff byte": "bad \ufffd byte", "emoji 👩\u200d💻 ok": "emoji 👩\u200d💻 ok",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzCSVCell(f *testing.F) {
	for _, s := range []string{"=2+2", "@SUM(A1)", " =cmd|' /C calc'!A0", "\t=1", "\r\n+1", "itm_0001", "", "-", "\u200b=1",
		"\x1b]0;x\x07=1", "\u202e=1", "ACME\x1b[2J", "\xff\x9b", "a\r\nb", "\ufeff=1", "a\u2028b\u200bc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out := CSVCell(v)
		// What is stripped, written here apart from the code: every
		// control character but newline, the bidi controls, the invisible
		// separators, spaces, marks and tags; bytes that are not UTF-8
		// become U+FFFD.
		var want strings.Builder
		for _, r := range v {
			bidi := r == 0x61c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
			invisible := r == 0x2028 || r == 0x2029 || r == 0x200b || r == 0xfeff || r == 0x2060 || (r >= 0xe0000 && r <= 0xe007f)
			if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || bidi || invisible {
				continue
			}
			want.WriteRune(r)
		}
		if out != want.String() && out != "'"+want.String() {
			t.Fatalf("%q -> %q: more than the stripped characters and an apostrophe changed (want %q)", v, out, want.String())
		}
		if !utf8.ValidString(out) {
			t.Fatalf("%q -> %q is not UTF-8", v, out)
		}
		if !strings.HasPrefix(out, "'") {
			if out != "" && (out[0] == '\t' || out[0] == '\r' || out[0] == '\n') {
				t.Fatalf("%q starts with a control character", out)
			}
			trimmed := strings.TrimLeftFunc(out, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
			if trimmed != "" && strings.ContainsRune("=+-@＝＋－＠|%", []rune(trimmed)[0]) {
				t.Fatalf("%q would run as a formula", out)
			}
		}
		// The cell survives a CSV round trip whole.
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write([]string{out, "next"})
		w.Flush()
		rec, err := csv.NewReader(&buf).Read()
		if err != nil || len(rec) != 2 || rec[0] != out {
			t.Fatalf("%q did not round-trip: %q %v", out, rec, err)
		}
	})
}
