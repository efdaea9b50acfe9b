package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// teamFake adds the 1.1 workflow to the fake: claims on the items it
// holds, Next, and notes.
type teamFake struct {
	*fakeWorkflow
	version string
	notes   map[string][]store.NoteRow
	next    review.NextResult
}

func (f *teamFake) setClaim(id string, c *policy.Claim) policy.Item {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.items {
		if f.items[i].ID == id {
			f.items[i].Claim = c
			return f.items[i].Item
		}
	}
	return policy.Item{}
}

func (f *teamFake) Claim(_ context.Context, id string, ttl time.Duration) (policy.Item, error) {
	f.record("claim " + id)
	return f.setClaim(id, &policy.Claim{Reviewer: "ana", ExpiresAt: time.Now().Add(f.ClaimTTL())}), nil
}
func (f *teamFake) Release(_ context.Context, id string) (policy.Item, error) {
	f.record("release " + id)
	return f.setClaim(id, nil), nil
}
func (f *teamFake) Next(context.Context) (review.NextResult, error) {
	f.record("next")
	return f.next, nil
}
func (f *teamFake) AddNote(_ context.Context, id, text string) (review.NoteResult, error) {
	f.record("note " + id + " " + text)
	n := store.NoteRow{ItemID: id, Author: "ana", Text: text, State: policy.ActionQueued, CreatedAt: time.Now()}
	f.mu.Lock()
	f.notes[id] = append(f.notes[id], n)
	f.mu.Unlock()
	return review.NoteResult{Note: n}, nil
}
func (f *teamFake) APIVersion() string      { return f.version }
func (f *teamFake) ClaimTTL() time.Duration { return 15 * time.Minute }
func (f *teamFake) Item(ctx context.Context, id string) (review.Detail, error) {
	d, err := f.fakeWorkflow.Item(ctx, id)
	f.mu.Lock()
	defer f.mu.Unlock()
	d.NoteRows = append([]store.NoteRow(nil), f.notes[id]...)
	d.Notes = len(d.NoteRows)
	return d, err
}

func newTeamFake(items ...review.ItemView) *teamFake {
	return &teamFake{fakeWorkflow: &fakeWorkflow{items: items}, version: "1.1", notes: map[string][]store.NoteRow{}}
}

func newTeamConsole(t *testing.T, wf Workflow) *Console {
	t.Helper()
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, wf, Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	return c
}

func callsWith(f *teamFake, prefix string) []string {
	var out []string
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func TestAnItemHeldByAnotherReviewerHasItsActionsOff(t *testing.T) {
	until := time.Now().Add(10 * time.Minute)
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: until}
	held.Holder = held.Claim
	wf := newTeamFake(held)
	c := newTeamConsole(t, wf)
	want := "Ben is on this until " + policy.UntilText(until, time.Now())
	if !c.panel.loaded || !c.panel.resubmit.Disabled() || !c.panel.request.Disabled() || !c.panel.upload.Disabled() {
		t.Fatal("the action buttons must be off while ben holds the item")
	}
	if !strings.Contains(c.panel.why.Text, want) || c.panel.team.claim.Text != want {
		t.Fatalf("why %q claim %q", c.panel.why.Text, c.panel.team.claim.Text)
	}
	if st := c.cell(0, c.col(t, "Status")); !strings.Contains(st.Text, want) || st.Importance != widget.WarningImportance {
		t.Fatalf("row status %q", st.Text)
	}
	if got := callsWith(wf, "claim"); len(got) != 0 {
		t.Fatalf("an item someone else holds was claimed: %v", got)
	}
	c.onRune('r')
	c.Settle()
	if got := callsWith(wf, "resubmit"); len(got) != 0 {
		t.Fatalf("a held item was re-submitted: %v", got)
	}
}

// A claim that ends on another day says which day, in the row and in the
// panel: "until 09:17" for a claim that ends tomorrow reads as "tonight".
func TestAClaimEndingTomorrowShowsItsDate(t *testing.T) {
	until := time.Now().Add(30 * time.Hour)
	held := errorItem("itm_1", "CLASSIFIER_TIMEOUT")
	held.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: until}
	held.Holder = held.Claim
	c := newTeamConsole(t, newTeamFake(held))
	// The year joins the date only across New Year's Eve.
	want, clock := "Ben is on this until "+until.Local().Format("Jan 2"), until.Local().Format("15:04")
	if got := c.panel.team.claim.Text; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, clock) {
		t.Fatalf("panel %q, want %q ... %q", got, want, clock)
	}
	if st := c.cell(0, c.col(t, "Status")); !strings.Contains(st.Text, want) || !strings.Contains(st.Text, clock) {
		t.Fatalf("row status %q, want %q ... %q", st.Text, want, clock)
	}
}

