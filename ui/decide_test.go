package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// fakeDeciding is a Deciding held in memory; the real one (review.Decisions)
// is tested in package review against the reference service.
type fakeDeciding struct {
	mu      sync.Mutex
	reasons []policy.ReasonCode
	calls   []string
	res     DecideResult
}

func (f *fakeDeciding) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeDeciding) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeDeciding) ReasonCodes(context.Context) ([]policy.ReasonCode, error) {
	f.record("reason-codes")
	return f.reasons, nil
}

func (f *fakeDeciding) Decide(_ context.Context, id string, o policy.Outcome, reason, comment string) (DecideResult, error) {
	f.record(fmt.Sprintf("decide %s %s %s %q", id, o, reason, comment))
	return f.res, nil
}

func (f *fakeDeciding) Confirm(_ context.Context, id string, agree bool, comment string) (DecideResult, error) {
	f.record(fmt.Sprintf("confirm %s %v %q", id, agree, comment))
	return f.res, nil
}

// sent are the calls that decided or confirmed something.
func (f *fakeDeciding) sent() []string {
	var out []string
	for _, c := range f.Calls() {
		if c != "reason-codes" {
			out = append(out, c)
		}
	}
	return out
}

func newFakeDeciding() *fakeDeciding {
	return &fakeDeciding{res: DecideResult{Sent: DecideQueued}, reasons: []policy.ReasonCode{
		{Code: "DOC_FORGED", Label: "Document forged", Outcomes: []policy.Outcome{policy.OutcomeReject, policy.OutcomeEscalate}},
		{Code: "FACE_MISMATCH", Label: "Face does not match the ID", Outcomes: []policy.Outcome{policy.OutcomeReject}},
		{Code: "VERIFIED", Label: "Verified by hand", Outcomes: []policy.Outcome{policy.OutcomeClear}},
	}}
}

// decidable is a scored item of a service that takes decisions (1.2).
func decidable(v review.ItemView) review.ItemView {
	v.Team.DecisionsOffered = true
	return v
}

// awaiting is a scored item whose reject by "by" awaits a second reviewer.
func awaiting(id, by string) review.ItemView {
	v := decidable(scoredItem(id, 85, policy.RecommendReject))
	v.Team.Decisions = []policy.Decision{{ID: "dec_1", Outcome: policy.OutcomeReject, ReasonCode: "DOC_FORGED",
		Comment: "the hologram is printed", By: by, At: time.Date(2026, 12, 5, 10, 2, 0, 0, time.UTC), State: policy.DecisionAwaiting}}
	return v
}

func decideConsole(t *testing.T, fd *fakeDeciding, items ...review.ItemView) *Console {
	t.Helper()
	wf := workflowOf(&fakeWorkflow{items: items})
	if fd != nil {
		wf.Decide = fd
	}
	return newTestConsoleOn(t, wf, Options{})
}

func ctrlEnter(c *Console) { press(c, fyne.KeyReturn, fyne.KeyModifierControl); c.Settle() }

// Every decision key opens its dialog on the item the panel shows, and
// the dialog names it, its customer and its file.
func TestDecideEveryKeyOpensItsDialogOnTheSelectedItem(t *testing.T) {
	for _, k := range []struct {
		key, title string
		item       func(id string) review.ItemView
	}{
		{"c", "Clear", func(id string) review.ItemView { return decidable(scoredItem(id, 71, policy.RecommendReview)) }},
		{"j", "Reject", func(id string) review.ItemView { return decidable(scoredItem(id, 71, policy.RecommendReview)) }},
		{"e", "Escalate", func(id string) review.ItemView { return decidable(scoredItem(id, 71, policy.RecommendReview)) }},
		{"a", "Confirm or return", func(id string) review.ItemView { return awaiting(id, "ben") }},
		{"A", "Confirm or return", func(id string) review.ItemView { return awaiting(id, "ben") }},
	} {
		t.Run(k.key, func(t *testing.T) {
			first, second := k.item("itm_first"), k.item("itm_second")
			second.CustomerRef = "CUST-2"
			c := decideConsole(t, newFakeDeciding(), first, second)
			pressKey(c, fyne.KeyDown)
			c.Settle()
			if c.panel.itemID != "itm_second" || !c.panel.ready() {
				t.Fatalf("the panel shows %q", c.panel.itemID)
			}
			typeText(c, k.key)
			if c.win.Canvas().Overlays().Top() == nil {
				t.Fatalf("%s opened nothing; the strip says %q", k.key, c.strip.pages.Text)
			}
			text := dialogTexts(c)
			for _, want := range []string{k.title, "Item itm_second · customer CUST-2 · file itm_second.jpg"} {
				if !strings.Contains(text, want) {
					t.Fatalf("%s: the dialog does not say %q:\n%s", k.key, want, text)
				}
			}
			if strings.Contains(text, "itm_first") {
				t.Fatalf("%s: the dialog names the other item:\n%s", k.key, text)
			}
		})
	}
}

