package cli

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// tableLookAhead is how many rows a streamed table holds to size its
// columns before it writes the first one.
const tableLookAhead = 1000

// streamTable writes a table with aligned columns in flat memory, however
// many rows it has: it holds the first tableLookAhead rows, sizes the
// columns on them, and then writes every row as it comes. A table that
// fits the look-ahead comes out exactly as text/tabwriter (padding 2,
// spaces) lays it out; in a longer one a later, wider cell widens its
// column from that row on. Cells are one line each (cell() cuts them), so
// no column grows far.
type streamTable struct {
	w      *bufio.Writer
	ahead  [][]string
	widths []int
	line   []byte
}

func newStreamTable(w io.Writer) *streamTable {
	return &streamTable{w: bufio.NewWriterSize(w, 64<<10)}
}

// Row adds a row; its cells are copied where they are held.
func (t *streamTable) Row(cells ...string) error {
	if t.ahead != nil || t.widths == nil {
		if len(t.ahead) < tableLookAhead {
			t.ahead = append(t.ahead, append([]string(nil), cells...))
			return nil
		}
		t.size()
	}
	return t.write(cells)
}

// size sets the columns' widths from the rows held and writes them.
func (t *streamTable) size() {
	for _, r := range t.ahead {
		t.widen(r)
	}
	held := t.ahead
	t.ahead = nil
	for _, r := range held {
		t.writeRow(r)
	}
}

func (t *streamTable) widen(cells []string) {
	for len(t.widths) < len(cells)-1 {
		t.widths = append(t.widths, 0)
	}
	for i, c := range cells[:max(len(cells)-1, 0)] { // the last cell is not aligned
		if w := utf8.RuneCountInString(c); w > t.widths[i] {
			t.widths[i] = w
		}
	}
	if t.widths == nil {
		t.widths = []int{}
	}
}

func (t *streamTable) write(cells []string) error {
	t.widen(cells)
	return t.writeRow(cells)
}

func (t *streamTable) writeRow(cells []string) error {
	b := t.line[:0]
	for i, c := range cells {
		b = append(b, c...)
		if i < len(cells)-1 {
			pad := t.widths[i] + 2 - utf8.RuneCountInString(c)
			b = append(b, strings.Repeat(" ", pad)...)
		}
	}
	b = append(b, '\n')
	t.line = b
	_, err := t.w.Write(b)
	return err
}

// Flush writes what is held and buffered.
func (t *streamTable) Flush() error {
	if t.ahead != nil || t.widths == nil {
		t.size()
	}
	return t.w.Flush()
}