func TestOpeningClaimsAndMovingOnReleases(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "DECODE_FAILED"), scoredItem("itm_3", 12, policy.RecommendForward))
	c := newTeamConsole(t, wf)
	if got := callsWith(wf, "claim"); len(got) != 1 || got[0] != "claim itm_1" {
		t.Fatalf("opening the first item: %v", got)
	}
	if !strings.HasPrefix(c.panel.team.claim.Text, "You are on this until") || c.panel.resubmit.Disabled() {
		t.Fatalf("claim %q", c.panel.team.claim.Text)
	}
	c.apply(func() { c.items.move(1) })
	c.Settle()
	if got := wf.Calls(); !contains(got, "release itm_1") || !contains(got, "claim itm_2") {
		t.Fatalf("moving on: %v", got)
	}
	// A scored item needs nobody: no claim, and the held one is released.
	c.apply(func() { c.items.move(1) })
	c.Settle()
	if got := callsWith(wf, "claim"); len(got) != 2 || !contains(wf.Calls(), "release itm_2") {
		t.Fatalf("a checked item: %v", wf.Calls())
	}
	c.ReleaseClaims(time.Second) // nothing held: no call
	if got := callsWith(wf, "release"); len(got) != 2 {
		t.Fatalf("releases %v", got)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestNextClaimsAndOpensTheItem(t *testing.T) {
	first, second := errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_2", "INTERNAL_ERROR")
	wf := newTeamFake(first, second)
	c := newTeamConsole(t, wf)
	next := second
	next.Claim = &policy.Claim{Reviewer: "ana", ExpiresAt: time.Now().Add(15 * time.Minute)}
	wf.next = review.NextResult{Item: &next, Claimed: true, Why: "claimed"}
	wf.setClaim("itm_2", next.Claim)
	c.onRune('n')
	c.Settle()
	if c.panel.itemID != "itm_2" || c.items.row != 1 || c.panel.team.held != "itm_2" {
		t.Fatalf("panel %q row %d held %q", c.panel.itemID, c.items.row, c.panel.team.held)
	}
	if !contains(wf.Calls(), "next") || !contains(wf.Calls(), "release itm_1") {
		t.Fatalf("calls %v", wf.Calls())
	}
	// Nothing left: the button says so and the panel stays.
	wf.next = review.NextResult{Why: "nothing needs a reviewer that nobody else holds"}
	test.Tap(c.panel.team.next)
	c.Settle()
	if c.panel.itemID != "itm_2" || c.panel.team.claim.Text != "nothing needs a reviewer that nobody else holds" {
		t.Fatalf("panel %q claim %q", c.panel.itemID, c.panel.team.claim.Text)
	}
}

func TestAVersion10ServiceShowsNoClaims(t *testing.T) {
	wf := newTeamFake(errorItem("itm_1", "CLASSIFIER_TIMEOUT"))
	wf.version = "1.0"
	c := newTeamConsole(t, wf)
	if got := callsWith(wf, "claim"); len(got) != 0 {
		t.Fatalf("claims against a 1.0 service: %v", got)
	}
	if !strings.Contains(c.panel.team.claim.Text, "does not offer") || !c.panel.team.add.Disabled() || c.panel.resubmit.Disabled() {
		t.Fatalf("claim %q", c.panel.team.claim.Text)
	}
}

func TestNextOpensAnItemOfAnotherBatch(t *testing.T) {
	here, there := errorItem("itm_1", "CLASSIFIER_TIMEOUT"), errorItem("itm_9", "INTERNAL_ERROR")
	there.BatchID = "bat_2"
	wf := newTeamFake(here, there)
	wf.batches = []store.BatchSummary{{ID: "bat_1", CustomerRef: "CUST-1", CreatedAt: time.Now(), Items: 1},
		{ID: "bat_2", CustomerRef: "CUST-2", CreatedAt: time.Now().Add(-time.Hour), Items: 1}}
	c := newTeamConsole(t, wf)
	if c.batches.batchID() != "bat_1" || c.panel.itemID != "itm_1" {
		t.Fatalf("batch %q item %q", c.batches.batchID(), c.panel.itemID)
	}
	next := there
	next.Claim = &policy.Claim{Reviewer: "ana", ExpiresAt: time.Now().Add(15 * time.Minute)}
	wf.setClaim("itm_9", next.Claim)
	wf.next = review.NextResult{Item: &next, Claimed: true}
	c.onRune('n')
	c.Settle()
	if c.batches.batchID() != "bat_2" || c.panel.itemID != "itm_9" || c.items.row != 0 || c.panel.team.held != "itm_9" {
		t.Fatalf("batch %q item %q row %d held %q", c.batches.batchID(), c.panel.itemID, c.items.row, c.panel.team.held)
	}
	// A reload (the cache changed) keeps it open.
	c.apply(c.reload)
	c.Settle()
	if c.panel.itemID != "itm_9" || contains(wf.Calls(), "release itm_9") {
		t.Fatalf("after a reload: %q %v", c.panel.itemID, wf.Calls())
	}
}