// From the keyboard alone: ↓ in the picker, Tab, a comment, Ctrl+Enter:
// one Decide with those values, and the strip says what became of it.
func TestDecideFromTheKeyboardAlone(t *testing.T) {
	fd := newFakeDeciding()
	c := decideConsole(t, fd, decidable(scoredItem("itm_1", 85, policy.RecommendReject)))
	typeText(c, "j")
	if c.win.Canvas().Overlays().Top() == nil {
		t.Fatal("j opened nothing")
	}
	text := dialogTexts(c)
	if !strings.Contains(text, "▸ Document forged (DOC_FORGED)") || strings.Contains(text, "VERIFIED") {
		t.Fatalf("the picker lists the wrong reasons for a reject:\n%s", text)
	}
	pressKey(c, fyne.KeyDown) // the second reason
	press(c, fyne.KeyTab, 0)
	typeText(c, "the face differs")
	ctrlEnter(c)
	if got := fd.sent(); len(got) != 1 || got[0] != `decide itm_1 reject FACE_MISMATCH "the face differs"` {
		t.Fatalf("calls %q", got)
	}
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("the dialog stayed open")
	}
	if want := "itm_1.jpg: reject queued: goes out when the service answers · b goes back to it"; c.strip.pages.Text != want {
		t.Fatalf("strip %q, want %q", c.strip.pages.Text, want)
	}

	// Typing finds a reason by its label; Enter in the picker decides.
	typeText(c, "e")
	typeText(c, "forged")
	press(c, fyne.KeyTab, 0)
	typeText(c, "sent to compliance")
	press(c, fyne.KeyTab, fyne.KeyModifierShift)
	pressKey(c, fyne.KeyReturn)
	if got := fd.sent(); len(got) != 2 || got[1] != `decide itm_1 escalate DOC_FORGED "sent to compliance"` {
		t.Fatalf("calls %q", got)
	}
}

// Esc leaves the dialog and sends nothing.
func TestDecideEscSendsNothing(t *testing.T) {
	fd := newFakeDeciding()
	c := decideConsole(t, fd, decidable(scoredItem("itm_1", 71, policy.RecommendReview)))
	typeText(c, "c")
	if c.win.Canvas().Overlays().Top() == nil {
		t.Fatal("c opened nothing")
	}
	press(c, fyne.KeyTab, 0)
	typeText(c, "looks fine")
	pressKey(c, fyne.KeyEscape)
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc left the dialog open")
	}
	if got := fd.sent(); len(got) != 0 {
		t.Fatalf("Esc sent %q", got)
	}
}

// An item that could not be checked is never cleared: the dialog says
// why, and nothing is asked of the workflow.
func TestDecideClearOfAnUncheckedItemIsRefusedBeforeAnyCall(t *testing.T) {
	pending := scoredItem("itm_p", 0, "")
	pending.Status, pending.RiskScore, pending.Recommendation = policy.StatusPending, nil, ""
	invalid := review.ItemView{ItemRow: store.ItemRow{Item: policy.MarkInvalid(policy.Item{ID: "itm_i", BatchID: "bat_1", FileName: "itm_i.jpg"}, "a score on an error")}}
	for _, v := range []review.ItemView{decidable(errorItem("itm_e", "DECODE_FAILED")), decidable(invalid), decidable(pending)} {
		t.Run(string(v.Status), func(t *testing.T) {
			fd := newFakeDeciding()
			c := decideConsole(t, fd, v)
			typeText(c, "c")
			if c.win.Canvas().Overlays().Top() == nil {
				t.Fatalf("c said nothing in a dialog; strip %q", c.strip.pages.Text)
			}
			if text := dialogTexts(c); !strings.Contains(text, "cannot be cleared") || !strings.Contains(text, "Nothing was sent") {
				t.Fatalf("the refusal is not said:\n%s", text)
			}
			ctrlEnter(c)
			pressKey(c, fyne.KeyReturn)
			if got := fd.Calls(); len(got) != 0 {
				t.Fatalf("calls %q", got)
			}
		})
	}
}

