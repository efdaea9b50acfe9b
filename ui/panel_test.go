package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/review"
)

// A failed replacement kept the customer's file: the panel offers to
// upload it again, and the button sends it through the workflow; an item
// with no kept file shows no such button.
func TestTheKeptFileOfAFailedReplacementIsOfferedAgain(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "DECODE_FAILED")},
		kept: map[string]string{"itm_1": "passport-scan.pdf"}}
	c := newTestConsole(t, wf)
	c.Settle()
	if c.panel.itemID != "itm_1" || !c.panel.again.Visible() || c.panel.again.Disabled() ||
		!strings.Contains(c.panel.again.Text, "passport-scan.pdf") {
		t.Fatalf("item %q: again visible=%v disabled=%v %q", c.panel.itemID, c.panel.again.Visible(), c.panel.again.Disabled(), c.panel.again.Text)
	}
	test.Tap(c.panel.again)
	c.Settle()
	if !slices.Contains(wf.Calls(), "replace again itm_1") {
		t.Fatalf("calls %v", wf.Calls())
	}
	c.apply(func() { c.panel.show("itm_2") })
	c.Settle()
	if c.panel.itemID != "itm_2" || c.panel.again.Visible() {
		t.Fatalf("item %q offers a kept file it does not have", c.panel.itemID)
	}
}
