package ui

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Decisions (contract 1.2): the reviewer's verdict on the item on screen.
// c clears, j rejects, e escalates: a dialog that names the item, the
// customer and the file, with a reason picker and a comment, all from the
// keyboard (Tab between them, ↑/↓ in the picker, Enter outside the
// comment or Ctrl+Enter decides, Esc leaves). a confirms and Shift+A
// returns a decision that awaits a second reviewer. policy says what may
// be decided (CanDecide, CheckReason, CanConfirm), in the dialog, before
// anything is sent; the workflow (Workflow.Decide) stores the decision
// with its key and sends it. A decision is taken on the item whose
// document is on screen: if the panel moved while the dialog was open,
// nothing is sent.

// Deciding is what the decision dialogs need of the workflow
// (review.Decisions): the service's reason codes, a decision and a
// second reviewer's answer on an item.
type Deciding interface {
	ReasonCodes(ctx context.Context) ([]policy.ReasonCode, error)
	Decide(ctx context.Context, itemID string, o policy.Outcome, reason, comment string) (DecideResult, error)
	Confirm(ctx context.Context, itemID string, agree bool, comment string) (DecideResult, error)
}

// DecideSent is what became of a decision or a confirmation she asked for.
type DecideSent string

const (
	// DecideQueued: stored with its key; it goes out when the service
	// answers.
	DecideQueued DecideSent = "queued"
	// DecideDone: the service recorded it.
	DecideDone DecideSent = "done"
	// DecideUnknown: sent, and no answer came; checked later with the
	// same key.
	DecideUnknown DecideSent = "unknown"
	// DecideRefused: the service said no (Refusal says why).
	DecideRefused DecideSent = "refused"
)

// DecideResult is what the window says of a decision or a confirmation
// once the workflow has it.
type DecideResult struct {
	Sent DecideSent
	// Refusal is the service's words when it refused (text from outside).
	Refusal string
	// Decision is the item's current decision as the service answered
	// (Sent is done); nil otherwise.
	Decision *policy.Decision
}

// noDecisions is the strip's line when the window has no Deciding.
const noDecisions = "This service does not take decisions: nothing was decided."

// decidedWord is an outcome as something done ("rejected").
func decidedWord(o policy.Outcome) string {
	switch o {
	case policy.OutcomeClear:
		return "cleared"
	case policy.OutcomeReject:
		return "rejected"
	case policy.OutcomeEscalate:
		return "escalated"
	}
	return shown(string(o))
}