// A reject needs a comment: refused in the dialog, nothing sent.
func TestDecideRejectWithoutCommentIsRefused(t *testing.T) {
	fd := newFakeDeciding()
	c := decideConsole(t, fd, decidable(scoredItem("itm_1", 85, policy.RecommendReject)))
	typeText(c, "j")
	pressKey(c, fyne.KeyReturn)
	if c.win.Canvas().Overlays().Top() == nil {
		t.Fatal("the dialog closed")
	}
	if text := dialogTexts(c); !strings.Contains(text, "needs a comment") {
		t.Fatalf("no refusal in words:\n%s", text)
	}
	if got := fd.sent(); len(got) != 0 {
		t.Fatalf("calls %q", got)
	}
}

// The author cannot confirm her own decision: the dialog says so and
// nothing is sent.
func TestConfirmOfHerOwnDecisionIsRefused(t *testing.T) {
	fd := newFakeDeciding()
	c := decideConsole(t, fd, awaiting("itm_1", "ana")) // the fake workflow's reviewer is ana
	typeText(c, "a")
	if text := dialogTexts(c); !strings.Contains(text, "You decided item itm_1 yourself") {
		t.Fatalf("no refusal in words:\n%s", text)
	}
	ctrlEnter(c)
	pressKey(c, fyne.KeyReturn)
	if got := fd.Calls(); len(got) != 0 {
		t.Fatalf("calls %q", got)
	}
}

// Returning a decision needs a comment; with one, it is sent; a confirms.
func TestConfirmReturnNeedsAComment(t *testing.T) {
	fd := newFakeDeciding()
	c := decideConsole(t, fd, awaiting("itm_1", "ben"))
	typeText(c, "A")
	text := dialogTexts(c)
	for _, want := range []string{"rejected by ben · awaiting a second reviewer", "Document forged (DOC_FORGED)", "the hologram is printed"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the dialog does not show %q:\n%s", want, text)
		}
	}
	ctrlEnter(c)
	if text := dialogTexts(c); !strings.Contains(text, "Returning a decision needs a comment") {
		t.Fatalf("no refusal in words:\n%s", text)
	}
	if got := fd.sent(); len(got) != 0 {
		t.Fatalf("calls %q", got)
	}
	typeText(c, "the hologram is genuine")
	ctrlEnter(c)
	if got := fd.sent(); len(got) != 1 || got[0] != `confirm itm_1 false "the hologram is genuine"` {
		t.Fatalf("calls %q", got)
	}
	if !strings.HasPrefix(c.strip.pages.Text, "itm_1.jpg: return queued") {
		t.Fatalf("strip %q", c.strip.pages.Text)
	}

	fd2 := newFakeDeciding()
	fd2.res = DecideResult{Sent: DecideDone, Decision: &policy.Decision{Outcome: policy.OutcomeReject, By: "ben",
		State: policy.DecisionFinal, Confirmation: &policy.Confirmation{By: "ana", Agree: true}}}
	c = decideConsole(t, fd2, awaiting("itm_1", "ben"))
	typeText(c, "a")
	ctrlEnter(c)
	if got := fd2.sent(); len(got) != 1 || got[0] != `confirm itm_1 true ""` {
		t.Fatalf("calls %q", got)
	}
	if want := "itm_1.jpg: rejected by ben, confirmed by ana · b goes back to it"; c.strip.pages.Text != want {
		t.Fatalf("strip %q, want %q", c.strip.pages.Text, want)
	}
}

