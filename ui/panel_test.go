package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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

// ↓ draws the next item's words in the same update as the key, from its
// row (docs/performance.md: the latency a reviewer feels), while its
// detail is still read; nothing is offered on it until the detail is in.
func TestTheNextItemsWordsShowBeforeItsDetailIsRead(t *testing.T) {
	g := &gatedItems{fakeWorkflow: &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "CLASSIFIER_TIMEOUT")}},
		gates: map[string]chan struct{}{}, docs: newFakeDocs()}
	c := newConsoleOn(t, g)
	c.Settle()
	gate := g.gate("itm_2")
	var texts string
	var offered bool
	c.apply(func() {
		c.items.move(1)
		texts = panelTexts(c)
		offered = !c.panel.resubmit.Disabled() || !c.panel.request.Disabled() || !c.panel.upload.Disabled()
	})
	if !strings.Contains(texts, "itm_2.jpg") || !strings.Contains(texts, "CLASSIFIER_TIMEOUT") || strings.Contains(texts, "itm_1") ||
		!strings.Contains(texts, readingDetail) {
		t.Fatalf("right after ↓, the panel says:\n%s", texts)
	}
	if offered {
		t.Fatal("an action is offered before the item's detail is read")
	}
	close(gate)
	waitUntil(t, c, func() bool { return c.panel.ready() && c.panel.itemID == "itm_2" })
	c.apply(func() { texts, offered = panelTexts(c), !c.panel.resubmit.Disabled() })
	if !offered || strings.Contains(texts, "Loading itm_2") || strings.Contains(texts, readingDetail) || strings.Contains(texts, "itm_1") {
		t.Fatalf("once read: re-submit offered %v, the panel says:\n%s", offered, texts)
	}
}

// readItems reports each item detail read as it starts.
type readItems struct {
	*fakeWorkflow
	reads chan string
}

func (r *readItems) Item(ctx context.Context, id string) (review.Detail, error) {
	select {
	case r.reads <- id:
	default:
	}
	return r.fakeWorkflow.Item(ctx, id)
}

// ↓'s frame is the key's alone: Fyne draws it right after the key's
// update, and the next item's detail (its actions, history, claim) is read
// only once that update is over, so that the read never takes a core from
// the frame that names the item (docs/performance.md). It failed before:
// the read started inside the key's update.
func TestTheNextItemsDetailIsReadAfterTheKeysFrame(t *testing.T) {
	r := &readItems{fakeWorkflow: &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "CLASSIFIER_TIMEOUT")}},
		reads: make(chan string, 8)}
	c := newConsoleOn(t, r)
	c.Settle()
	for len(r.reads) > 0 {
		<-r.reads
	}
	var during string
	c.apply(func() {
		c.items.move(1)
		// The update is still under way: no read may start (a read that
		// started would report here well within the second).
		select {
		case during = <-r.reads:
		case <-time.After(time.Second):
		}
	})
	if during != "" {
		t.Fatalf("%s's detail was read while the key's update was under way", during)
	}
	waitUntil(t, c, func() bool { return c.panel.ready() && c.panel.itemID == "itm_2" })
}
