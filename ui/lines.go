package ui

import (
	"strings"
	"sync"
	"unicode"

	"fyne.io/fyne/v2"
)

// A wrapped label breaks its own lines (breakLines) and hands them to a
// label that does not wrap. Fyne wraps a label by a binary search of
// measurements over each line, and every measurement of a new piece of
// text shapes it anew: 1 to 5 ms to set one sentence of the item panel on
// ↓, most of the key's update (docs/performance.md, latency6). Here each
// character's advance is measured once, a line is laid by adding them up,
// and the line is then measured whole two or three times, so that it
// breaks exactly where Fyne's would (TestWrappedLabelsBreakWhereFyneDoes).

// advanceKey names one character's advance at a size and style.
type advanceKey struct {
	r     rune
	size  float32
	style fyne.TextStyle
}

// advances holds each character's advance, measured once (wrapped labels
// are drawn on the UI goroutine, and measured in tests beside it). Text
// from outside may bring any characters: past maxAdvances it starts again.
var advances = struct {
	sync.Mutex
	m map[advanceKey]float32
}{m: map[advanceKey]float32{}}

const maxAdvances = 4096

func advance(r rune, size float32, style fyne.TextStyle) float32 {
	k := advanceKey{r, size, style}
	advances.Lock()
	w, ok := advances.m[k]
	advances.Unlock()
	if !ok {
		// Measured eight times over, so that a width kept to a fraction of
		// a pixel does not add up along a line.
		w = fyne.MeasureText(strings.Repeat(string(r), 8), size, style).Width / 8
		advances.Lock()
		if len(advances.m) >= maxAdvances {
			clear(advances.m)
		}
		advances.m[k] = w
		advances.Unlock()
	}
	return w
}

// breakLines breaks text at its spaces into lines no wider than width
// when drawn at size and style, where Fyne's word wrapping breaks it: each
// line holds as many words as fit, a word wider than a line is cut after
// as many characters as fit, the space at a break is dropped, and the
// text's own line breaks stay. A line is first laid by the characters'
// advances; then it is measured whole (kerning makes a line a little
// narrower than its characters), shortened while it does not fit and
// lengthened while the next word does: two or three measurements a line,
// where Fyne's binary search takes eight or nine.
func breakLines(text string, width, size float32, style fyne.TextStyle) string {
	if text == "" || width <= 0 {
		return text
	}
	runes := []rune(text)
	out := make([]rune, 0, len(runes)+8)
	fits := func(lo, hi int) bool {
		return fyne.MeasureText(string(runes[lo:hi]), size, style).Width <= width
	}
	low := 0
	for low <= len(runes) {
		end := low // the end of the paragraph (a line break or the text's end)
		for end < len(runes) && runes[end] != '\n' {
			end++
		}
		for low < end {
			hi := lineEnd(runes, low, end, width, size, style, fits)
			out = append(out, runes[low:hi]...)
			low = hi
			if low < end && unicode.IsSpace(runes[low]) {
				low++
			}
			if low < end {
				out = append(out, '\n')
			}
		}
		if end < len(runes) {
			out = append(out, '\n')
		}
		low = end + 1
	}
	return string(out)
}

// lineEnd is where the line that starts at low ends, in a paragraph that
// ends at end: the last space before which the line fits, or, when not
// even one word fits, the last character that does (at least one).
func lineEnd(runes []rune, low, end int, width, size float32, style fyne.TextStyle, fits func(lo, hi int) bool) int {
	// The estimate: the characters' advances added up.
	hi, w := low, float32(0)
	for hi < end {
		if w += advance(runes[hi], size, style); w > width {
			break
		}
		hi++
	}
	if hi == end && fits(low, end) {
		return end
	}
	words := lastSpace(runes, low, hi) > low || (hi < end && unicode.IsSpace(runes[hi]))
	if !words {
		// One word wider than the line: as many characters as fit.
		hi = max(hi, low+1)
		for hi > low+1 && !fits(low, hi) {
			hi--
		}
		for hi < end && !unicode.IsSpace(runes[hi]) && fits(low, hi+1) {
			hi++
		}
		return hi
	}
	// Back to a word's end, shorter while it does not fit, then longer
	// while the next word fits.
	if hi == end || !unicode.IsSpace(runes[hi]) {
		if s := lastSpace(runes, low, hi); s > low {
			hi = s
		}
	}
	for !fits(low, hi) {
		s := lastSpace(runes, low, hi)
		if s <= low {
			return lineEnd(runes, low, hi, width, size, style, fits) // a word alone that does not fit
		}
		hi = s
	}
	for hi < end {
		next := hi + 1
		for next < end && !unicode.IsSpace(runes[next]) {
			next++
		}
		if !fits(low, next) {
			break
		}
		hi = next
	}
	return hi
}

// lastSpace is the index of the last space in runes[low:hi], or -1.
func lastSpace(runes []rune, low, hi int) int {
	for i := hi - 1; i > low; i-- {
		if unicode.IsSpace(runes[i]) {
			return i
		}
	}
	return -1
}