// The selection moving under an open dialog never decides for another
// item: the dialog says which item is on screen now, and sends nothing.
func TestDecideNeverForAnotherItemThanOnScreen(t *testing.T) {
	fd := newFakeDeciding()
	c := decideConsole(t, fd, decidable(scoredItem("itm_a", 85, policy.RecommendReject)), decidable(scoredItem("itm_b", 85, policy.RecommendReject)))
	typeText(c, "j")
	press(c, fyne.KeyTab, 0)
	typeText(c, "forged")
	c.apply(func() { c.panel.show("itm_b") }) // a reload, an advance: the panel moves on
	c.Settle()
	ctrlEnter(c)
	if got := fd.sent(); len(got) != 0 {
		t.Fatalf("decided while another item is on screen: %q", got)
	}
	if text := dialogTexts(c); !strings.Contains(text, "now shows itm_b, not itm_a: nothing was sent") {
		t.Fatalf("no words:\n%s", text)
	}

	// The same for a confirmation.
	fd = newFakeDeciding()
	c = decideConsole(t, fd, awaiting("itm_a", "ben"), awaiting("itm_b", "ben"))
	typeText(c, "a")
	c.apply(func() { c.panel.show("itm_b") })
	c.Settle()
	ctrlEnter(c)
	if got := fd.sent(); len(got) != 0 {
		t.Fatalf("confirmed while another item is on screen: %q", got)
	}
}

// A window without Deciding says, where she looks, that the service
// takes no decisions.
func TestDecideWithoutDecidingSaysTheServiceTakesNone(t *testing.T) {
	c := decideConsole(t, nil, decidable(scoredItem("itm_1", 85, policy.RecommendReject)))
	for _, k := range []string{"c", "j", "e", "a", "A"} {
		c.apply(func() { c.strip.say("") })
		typeText(c, k)
		if c.win.Canvas().Overlays().Top() != nil {
			t.Fatalf("%s opened a dialog", k)
		}
		if !strings.Contains(c.strip.pages.Text, "does not take decisions") {
			t.Fatalf("%s: strip %q", k, c.strip.pages.Text)
		}
	}
}

// Each decision key is a line of the sheet, drawn from windowKeys.
func TestDecideKeysAreOnTheSheet(t *testing.T) {
	c := decideConsole(t, newFakeDeciding(), decidable(scoredItem("itm_1", 85, policy.RecommendReject)))
	typeText(c, "?")
	text := dialogTexts(c)
	for _, k := range windowKeys {
		if len(k.runes) == 0 {
			continue
		}
		if k.what == "" || !strings.Contains(text, k.keys+"\n"+k.what) {
			t.Fatalf("the letter key %q has no line on the sheet:\n%s", k.keys, text)
		}
	}
	for _, want := range []string{"clear the item", "reject the item", "escalate the item", "confirm the decision", "Shift+A"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the sheet does not say %q", want)
		}
	}
}

// TestDecideShot writes pictures of the decision and the confirmation
// dialogs (REVIEWER_SHOT_DIR=folder), to look at.
func TestDecideShot(t *testing.T) {
	dir := os.Getenv("REVIEWER_SHOT_DIR")
	if dir == "" {
		t.Skip("REVIEWER_SHOT_DIR=folder writes the pictures")
	}
	c := decideConsole(t, newFakeDeciding(), decidable(scoredItem("itm_1", 85, policy.RecommendReject)))
	typeText(c, "j")
	typeText(c, "forg")
	press(c, fyne.KeyTab, 0)
	typeText(c, "The hologram is printed on, not embossed.")
	save(t, filepath.Join(dir, "decide.png"), c.win.Canvas().Capture())
	pressKey(c, fyne.KeyEscape)

	c = decideConsole(t, newFakeDeciding(), awaiting("itm_1", "ben"))
	typeText(c, "A")
	ctrlEnter(c) // a return without a comment: refused in words
	save(t, filepath.Join(dir, "confirm.png"), c.win.Canvas().Capture())
}

