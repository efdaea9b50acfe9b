package cli_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/trustscreen/reviewer/cli"
)

// `items --json` is written row by row; it stays the one indented array
// that the encoder would have written for the whole listing.
func TestItemsJSONStreamsOneIndentedArray(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	out, _ := h.want(0, "items", "--json")
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(out)); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var want bytes.Buffer
	json.Indent(&want, compact.Bytes(), "", "  ")
	want.WriteString("\n")
	if want.String() != out {
		t.Fatalf("layout differs from one indented document:\n%.400s", out)
	}
	var items []map[string]any
	json.Unmarshal([]byte(out), &items)
	table, _ := h.want(0, "items")
	if lines := bytes.Count([]byte(table), []byte("\n")) - 1; len(items) != lines || len(items) < 100 {
		t.Fatalf("%d items in JSON, %d in the table", len(items), lines)
	}
	if out, _ := h.want(0, "items", "--json", "--batch", "no-such-batch"); out != "[]\n" {
		t.Fatalf("empty listing: %q", out)
	}
}

func TestOpensWindow(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true}, {[]string{"--demo"}, true}, {[]string{"--db", "x.db", "--reviewer", "ana"}, true},
		{[]string{"sync"}, false}, {[]string{"--db", "x.db", "items", "--json"}, false},
		{[]string{"-h"}, false}, {[]string{"--no-such-flag"}, false}, {[]string{"help"}, false},
	} {
		if got := cli.OpensWindow(c.args); got != c.want {
			t.Errorf("OpensWindow(%q) = %v", c.args, got)
		}
	}
}
