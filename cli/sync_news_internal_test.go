package cli

import (
	"fmt"
	"testing"
)

// A sync that brought many new items names the first ten and says how to
// list them all.
func TestNewItemsLineNamesTheFirstTen(t *testing.T) {
	var ids []string
	for i := range 12 {
		ids = append(ids, fmt.Sprintf("itm_%02d", i))
	}
	want := "12 new items need you: itm_00, itm_01, itm_02, itm_03, itm_04, itm_05, itm_06, itm_07, itm_08, itm_09 and 2 more (reviewer items --needs-action)"
	if got := newItemsLine(ids); got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
	if got := newItemsLine(ids[:2]); got != "2 new items need you: itm_00, itm_01" {
		t.Fatalf("%q", got)
	}
}
