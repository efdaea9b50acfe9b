package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// gatedItems is the fake workflow whose reading of one item waits on a
// gate: a slow cache, or a cache busy with an upload.
type gatedItems struct {
	*fakeWorkflow
	gmu   sync.Mutex
	gates map[string]chan struct{}
	docs  *fakeDocs
}

func (g *gatedItems) Item(ctx context.Context, id string) (review.Detail, error) {
	g.gmu.Lock()
	gate := g.gates[id]
	g.gmu.Unlock()
	if gate != nil {
		<-gate
	}
	return g.fakeWorkflow.Item(ctx, id)
}

func (g *gatedItems) Document(ctx context.Context, id string, version int) (review.Document, error) {
	return g.docs.Document(ctx, id, version)
}

func (g *gatedItems) DocumentVersions(ctx context.Context, id string) ([]review.DocumentVersion, error) {
	return g.docs.DocumentVersions(ctx, id)
}

func (g *gatedItems) gate(id string) chan struct{} {
	g.gmu.Lock()
	defer g.gmu.Unlock()
	ch := make(chan struct{})
	g.gates[id] = ch
	return ch
}

// panelTexts is every text the item panel's upper part draws.
func panelTexts(c *Console) string {
	var out []string
	walkObjects(c.panel.scroll.Content, func(o fyne.CanvasObject) {
		if l, ok := asLabel(o); ok && o.Visible() {
			out = append(out, l.Text)
		}
	})
	return strings.Join(out, "\n")
}

// One item on screen: while the next item's text is still being read, the
// panel shows none of the previous item's beside the next one's picture.
func TestThePanelNeverDescribesOneItemBesideAnothersPicture(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/png", cardPNG(t, 300, 200, blue), review.DocumentVersion{})
	docs.add("itm_2", "image/png", cardPNG(t, 300, 200, red), review.DocumentVersion{})
	g := &gatedItems{fakeWorkflow: &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "DECODE_FAILED"), errorItem("itm_2", "CLASSIFIER_TIMEOUT")}},
		gates: map[string]chan struct{}{}, docs: docs}
	c := newConsoleOn(t, g)
	c.apply(c.panel.preview.arm)
	c.Settle()
	if !strings.Contains(panelTexts(c), "itm_1") {
		t.Fatalf("first item not shown:\n%s", panelTexts(c))
	}
	gate := g.gate("itm_2")
	c.apply(func() { c.items.move(1) })
	waitFor(t, docs, "itm_2")
	// The picture of itm_2 arrives while its text is still read.
	waitUntil(t, c, func() bool { return c.panel.preview.state == "shown" })
	var texts string
	c.apply(func() { texts = panelTexts(c) })
	if strings.Contains(texts, "itm_1") || strings.Contains(texts, "Decode") || !strings.Contains(texts, "· itm_2 ·") ||
		!strings.Contains(texts, readingDetail) {
		t.Fatalf("itm_2's picture beside this text:\n%s", texts)
	}
	if !c.panel.resubmit.Disabled() || !c.panel.request.Disabled() || !c.panel.upload.Disabled() {
		t.Fatal("an action is offered before the item is read")
	}
	close(gate)
	c.Settle()
	if texts := panelTexts(c); !strings.Contains(texts, "itm_2") || strings.Contains(texts, "itm_1") {
		t.Fatalf("after loading:\n%s", texts)
	}
}

// The program does not move her away from the item a dialog is open on:
// an action's end that would advance leaves the panel and the dialog on
// the same item.
func TestADialogAndThePanelNameTheSameItem(t *testing.T) {
	wf := &fakeWorkflow{items: []review.ItemView{errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "CLASSIFIER_TIMEOUT")}}
	release := make(chan struct{})
	wf.resubmit = func(ctx context.Context, id string) (review.Result, error) {
		<-release
		a := wf.setAction(id, policy.ActionResubmit, policy.ActionQueued, "")
		return review.Result{Action: a}, nil
	}
	c := newConsoleOn(t, wf)
	c.apply(func() { test.TypeOnCanvas(c.win.Canvas(), "r"); key(c)(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	c.apply(c.onSnooze) // she opens the snooze dialog while the re-submission runs
	if c.win.Canvas().Overlays().Top() == nil || !strings.Contains(dialogTexts(c), "Snooze itm_1.jpg") {
		t.Fatalf("no snooze dialog on itm_1:\n%s", dialogTexts(c))
	}
	close(release)
	c.Settle()
	if c.panel.itemID != "itm_1" || c.win.Canvas().Overlays().Top() == nil || !strings.Contains(dialogTexts(c), "Snooze itm_1.jpg") {
		t.Fatalf("the panel shows %q while the dialog says:\n%s", c.panel.itemID, dialogTexts(c))
	}
}

// The viewer names the item and its customer, and its messages are laid
// out across the side, not one letter per line.
func TestTheViewerNamesItsItemAndWritesItsMessagesAcross(t *testing.T) {
	docs := newFakeDocs()
	docs.add("itm_1", "image/webp", cardPNG(t, 60, 40, blue), review.DocumentVersion{})
	c := docConsole(t, docs, errorItem("itm_1", "DECODE_FAILED"))
	v := openViewer(c, docs, c.panel.preview.lim, "itm_1")
	c.Settle()
	if got := v.win.Title(); !strings.Contains(got, "itm_1") || !strings.Contains(got, "CUST-1") {
		t.Fatalf("viewer title %q", got)
	}
	if !strings.Contains(v.heading.Text, "CUST-1") {
		t.Fatalf("viewer heading %q", v.heading.Text)
	}
	s := v.sides[0]
	if s.state != "refused" {
		t.Fatalf("state %q", s.state)
	}
	c.apply(func() { v.win.Resize(viewerSize) })
	line := s.line
	one := fyne.MeasureText("M", theme.TextSize(), line.TextStyle)
	if w := line.Size().Width; w < 20*one.Width {
		t.Fatalf("the refusal %q is laid out %v wide (a letter is %v)", line.Text, w, one.Width)
	}
}

// waitUntil waits for a condition on the window's state, read as the UI
// goroutine would, while background work that cannot settle (a gated
// read) is under way.
func waitUntil(t *testing.T, c *Console, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		c.apply(func() { ok = cond() })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the condition never held")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