// outcomeVerb names the outcome as a button does ("Reject").
func outcomeVerb(o policy.Outcome) string {
	s := string(o)
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// decisionLine says a decision and where it stands, in words: "rejected
// by ben · awaiting a second reviewer", "cleared by ana, confirmed by ben".
func decisionLine(d policy.Decision) string {
	line := decidedWord(d.Outcome) + " by " + shown(d.By)
	conf := d.Confirmation
	switch d.State {
	case policy.DecisionAwaiting:
		return line + " · awaiting a second reviewer"
	case policy.DecisionFinal:
		if conf != nil && conf.Agree {
			return line + ", confirmed by " + shown(conf.By)
		}
		return line
	case policy.DecisionReturned:
		by := "a second reviewer"
		why := "needs a new decision"
		if conf != nil {
			by = shown(conf.By)
			if strings.TrimSpace(conf.Comment) != "" {
				why = shownLong(conf.Comment)
			}
		}
		return line + " · returned by " + by + ": " + why
	case policy.DecisionSuperseded:
		return line + " · superseded"
	}
	return line + " · " + shown(string(d.State))
}

// rowDecision is the row's word on its current decision, short enough
// for the Action column at 1280×800 with the panel open: "to confirm" (a
// decision another reviewer took awaits her), "awaiting" (hers awaits a
// second reviewer), "returned", or the outcome done ("rejected"); its
// tooltip says it whole (rowDecisionHint). "" when none.
func rowDecision(it policy.Item, me string) (string, widget.Importance) {
	d := it.CurrentDecision()
	switch {
	case d == nil:
		return "", widget.MediumImportance
	case d.State == policy.DecisionAwaiting && d.By != me:
		return "to confirm", widget.WarningImportance
	case d.State == policy.DecisionAwaiting:
		return "awaiting", widget.MediumImportance
	case d.State == policy.DecisionReturned:
		return "returned", widget.WarningImportance
	}
	return decidedWord(d.Outcome), widget.MediumImportance
}

// rowDecisionHint is the row's decision whole, as its tooltip: "reject ·
// awaiting a second reviewer", "cleared by ana, confirmed by ben",
// "reject returned by ben"; "" when none.
func rowDecisionHint(it policy.Item) string {
	d := it.CurrentDecision()
	switch {
	case d == nil:
		return ""
	case d.State == policy.DecisionAwaiting:
		return shown(string(d.Outcome)) + " by " + shown(d.By) + " · awaiting a second reviewer"
	case d.State == policy.DecisionReturned && d.Confirmation != nil:
		return shown(string(d.Outcome)) + " by " + shown(d.By) + " · returned by " + shown(d.Confirmation.By)
	}
	return decisionLine(*d)
}

// decideResultWords says what became of a decision: "reject queued: goes
// out when the service answers", "rejected by ana · awaiting a second
// reviewer".
func decideResultWords(o policy.Outcome, res DecideResult, err error) string {
	what := string(o)
	if err != nil {
		return what + " not queued: " + sentence(err)
	}
	return sentWords(what, res)
}

// confirmResultWords says what became of a confirmation or a return.
func confirmResultWords(agree bool, res DecideResult, err error) string {
	what := "confirmation"
	if !agree {
		what = "return"
	}
	if err != nil {
		return what + " not queued: " + sentence(err)
	}
	return sentWords(what, res)
}

// sentWords says what became of a request to the service for a decision
// or a confirmation; once done, the decision as the service now has it.
func sentWords(what string, res DecideResult) string {
	switch res.Sent {
	case DecideQueued:
		return what + " queued: goes out when the service answers"
	case DecideUnknown:
		return what + ": outcome unknown, checked later with the same key"
	case DecideRefused:
		why := ""
		if res.Refusal != "" {
			why = ": " + shownLong(res.Refusal)
		}
		return what + " refused by the service" + why
	case DecideDone:
		if res.Decision != nil {
			return decisionLine(*res.Decision)
		}
		return what + " done"
	}
	return what + " " + shown(string(res.Sent))
}

// decisionNote is the panel's line on the item's decision: where it
// stands and the keys that act on it; "" when the window takes no
// decisions or the service sends none.
func (c *Console) decisionNote(sit policy.Situation) string {
	it := sit.Item
	if c.wf.Decide == nil || !it.Team.DecisionsOffered {
		return ""
	}
	d := c.panel.fullDecision(it)
	switch {
	case d == nil && policy.CanDecide(sit, policy.OutcomeEscalate) == nil:
		if policy.CanDecide(sit, policy.OutcomeClear) != nil {
			return "No decision yet: j rejects, e escalates (not checked, so it cannot be cleared)."
		}
		return "No decision yet: c clears, j rejects, e escalates."
	case d == nil:
		return ""
	case d.State == policy.DecisionAwaiting && d.By != c.wf.Team.Reviewer():
		return "Decision: " + decisionLine(*d) + " · a confirms it, Shift+A returns it."
	}
	return "Decision: " + decisionLine(*d) + "."
}

// onScreenOther says, when the item on screen (the panel and its
// document) is no longer id, that nothing is sent for id; "" while it is.
func (c *Console) onScreenOther(id string) string {
	p := c.panel
	if p.itemID == id && p.ready() && p.preview.itemID == id {
		return ""
	}
	other := "no item"
	if p.itemID != "" {
		other = shown(p.itemID)
	}
	return fmt.Sprintf("The window now shows %s, not %s: nothing was sent. Close this and decide on the item on screen.", other, shown(id))
}

// decideTarget is the item a dialog decides on, as the panel showed it
// when the dialog opened.
type decideTarget struct {
	id, batchID, file, customer string
	item                        policy.Item
}

func (c *Console) target() decideTarget {
	d := c.panel.detail
	it := d.Item
	if full := c.panel.fullDecision(it); full != nil {
		it.Team.Decisions = append(it.Team.Decisions[:len(it.Team.Decisions)-1:len(it.Team.Decisions)-1], *full)
	}
	return decideTarget{id: d.ID, batchID: d.BatchID, file: d.FileName, customer: d.CustomerRef, item: it}
}

// fullDecision is the item's current decision as the panel's detail
// holds it, with its comment, time and confirmation (the listing's row
// carries only its outcome, reason, state and names); nil when none.
func (p *itemPanel) fullDecision(it policy.Item) *policy.Decision {
	d := it.CurrentDecision()
	if d == nil {
		return nil
	}
	if ds := p.detail.Decisions; p.detail.ID == it.ID && len(ds) > 0 && ds[len(ds)-1].ID == d.ID {
		full := ds[len(ds)-1]
		return &full
	}
	return d
}

// names is the dialog's first line: the item, the customer, the file.
func (t decideTarget) names() string {
	return fmt.Sprintf("Item %s · customer %s · file %s", shown(t.id), shown(t.customer), shown(t.file))
}

// title is a dialog's title for the target ("Reject passport.jpg").
func (t decideTarget) title(verb string) string { return verb + " " + shown(t.file) }

// canAsk reports whether a decision key may open its dialog now: a
// workflow that takes decisions, an item on screen and loaded, no dialog
// open and no action of this window in flight on it.
func (c *Console) canAsk() bool {
	if c.win.Canvas().Overlays().Top() != nil {
		return false
	}
	if c.wf.Decide == nil {
		c.strip.say(noDecisions)
		return false
	}
	p := c.panel
	return p.ready() && c.flight(p.itemID) == nil
}

// refusal shows a refusal of policy's on the item, in a dialog that names
// it: nothing was sent.
func (c *Console) refusal(t decideTarget, title string, err error) {
	f := newDialogForm(c.win, c)
	f.focusFirst(f.defaultButton("OK (Enter)", f.hide))
	why := wrapped(sentence(err) + " Nothing was sent.")
	why.Importance = widget.DangerImportance
	f.show(t.title(title), container.NewVBox(wrapped(t.names()), why), []fyne.CanvasObject{f.def}, 520)
}

// onDecide opens the decision dialog for outcome o on the item on screen
// (c, j, e), once the service's reason codes are read.
func (c *Console) onDecide(o policy.Outcome) {
	if !c.canAsk() {
		return
	}
	p := c.panel
	t := c.target()
	if err := policy.CanDecide(p.situation(), o); err != nil {
		c.refusal(t, outcomeVerb(o), err)
		return
	}
	if p.team.refuseHeld("deciding") { // claims.go
		return
	}
	p.team.working(t.id) // claims.go: a decision is work on the item
	dg := c.wf.Decide
	c.background(func(ctx context.Context) func() {
		list, err := dg.ReasonCodes(ctx)
		return func() {
			switch {
			case err != nil:
				c.showError("The reason codes could not be read", err)
			case c.onScreenOther(t.id) != "":
				c.strip.say(c.onScreenOther(t.id))
			case c.win.Canvas().Overlays().Top() == nil:
				newDecideDialog(c, t, o, list)
			}
		}
	})
}

// decideDialog is the dialog of one decision on one item.
type decideDialog struct {
	c       *Console
	form    *dialogForm
	t       decideTarget
	outcome policy.Outcome
	all     []policy.ReasonCode // the service's list, as read
	reasons []policy.ReasonCode // those that go with the outcome
	matches []int               // the reasons the picker's text matches
	pick    int                 // index in matches; -1: none

	picker  *pickerEntry
	list    *fyne.Container
	comment *formEntry
	count   *textLabel
	why     *textLabel
	decide  *formButton
}

func newDecideDialog(c *Console, t decideTarget, o policy.Outcome, list []policy.ReasonCode) *decideDialog {
	f := newDialogForm(c.win, c)
	d := &decideDialog{c: c, form: f, t: t, outcome: o, all: list, pick: -1,
		list: container.NewVBox(), count: newLabel(""), why: wrapped("")}
	d.why.Hide()
	for _, r := range list {
		if r.Allows(o) {
			d.reasons = append(d.reasons, r)
		}
	}
	d.picker = newPickerEntry(f, d.move)
	d.picker.SetPlaceHolder("type to find a reason; ↑ / ↓ choose")
	d.picker.OnChanged = func(string) { d.filter() }
	d.comment = f.multiLine(3)
	d.comment.OnChanged = func(string) { d.counted() }
	d.why.Importance = widget.DangerImportance
	d.decide = f.defaultButton(outcomeVerb(o)+" (Ctrl+Enter)", d.onDecide)
	d.filter()
	d.counted()

	need := "optional"
	if o != policy.OutcomeClear {
		need = "required: say why"
	}
	form := widget.NewForm(widget.NewFormItem("Reason", container.NewVBox(d.picker, d.list)),
		widget.NewFormItem("Comment", d.comment))
	form.Items[0].HintText = "the service's reasons for " + string(o) + ": type part of one, ↑ / ↓ choose, Enter decides"
	form.Items[1].HintText = need + " · " + multiLineHint
	head := wrapped(t.names())
	head.TextStyle.Bold = true
	body := container.NewVBox(head, wrapped(verdictLine(t.item)))
	if policy.NeedsFourEyes(o, t.item.Recommendation) {
		body.Add(wrapped("A second reviewer must confirm this " + string(o) + " before it is final."))
	}
	body.Add(form)
	body.Add(d.count)
	body.Add(d.why)
	f.show(t.title(outcomeVerb(o)), body, []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), d.decide}, 560)
	return d
}