// The panel says the item's decision and the keys that act on it.
func TestDecidePanelSaysTheDecisionAndItsKeys(t *testing.T) {
	final := awaiting("itm_f", "ana")
	final.Team.Decisions[0].Outcome, final.Team.Decisions[0].State = policy.OutcomeClear, policy.DecisionFinal
	final.Team.Decisions[0].Confirmation = &policy.Confirmation{By: "ben", Agree: true}
	for _, k := range []struct {
		v    review.ItemView
		want string
	}{
		{decidable(scoredItem("itm_n", 71, policy.RecommendReview)), "No decision yet: c clears, j rejects, e escalates."},
		{decidable(errorItem("itm_e", "DECODE_FAILED")), "No decision yet: j rejects, e escalates (not checked, so it cannot be cleared)."},
		{awaiting("itm_b", "ben"), "Decision: rejected by ben · awaiting a second reviewer · a confirms it, Shift+A returns it."},
		{awaiting("itm_a", "ana"), "Decision: rejected by ana · awaiting a second reviewer."},
		{final, "Decision: cleared by ana, confirmed by ben."},
	} {
		c := decideConsole(t, newFakeDeciding(), k.v)
		if !strings.Contains(c.panel.decision.Text, k.want) {
			t.Fatalf("%s: the panel says %q, want %q", k.v.ID, c.panel.decision.Text, k.want)
		}
		c = decideConsole(t, nil, k.v)
		if strings.Contains(c.panel.decision.Text, "ecision") {
			t.Fatalf("%s: a window without decisions says %q", k.v.ID, c.panel.decision.Text)
		}
	}
}

// What became of a decision is said in words, and the service's own words
// for a refusal are shown escaped (text from outside).
func TestDecideResultWords(t *testing.T) {
	awaitingClear := &policy.Decision{Outcome: policy.OutcomeClear, By: "ana", State: policy.DecisionAwaiting}
	for _, k := range []struct {
		res  DecideResult
		want string
	}{
		{DecideResult{Sent: DecideQueued}, "reject queued: goes out when the service answers"},
		{DecideResult{Sent: DecideUnknown}, "reject: outcome unknown, checked later with the same key"},
		{DecideResult{Sent: DecideDone, Decision: awaitingClear}, "cleared by ana · awaiting a second reviewer"},
		{DecideResult{Sent: DecideRefused, Refusal: "already decided by \u202eneb"}, `reject refused by the service: already decided by \u202eneb`},
	} {
		if got := decideResultWords(policy.OutcomeReject, k.res, nil); got != k.want {
			t.Fatalf("%s: %q, want %q", k.res.Sent, got, k.want)
		}
	}
}

// On the real workflow (a real cache, the reference service at 1.2 on
// loopback), a decision taken from the keyboard is one decision at the
// service, by her, and the strip says it as the service answered.
func TestDecideFromTheKeyboardOnTheRealWorkflow(t *testing.T) {
	srv, ana, _ := anaAndBen(t, screenapi.Options{APIVersion: screenapi.Version12})
	id, ok := srv.Find(func(it policy.RawItem) bool {
		return it.Status == "scored" && it.Recommendation != nil && *it.Recommendation == string(policy.RecommendReview)
	})
	if !ok {
		t.Fatal("the seed has no scored item recommended for review")
	}
	raw, _ := srv.Item(id)
	c := realConsole(t, ana)
	c.apply(func() { c.openItem(id, raw.BatchID) })
	c.Settle()
	if c.panel.itemID != id || !c.panel.ready() {
		t.Fatalf("the panel shows %q, not %s", c.panel.itemID, id)
	}
	typeText(c, "c")
	if c.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("c opened nothing; the strip says %q", c.strip.pages.Text)
	}
	press(c, fyne.KeyTab, 0)
	typeText(c, "the document is genuine")
	ctrlEnter(c)
	c.Settle()
	got := srv.Decisions(id)
	if len(got) != 1 || got[0].Outcome != "clear" || got[0].By != "ana" || got[0].State != "final" {
		t.Fatalf("the service holds %+v", got)
	}
	if !strings.Contains(c.strip.pages.Text, "cleared by ana") {
		t.Fatalf("the strip says %q", c.strip.pages.Text)
	}
}

// rejectCode is a reason the service gives for a reject.
func rejectCode(t *testing.T, svc *review.Service) string {
	t.Helper()
	list, _, err := svc.Decisions.ReasonCodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.Allows(policy.OutcomeReject) {
			return r.Code
		}
	}
	t.Fatal("the service gives no reason for a reject")
	return ""
}

