package ui

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

var bulkClearHead = regexp.MustCompile(`Clear (\d+) items? \(no reason given yet\): no paid analysis`)

// A bulk clear from the keyboard alone, on the real workflow and the
// reference service at 1.2: Ctrl+Shift+C opens the plan with what it
// leaves out; the reason picker has the focus, typing finds a reason, Tab
// reaches the comment, Ctrl+Enter confirms; each planned item gets one
// clear with that reason and comment, and nothing else is decided.
func TestBulkClearFromTheKeyboardAlone(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: screenapi.Version12, Batches: 6,
		Reviewers: screenapi.DemoReviewers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ana := realService(t, srv, "demo-token-ana-0001", t.TempDir())
	if _, err := ana.Sync.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	c := realConsole(t, ana)
	// The view: the batch with the most items to clear.
	var all []policy.RawItem
	srv.Find(func(it policy.RawItem) bool { all = append(all, it); return false })
	by := map[string]int{}
	batch := ""
	for _, it := range all {
		if it.Status == "scored" && it.RiskScore != nil && *it.RiskScore >= 0 && *it.RiskScore < 40 &&
			it.Recommendation != nil && *it.Recommendation == "forward" && len(srv.Decisions(it.ID)) == 0 {
			by[it.BatchID]++
			if batch == "" || by[it.BatchID] > by[batch] || by[it.BatchID] == by[batch] && it.BatchID < batch {
				batch = it.BatchID
			}
		}
	}
	if batch == "" {
		t.Fatal("no batch holds an item to clear")
	}
	c.apply(func() { c.batches.list.OnSelected(c.batches.index(batch)) })
	c.Settle()
	if c.batches.batchID() != batch {
		t.Fatalf("batch %q in view, want %q", c.batches.batchID(), batch)
	}
	before := srv.Arrivals(screenapi.EPDecision)
	pressShortcut(c, ctrlShift(fyne.KeyC))
	c.Settle()
	if c.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Ctrl+Shift+C opened nothing")
	}
	text := dialogTexts(c)
	m := bulkClearHead.FindStringSubmatch(text)
	if m == nil || m[1] == "0" || !strings.Contains(text, "Left out:") || !strings.Contains(text, "never cleared") ||
		!strings.Contains(text, "▸ The document passes the reviewer's own checks (DOC_GENUINE)") || strings.Contains(text, "DOC_TAMPERED") {
		t.Fatalf("the plan says:\n%s", text)
	}
	n, _ := strconv.Atoi(m[1])
	if n != by[batch] {
		t.Fatalf("the plan clears %d of the %d in view:\n%s", n, by[batch], text)
	}
	// Confirming with no reason found queues nothing.
	typeText(c, "no such reason")
	ctrlEnter(c)
	if !strings.Contains(dialogTexts(c), "Pick a reason") || srv.Arrivals(screenapi.EPDecision) != before {
		t.Fatalf("confirmed without a reason:\n%s", dialogTexts(c))
	}
	for range len("no such reason") {
		pressKey(c, fyne.KeyBackspace)
	}
	typeText(c, "benign") // the reason picker has the focus: it finds one by its label
	press(c, fyne.KeyTab, 0)
	typeText(c, "scan noise")
	ctrlEnter(c)
	c.Settle()
	if got := dialogTexts(c); !strings.Contains(got, strconv.Itoa(n)+" of "+strconv.Itoa(n)+": "+strconv.Itoa(n)+" done") {
		t.Fatalf("after the run the dialog says:\n%s", got)
	}
	cleared := 0
	var items []policy.RawItem
	srv.Find(func(it policy.RawItem) bool { items = append(items, it); return false })
	for _, it := range items {
		for _, d := range srv.Decisions(it.ID) {
			if d.By != "ana" {
				continue
			}
			cleared++
			if d.Outcome != "clear" || d.ReasonCode != "BENIGN_ARTEFACT" || d.State != "final" ||
				it.RiskScore == nil || *it.RiskScore >= 40 || *it.Recommendation != "forward" {
				t.Fatalf("%s: %+v (score %v)", it.ID, d, it.RiskScore)
			}
			// Her cache holds the service's answer, with the run's comment.
			if dt, err := ana.Triage.Item(context.Background(), it.ID); err != nil || len(dt.Decisions) != 1 || dt.Decisions[0].Comment != "scan noise" {
				t.Fatalf("%s in her cache: %+v %v", it.ID, dt.Decisions, err)
			}
		}
	}
	if cleared != n || srv.Arrivals(screenapi.EPDecision)-before != n {
		t.Fatalf("%d cleared, %d arrivals, for a plan of %d", cleared, srv.Arrivals(screenapi.EPDecision)-before, n)
	}
	pressKey(c, fyne.KeyEscape)
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc left the dialog open")
	}
}