// verdictLine is the item's state as the panel's headline says it.
func verdictLine(it policy.Item) string {
	text, _ := verdictText(it)
	return text
}

// filter keeps the reasons whose code or label holds the picker's text,
// and picks the first of them.
func (d *decideDialog) filter() {
	q := strings.ToLower(strings.TrimSpace(d.picker.Text))
	d.matches = d.matches[:0]
	for i, r := range d.reasons {
		if q == "" || strings.Contains(strings.ToLower(r.Code), q) || strings.Contains(strings.ToLower(r.Label), q) {
			d.matches = append(d.matches, i)
		}
	}
	d.pick = -1
	if len(d.matches) > 0 {
		d.pick = 0
	}
	d.drawList()
}

// move moves the pick up (-1) or down (+1) among the matches.
func (d *decideDialog) move(delta int) {
	if len(d.matches) == 0 {
		return
	}
	d.pick = min(max(d.pick+delta, 0), len(d.matches)-1)
	d.drawList()
}

func (d *decideDialog) drawList() {
	d.list.RemoveAll()
	if len(d.reasons) == 0 {
		d.list.Add(wrapped("The service's list gives no reason for " + string(d.outcome) + ": sync to read it again."))
	} else if len(d.matches) == 0 {
		d.list.Add(wrapped("No reason matches: erase some of the text."))
	}
	for i, m := range d.matches {
		r := d.reasons[m]
		l := newLabel("   " + shown(r.Label) + " (" + shown(r.Code) + ")")
		if i == d.pick {
			l.SetText("▸ " + shown(r.Label) + " (" + shown(r.Code) + ")")
			l.TextStyle.Bold = true
			l.Importance = widget.HighImportance
		}
		d.list.Add(l)
	}
	d.list.Refresh()
	if d.form.dlg != nil {
		d.form.resize(560)
	}
}