// scoredFor finds a scored item the pre-screen recommended rec.
func scoredFor(t *testing.T, srv *screenapi.Server, rec policy.Recommendation) (id, batchID string) {
	t.Helper()
	id, ok := srv.Find(func(it policy.RawItem) bool {
		return it.Status == "scored" && it.Recommendation != nil && *it.Recommendation == string(rec)
	})
	if !ok {
		t.Fatalf("the seed has no scored item recommended %s", rec)
	}
	raw, _ := srv.Item(id)
	return id, raw.BatchID
}

// A decision and where it stands are said in the row (the Action column,
// whole, at 1280×800 with the panel open) and in the panel; a second
// reviewer returns it from the keyboard, and its author reads why.
func TestTheRowAndThePanelSayTheDecisionAndItsState(t *testing.T) {
	srv, ana, ben := anaAndBen(t, screenapi.Options{APIVersion: screenapi.Version12})
	ctx := context.Background()
	id, batchID := scoredFor(t, srv, policy.RecommendReview)
	if res, err := ana.Decisions.Decide(ctx, id, policy.OutcomeReject, rejectCode(t, ana), "the <b>MRZ</b> differs"); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ana's reject: %+v, %v", res.Action, err)
	}
	if _, err := ben.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c := realConsole(t, ben)
	c.apply(func() { c.openItem(id, batchID) })
	c.Settle()
	if c.panel.itemID != id || !c.panel.ready() {
		t.Fatalf("the panel shows %q, not %s", c.panel.itemID, id)
	}
	var cell string
	var width, need float32
	c.apply(func() {
		for _, r := range c.items.rows {
			if r.ID == id {
				cell, _ = actionCell(r)
			}
		}
		for _, col := range c.items.cols {
			if col.title == "Action" {
				width = col.width
			}
		}
		need = c.items.measure(cell)
	})
	if cell != "to confirm" {
		t.Fatalf("the row's Action cell says %q", cell)
	}
	var hint string
	c.apply(func() {
		for _, r := range c.items.rows {
			if r.ID == id {
				hint = rowDecisionHint(r.Item)
			}
		}
	})
	if hint != "reject by ana · awaiting a second reviewer" {
		t.Fatalf("the row's tooltip says %q", hint)
	}
	if width < need {
		t.Fatalf("at 1280×800 with the panel open the Action column is %v wide, its words %v (columns %v)", width, need, c.items.cols)
	}
	if got := c.panel.decision.Text; !strings.Contains(got, "Decision: rejected by ana · awaiting a second reviewer · a confirms it, Shift+A returns it.") {
		t.Fatalf("the panel says %q", got)
	}

	typeText(c, "A")
	if text := dialogTexts(c); !strings.Contains(text, "the <b>MRZ</b> differs") {
		t.Fatalf("the return dialog does not show ana's comment:\n%s", text)
	}
	typeText(c, "the MRZ is fine")
	ctrlEnter(c)
	c.Settle()
	got := srv.Decisions(id)
	if len(got) != 1 || got[0].State != "returned" || got[0].ConfirmedBy != "ben" {
		t.Fatalf("the service holds %+v; the strip says %q", got, c.strip.pages.Text)
	}

	c.Settle()
	c.Close() // ben leaves: his console lets go of the item it held while he returned it
	c.Settle()
	if _, err := ben.Team.Release(ctx, id); err != nil && srv.ClaimOf(id) != "" {
		t.Fatal(err)
	}
	if _, err := ana.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ac := realConsole(t, ana)
	ac.apply(func() { ac.openItem(id, batchID) })
	ac.Settle()
	if got := ac.panel.decision.Text; !strings.Contains(got, "Decision: rejected by ana · returned by ben: the MRZ is fine.") {
		t.Fatalf("the author's panel says %q", got)
	}
	ac.apply(func() {
		for _, r := range ac.items.rows {
			if r.ID == id {
				cell, _ = actionCell(r)
			}
		}
	})
	if cell != "returned" {
		t.Fatalf("the author's row says %q", cell)
	}
}

