package ui

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// sheetTokens are the keys a line of the sheet names, one by one ("Ctrl+F
// or /" is Ctrl+F and /; "Esc or ↓ (in the search)" is Esc and ↓).
func sheetTokens(keys string) []string {
	keys = regexp.MustCompile(`\s*\([^)]*\)`).ReplaceAllString(keys, "")
	var out []string
	for _, t := range regexp.MustCompile(`\s*(?: / |, | or )\s*`).Split(keys, -1) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// recordKeys replaces every line's do by one that records the line's keys,
// for the test's life.
func recordKeys(t *testing.T) *[]string {
	saved := windowKeys
	windowKeys = slices.Clone(windowKeys)
	t.Cleanup(func() { windowKeys = saved })
	ran := new([]string)
	for i := range windowKeys {
		keys := windowKeys[i].keys
		windowKeys[i].do = func(*Console) { *ran = append(*ran, keys) }
	}
	return ran
}

// Every one-key command and plain key of the main window runs the do of the
// sheet's line that names it, and nothing else: the letters are dispatched
// from windowKeys, as the Ctrl keys are, not from a switch of their own
// that the sheet can drift from. A sign no line names does nothing.
func TestTheWindowsLettersAndPlainKeysRunTheirSheetLine(t *testing.T) {
	c := newTestConsole(t, twoBatches())
	ran := recordKeys(t)
	lineOf := func(tok string) string {
		for _, k := range windowKeys {
			if strings.HasPrefix(k.what, "viewer:") { // the viewer's own window
				continue
			}
			for _, kt := range sheetTokens(k.keys) {
				if kt == tok || kt == "Shift+"+tok { // Shift+A is A
					return k.keys
				}
			}
		}
		return ""
	}
	for r := rune('!'); r <= '~'; r++ {
		*ran = nil
		c.apply(func() { c.win.Canvas().Focus(c.items.table) })
		typeText(c, string(r))
		want := lineOf(string(r))
		if low := lineOf(strings.ToLower(string(r))); want == "" && low != "" && len(*ran) != 0 {
			want = low // a capital may run its letter's line (n, N)
		}
		switch {
		case want == "" && len(*ran) != 0:
			t.Fatalf("%q is on no line of the sheet but ran %v", r, *ran)
		case want != "" && !slices.Equal(*ran, []string{want}):
			t.Fatalf("%q ran %v, want the line %q", r, *ran, want)
		}
	}
	for _, k := range []struct {
		name fyne.KeyName
		line string
	}{{fyne.KeyF5, "F5"}, {fyne.KeyF1, "? or F1"}, {fyne.KeyEscape, "Esc"}} {
		*ran = nil
		c.apply(func() { c.win.Canvas().Unfocus() })
		pressKey(c, k.name)
		if !slices.Equal(*ran, []string{k.line}) {
			t.Fatalf("%s ran %v, want the line %q", k.name, *ran, k.line)
		}
	}
	// F1 and F5 from the search, where letters are text.
	*ran = nil
	c.apply(func() { c.win.Canvas().Focus(c.batches.search) })
	pressKey(c, fyne.KeyF1)
	typeText(c, "r?")
	if !slices.Equal(*ran, []string{"? or F1"}) || c.batches.search.Text != "r?" {
		t.Fatalf("in the search: ran %v, text %q", *ran, c.batches.search.Text)
	}
}

// Every line of the sheet binds the keys it names, or says what handles
// them; every key a line binds is named on it. A line that binds nothing
// and names no handler would be a key that does nothing.
func TestEverySheetLineHasABindingAndEveryBindingALine(t *testing.T) {
	single := regexp.MustCompile(`^[[:graph:]]$`)
	names := map[string]fyne.KeyName{"F1": fyne.KeyF1, "F5": fyne.KeyF5, "Esc": fyne.KeyEscape}
	for _, k := range windowKeys {
		bound := len(k.shortcuts)+len(k.runes)+len(k.names) > 0
		if bound == (k.by != "") {
			t.Errorf("line %q: binds %v and is handled by %q: want one of the two", k.keys, bound, k.by)
		}
		if bound && k.do == nil {
			t.Errorf("line %q binds keys to no do", k.keys)
		}
		if !bound {
			continue
		}
		toks := sheetTokens(k.keys)
		for _, tok := range toks {
			switch {
			case single.MatchString(tok) && !slices.Contains(k.runes, rune(tok[0])):
				t.Errorf("line %q names %q but does not bind it", k.keys, tok)
			case names[tok] != "" && !slices.Contains(k.names, names[tok]):
				t.Errorf("line %q names %q but does not bind it", k.keys, tok)
			}
		}
		for _, r := range k.runes {
			if !slices.ContainsFunc(toks, func(tok string) bool { return strings.EqualFold(tok, string(r)) || tok == "Shift+"+string(r) }) {
				t.Errorf("line %q binds %q but does not name it", k.keys, r)
			}
		}
		for _, n := range k.names {
			if !slices.ContainsFunc(toks, func(tok string) bool { return names[tok] == n }) {
				t.Errorf("line %q binds %s but does not name it", k.keys, n)
			}
		}
	}
	// One line per key: a rune or a key bound twice would run the first.
	seen := map[string]string{}
	for _, k := range windowKeys {
		var mine []string
		for _, r := range k.runes {
			mine = append(mine, string(r))
		}
		for _, n := range k.names {
			mine = append(mine, string(n))
		}
		for _, m := range mine {
			if was, ok := seen[m]; ok {
				t.Errorf("%s is bound by %q and by %q", m, was, k.keys)
			}
			seen[m] = k.keys
		}
	}
}