// picked is the code of the reason picked, or "".
func (d *decideDialog) picked() string {
	if d.pick < 0 || d.pick >= len(d.matches) {
		return ""
	}
	return d.reasons[d.matches[d.pick]].Code
}

// counted says the comment's length against the contract's limit.
func (d *decideDialog) counted() {
	n := utf8.RuneCountInString(strings.TrimSpace(d.comment.Text))
	d.count.SetText(fmt.Sprintf("%d of %d characters", n, policy.MaxDecisionCommentRunes))
	if n > policy.MaxDecisionCommentRunes {
		d.count.Importance = widget.DangerImportance
	} else {
		d.count.Importance = widget.MediumImportance
	}
	d.count.Refresh()
}

func (d *decideDialog) refuse(words string) {
	d.why.SetText(words)
	d.why.Show()
	d.form.resize(560)
}

// onDecide checks the decision again, as the workflow will, and sends it:
// on the item on screen only, and only what policy allows.
func (d *decideDialog) onDecide() {
	c := d.c
	if moved := c.onScreenOther(d.t.id); moved != "" {
		d.refuse(moved)
		return
	}
	if err := policy.CanDecide(c.panel.situation(), d.outcome); err != nil {
		d.refuse(sentence(err) + " Nothing was sent.")
		return
	}
	code := d.picked()
	if code == "" {
		d.refuse("Pick a reason: type part of one, or ↑ / ↓.")
		return
	}
	comment, err := policy.CheckReason(d.all, d.outcome, code, d.comment.Text)
	if err != nil {
		d.refuse(sentence(err) + " Nothing was sent.")
		return
	}
	d.form.hide()
	o, dg := d.outcome, c.wf.Decide
	c.sendDecision(d.t, "Deciding to "+string(o), func(ctx context.Context) (DecideResult, error) {
		return dg.Decide(ctx, d.t.id, o, code, comment)
	}, func(res DecideResult, err error) string { return decideResultWords(o, res, err) })
}