// Ctrl+Shift+A lists the items whose decision awaits her confirmation:
// another reviewer's reject, never her own that awaits someone else.
func TestTheViewAwaitingMyConfirmationListsOthersDecisionsOnly(t *testing.T) {
	srv, ana, ben := anaAndBen(t, screenapi.Options{APIVersion: screenapi.Version12})
	ctx := context.Background()
	var ids []string
	srv.Find(func(it policy.RawItem) bool {
		if it.Status == "scored" && it.Recommendation != nil && *it.Recommendation == string(policy.RecommendReview) {
			ids = append(ids, it.ID)
		}
		return len(ids) == 2
	})
	if len(ids) < 2 {
		t.Fatalf("the seed has %d scored items recommended for review", len(ids))
	}
	anas, bens := ids[0], ids[1]
	for _, d := range []struct {
		svc *review.Service
		id  string
	}{{ana, anas}, {ben, bens}} {
		if res, err := d.svc.Decisions.Decide(ctx, d.id, policy.OutcomeReject, rejectCode(t, d.svc), "forged"); err != nil || res.Action.State != policy.ActionDone {
			t.Fatalf("reject of %s: %+v, %v", d.id, res.Action, err)
		}
	}
	if _, err := ben.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c := realConsole(t, ben)
	pressShortcut(c, ctrlShift(fyne.KeyA))
	c.Settle()
	var rows []string
	c.apply(func() {
		for _, r := range c.items.rows {
			rows = append(rows, r.ID)
		}
	})
	if len(rows) != 1 || rows[0] != anas {
		t.Fatalf("the view lists %q, want only ana's %s (not ben's own %s)", rows, anas, bens)
	}
	if h := c.items.heading.Text; !strings.Contains(h, "view: "+awaitingName) {
		t.Fatalf("the heading says %q", h)
	}
}

// After a sync brings a decision that awaits her confirmation, a
// notification says so (and names the view's key).
func TestANotificationSaysWhatAwaitsHerConfirmation(t *testing.T) {
	srv, ana, ben := anaAndBen(t, screenapi.Options{APIVersion: screenapi.Version12})
	ctx := context.Background()
	sent := make(chan string, 8)
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(ben), Options{Prefs: a.Preferences(), Notify: func(n *fyne.Notification) { sent <- n.Content }})
	t.Cleanup(func() { c.Close(); c.Settle() })
	c.apply(c.reload)
	c.apply(c.onSync) // what he had: no news
	c.Settle()
	id, _ := scoredFor(t, srv, policy.RecommendReview)
	if res, err := ana.Decisions.Decide(ctx, id, policy.OutcomeReject, rejectCode(t, ana), "forged"); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ana's reject: %+v, %v", res.Action, err)
	}
	c.apply(c.onSync)
	c.Settle()
	raw, _ := srv.Item(id)
	want := "ana's reject of " + raw.FileName
	for {
		select {
		case got := <-sent:
			t.Logf("sent %q", got)
			if strings.Contains(got, want) && strings.Contains(got, "awaits your confirmation: Ctrl+Shift+A lists them") {
				return
			}
		default:
			t.Fatalf("no notification says %q awaits his confirmation; news %q", want, c.strip.news.Text)
		}
	}
}

// Across all batches at 1280×800 with the panel open the Action column
// goes; the decision's word moves into the Status cell, first.
func TestTheAwaitingViewSaysTheDecisionInTheStatusCellWhenTheActionColumnWent(t *testing.T) {
	srv, ana, ben := anaAndBen(t, screenapi.Options{APIVersion: screenapi.Version12})
	ctx := context.Background()
	id, _ := scoredFor(t, srv, policy.RecommendReview)
	if res, err := ana.Decisions.Decide(ctx, id, policy.OutcomeReject, rejectCode(t, ana), "forged"); err != nil || res.Action.State != policy.ActionDone {
		t.Fatalf("ana's reject: %+v, %v", res.Action, err)
	}
	if _, err := ben.Sync.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c := realConsole(t, ben)
	pressShortcut(c, ctrlShift(fyne.KeyA))
	c.Settle()
	var cells []string
	c.apply(func() {
		host := "Status"
		if c.items.hasColumn("Action") { // the row says it there
			host = "Action"
		}
		for _, col := range c.items.cols {
			if col.title == host && len(c.items.rows) > 0 {
				text, _ := col.text(c.items.rows[0])
				cells = append(cells, text)
			}
		}
	})
	if len(cells) != 1 || !strings.HasPrefix(cells[0], "to confirm") {
		t.Fatalf("the Status cell says %q", cells)
	}
}