// sendDecision runs a decision or a confirmation in the background: the
// item is busy until it is in (one request at a time), the panel shows
// the wait, and the result is said in the strip with b back to the item.
func (c *Console) sendDecision(t decideTarget, label string, run func(ctx context.Context) (DecideResult, error), words func(DecideResult, error) string) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.flights[t.id] = &flight{label: label, start: c.opts.Now(), cancel: cancel}
	c.sayActionStart(t.file, label)
	if c.panel.itemID == t.id {
		c.panel.render()
	}
	c.tick()
	c.background(func(context.Context) func() {
		res, err := run(ctx)
		return func() {
			cancel()
			delete(c.flights, t.id)
			c.back = lastActed{id: t.id, batchID: t.batchID} // strip.go: b
			c.strip.say(shown(t.file) + ": " + words(res, err) + " · b goes back to it")
			c.reload()
		}
	})
}

// onConfirm opens the second reviewer's dialog on the decision that
// awaits her (a: confirm, Shift+A: return).
func (c *Console) onConfirm(agree bool) {
	if !c.canAsk() {
		return
	}
	p := c.panel
	t := c.target()
	verb := map[bool]string{true: "Confirm", false: "Return"}[agree]
	// The refusals that no comment can change are said at once: no
	// decision awaiting one, her own decision.
	if _, err := policy.CanConfirm(t.item, c.wf.Team.Reviewer(), true, ""); err != nil {
		c.refusal(t, verb, err)
		return
	}
	if p.team.refuseHeld("confirming") { // claims.go
		return
	}
	p.team.working(t.id)
	dg := c.wf.Decide
	c.background(func(ctx context.Context) func() {
		list, _ := dg.ReasonCodes(ctx) // only for the reason's label
		return func() {
			switch {
			case c.onScreenOther(t.id) != "":
				c.strip.say(c.onScreenOther(t.id))
			case c.win.Canvas().Overlays().Top() == nil:
				newConfirmDialog(c, t, agree, list)
			}
		}
	})
}

// confirmDialog shows a decision that awaits a second reviewer and asks
// her to agree or to return it (with a comment).
type confirmDialog struct {
	c        *Console
	form     *dialogForm
	t        decideTarget
	decision policy.Decision
	comment  *formEntry
	why      *textLabel
	confirm  *formButton
	ret      *formButton
}

func newConfirmDialog(c *Console, t decideTarget, agree bool, list []policy.ReasonCode) *confirmDialog {
	f := newDialogForm(c.win, c)
	cd := &confirmDialog{c: c, form: f, t: t, decision: *t.item.CurrentDecision(), why: wrapped("")}
	cd.why.Hide()
	cd.why.Importance = widget.DangerImportance
	cd.comment = f.multiLine(3)
	if agree {
		cd.ret = f.button("Return", func() { cd.onAnswer(false) })
		cd.confirm = f.defaultButton("Confirm (Ctrl+Enter)", func() { cd.onAnswer(true) })
	} else {
		cd.confirm = f.button("Confirm", func() { cd.onAnswer(true) })
		cd.ret = f.defaultButton("Return (Ctrl+Enter)", func() { cd.onAnswer(false) })
	}
	d := cd.decision
	reason := shown(d.ReasonCode)
	for _, r := range list {
		if r.Code == d.ReasonCode {
			reason = shown(r.Label) + " (" + reason + ")"
		}
	}
	comment := "(none)"
	if strings.TrimSpace(d.Comment) != "" {
		comment = shownLong(d.Comment)
	}
	head := wrapped(t.names())
	head.TextStyle.Bold = true
	what := widget.NewForm(
		widget.NewFormItem("Decision", wrapped(decisionLine(d))),
		widget.NewFormItem("Decided", wrapped(shown(d.By)+", "+d.At.Local().Format("2 Jan 15:04"))),
		widget.NewFormItem("Reason", wrapped(reason)),
		widget.NewFormItem("Their comment", wrapped(comment)),
		widget.NewFormItem("Your comment", cd.comment),
	)
	what.Items[4].HintText = "required to return it: say why · " + multiLineHint
	body := container.NewVBox(head, wrapped(verdictLine(t.item)), what, cd.why)
	title := "Confirm or return the " + string(d.Outcome) + " on " + shown(t.file)
	f.show(title, body, []fyne.CanvasObject{f.cancelButton("Cancel (Esc)"), cd.ret, cd.confirm}, 560)
	return cd
}

func (cd *confirmDialog) refuse(words string) {
	cd.why.SetText(words)
	cd.why.Show()
	cd.form.resize(560)
}

// onAnswer checks the answer as the workflow will, and sends it.
func (cd *confirmDialog) onAnswer(agree bool) {
	c := cd.c
	if moved := c.onScreenOther(cd.t.id); moved != "" {
		cd.refuse(moved)
		return
	}
	comment, err := policy.CanConfirm(c.panel.detail.Item, c.wf.Team.Reviewer(), agree, cd.comment.Text)
	if err != nil {
		cd.refuse(sentence(err) + " Nothing was sent.")
		return
	}
	cur := c.panel.detail.Item.CurrentDecision()
	if cur == nil || cur.ID != cd.decision.ID {
		cd.refuse("The item's decision changed while this was open: nothing was sent. Close this and read it again.")
		return
	}
	cd.form.hide()
	dg := c.wf.Decide
	label := map[bool]string{true: "Confirming the " + string(cd.decision.Outcome), false: "Returning the " + string(cd.decision.Outcome)}[agree]
	c.sendDecision(cd.t, label, func(ctx context.Context) (DecideResult, error) {
		return dg.Confirm(ctx, cd.t.id, agree, comment)
	}, func(res DecideResult, err error) string { return confirmResultWords(agree, res, err) })
}

// pickerEntry is the reason picker's text: typing finds a reason, ↑ and ↓
// choose among those found, Enter decides, Tab moves on.
type pickerEntry struct {
	formEntry
	move func(delta int)
}

func newPickerEntry(f *dialogForm, move func(int)) *pickerEntry {
	e := &pickerEntry{move: move}
	e.form = f
	e.ExtendBaseWidget(e)
	f.field(e)
	return e
}

func (e *pickerEntry) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyUp:
		e.move(-1)
		return
	case fyne.KeyDown:
		e.move(+1)
		return
	}
	e.formEntry.TypedKey(ev)
}

// awaitingName is the view of the items that await her confirmation.
const awaitingName = "Awaiting my confirmation"

// awaitingView is the items whose current decision awaits a second
// reviewer and whose author is not she, oldest first, across all batches
// (Ctrl+Shift+A; the store's partial index holds them).
func awaitingView() (review.View, store.ItemFilter) {
	v := review.View{Name: awaitingName, Filter: review.ViewFilter{AwaitingConfirmation: true, SortBy: "since"}}
	f := store.ItemFilter{SortBy: "since"}
	f.AwaitingConfirmation = true
	return v, f
}

// awaitingNotified is at most how many decisions awaiting her a sync
// reads to say which are new.
const awaitingNotified = 500

// announceAwaiting notifies, after a sync, the decisions that await her
// confirmation and did not at the sync before (the first sync of the
// window only notes them): an item already needing her (a scored item
// recommended review) is no news, yet another reviewer's decision on it
// now waits for her.
func (c *Console) announceAwaiting() {
	if c.wf.Decide == nil {
		return
	}
	_, f := awaitingView()
	f.Limit = awaitingNotified
	lst := c.wf.Listing
	c.background(func(ctx context.Context) func() {
		rows, err := lst.Items(ctx, f)
		if err != nil {
			return nil
		}
		return func() {
			first := c.awaiting == nil
			var fresh []review.ItemView
			now := map[string]string{}
			for _, r := range rows {
				d := r.CurrentDecision()
				if d == nil {
					continue
				}
				now[r.ID] = d.ID
				if c.awaiting[r.ID] != d.ID {
					fresh = append(fresh, r)
				}
			}
			c.awaiting = now
			if !first {
				c.notes.post(awaitingLine(fresh))
			}
		}
	})
}

// awaitingLine says the decisions that now await her confirmation (those
// another reviewer took): "ana's reject of passport.jpg (CUST-1) awaits
// your confirmation: Ctrl+Shift+A lists them"; "" when none.
func awaitingLine(mine []review.ItemView) string {
	const key = ": Ctrl+Shift+A lists them"
	switch len(mine) {
	case 0:
		return ""
	case 1:
		r := mine[0]
		d := r.CurrentDecision()
		return fmt.Sprintf("%s's %s of %s (%s) awaits your confirmation"+key, shown(d.By), shown(string(d.Outcome)), shown(r.FileName), shown(r.CustomerRef))
	}
	return fmt.Sprintf("%d decisions await your confirmation"+key, len(mine))
}
