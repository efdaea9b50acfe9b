package ui

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// itemPanel is the item panel on the right. Everything it shows is drawn
// from the item's state now (render), never appended to: a message about an
// action comes from the action's state in the cache, or from the action in
// flight in this window.
type itemPanel struct {
	c      *Console
	itemID string
	detail review.Detail
	loaded bool
	gen    int
	// listed is the item's row as the table read it (showRow): its words
	// are drawn at once, while its detail is read.
	listed   review.ItemView
	layersOf string // the item and scores the layers' bars show
	// note is a refusal or failure that created no action (a file refused
	// before sending, a cache error), with its details; it belongs to
	// noteItem and is dropped when another item is shown.
	note, noteDetails, noteItem string

	itemWords             // its name and state, at the top (words.go)
	ahead     *wordsAhead // the words of the rows beside it, made ready (words.go)
	layers    *fyne.Container
	team      *teamView // claims.go: claim, notes, Next
	resubmit  *tipButton
	request   *tipButton
	upload    *tipButton
	again     *tipButton // the file a failed replacement kept, uploaded again
	requeue   *tipButton // an action the service turned away for now, queued again (outbox.go)
	cancel    *tipButton
	stop      *tipButton
	why       *textLabel
	decision  *textLabel // the item's decision, above the picture (decide.go)
	message   *textLabel
	details   *textLabel
	detailsAc *widget.Accordion
	attempts  *textLabel
	audit     *textLabel
	preview   *preview          // the item's document (preview.go)
	scroll    *container.Scroll // the item's state, above its history
	actions   *fyne.Container   // the action buttons, pinned under the scroll
	split     *container.Split  // the item's state and actions, above its history
	content   fyne.CanvasObject // split, and the words ahead off the window
}

func newItemPanel(c *Console) *itemPanel {
	p := &itemPanel{c: c, itemWords: newItemWords(),
		layers: container.NewVBox(), why: wrapped(""), message: wrapped(""), details: wrapped(""),
		attempts: wrapped(""), audit: wrapped(""), decision: wrapped(""),
	}
	// Two text styles only, regular and bold: Fyne parses a set of fonts
	// (with the 4 MB emoji font) for every style it draws, and keeps each.
	p.resubmit = newOffTipButton("Re-submit", theme.MediaReplayIcon(), "Re-run the paid analysis on the same file (key: r, then Enter)", p.onResubmit)
	p.resubmit.Importance = widget.HighImportance
	p.request = newOffTipButton("Request file", theme.MailSendIcon(), "Ask the customer for a new file (key: f)", p.onRequestFile)
	p.upload = newOffTipButton("Upload file", theme.UploadIcon(), "Upload the file the customer sent (key: u; or drop a file on the window)", p.onUpload)
	p.again = newOffTipButton("Upload kept file", theme.ViewRefreshIcon(), "Upload again the file that the failed replacement kept: a new paid analysis, no new file needed", p.onUploadAgain)
	p.again.Hide()
	p.requeue = newTipButton("Queue again", theme.ViewRefreshIcon(), "", p.onQueueAgain)
	p.requeue.Hide()
	p.cancel = newTipButton("Cancel queued", theme.CancelIcon(), "Cancel the action that waits in the outbox (key: x)", p.onCancel)
	p.stop = newTipButton("Stop waiting", theme.MediaStopIcon(), "Stop waiting for the answer: the action stays unknown and is checked later with the same key, never sent again blind (key: Esc)", p.onStopWaiting)
	p.cancel.Hide()
	p.stop.Hide()
	p.detailsAc = widget.NewAccordion(widget.NewAccordionItem("Details", p.details))
	p.detailsAc.Hide()
	history := container.NewAppTabs(
		container.NewTabItem("Attempts", container.NewVScroll(p.attempts)),
		container.NewTabItem("Audit", container.NewVScroll(p.audit)),
	)
	p.team = newTeamView(p)
	p.preview = newPreview(c)
	acts1, acts2 := container.NewGridWithColumns(2, p.resubmit, p.request), container.NewGridWithColumns(2, p.upload, p.cancel)
	// Who holds the item (the team's claim line) sits above the picture,
	// where she looks, not under the document below the fold.
	top := container.NewVBox(p.title, p.subtitle, p.verdict, p.triage, p.team.claim, p.decision, p.explain, p.reported, p.nextActor, p.layers, p.preview.content,
		p.why, p.message, p.stop, p.detailsAc, p.team.content, widget.NewSeparator())
	// The panel holds still: its least width is the action buttons', never
	// what an item or its document brings (a caption, a long name), so the
	// divider moves only when she moves it, and the buttons are never cut.
	steady := &steadyWidth{width: func() float32 { return max(acts1.MinSize().Width, acts2.MinSize().Width) }}
	p.scroll = container.NewVScroll(container.New(steady, top))
	// The action buttons are pinned under the item's state, outside its
	// scroll: at 1280x800 they are never cut or scrolled out of view.
	p.actions = container.NewVBox(acts1, acts2, p.again, p.requeue)
	p.split = container.NewVSplit(container.NewBorder(nil, p.actions, nil, nil, p.scroll), history)
	p.split.Offset = 0.68
	p.ahead = newWordsAhead(p)
	p.preview.rested = p.ahead.prepare // the rows beside hers, made ready while she rests (words.go)
	p.content = container.New(aside{}, p.split, p.ahead.box)
	return p // its action buttons start disabled: no item is loaded
}

// showRow shows the item of a row of the table: its words at once, from
// the row, and its detail (actions, history, claim, notes) as it is read.
func (p *itemPanel) showRow(v review.ItemView) {
	p.listed = v
	p.show(v.ID)
}

// show loads an item into the panel ("" clears it).
func (p *itemPanel) show(id string) {
	if id != p.noteItem {
		p.note, p.noteDetails, p.noteItem = "", "", ""
	}
	if id != p.itemID {
		// Until the new item is loaded, nothing of the previous one may
		// be acted on or read as this one's state.
		// Nor may any of its text stay beside the new item's picture:
		// the panel says which item loads, and nothing else, until it
		// has (one item on screen).
		p.itemID = id
		p.loaded = false
		p.ahead.hide() // not drawn in the frame that names the new item
		p.render()
		if p.scroll.Offset.Y != 0 {
			// Another item is read from its top. (At the top already, a
			// scroll to it would only lay the whole panel out once more.)
			p.scroll.ScrollToTop()
		}
	}
	p.itemID = id
	p.preview.show(id)
	p.gen++
	gen := p.gen
	if id == "" {
		p.loaded = false
		p.render()
		return
	}
	// The detail is read once this update is over: Fyne draws the frame
	// of the key that moved here right after the key's update, and what
	// is handed to the UI goroutine runs after that frame, so the read
	// (seven queries) never takes a core from the frame that names the
	// item (docs/performance.md). An item passed with ↓ held is not read.
	p.c.background(func(context.Context) func() {
		return func() {
			if gen == p.gen && id == p.itemID {
				p.read(id, gen)
			}
		}
	})
}

// read reads item id's detail off the UI goroutine and draws it, unless
// she has left the item meanwhile (gen).
func (p *itemPanel) read(id string, gen int) {
	p.c.background(func(ctx context.Context) func() {
		d, err := p.c.wf.Listing.Item(ctx, id)
		return func() {
			if gen != p.gen || id != p.itemID {
				return // she has left the item: its answer is dropped, never drawn
			}
			if err != nil {
				p.loaded = false
				p.listed = review.ItemView{} // its row is not what the cache says now
				p.setNote(id, err)
				p.render()
				return
			}
			p.detail, p.loaded = d, true
			p.team.opened(d) // claims.go: claim on open, release the previous one
			p.render()
			p.preview.changed(d.Item.UpdatedAt) // preview.go: a replacement's new file
		}
	})
}

func (p *itemPanel) refresh() { p.show(p.itemID) }

// setNote keeps a failure that created no action, for item id.
func (p *itemPanel) setNote(id string, err error) {
	p.note, p.noteDetails = explain(err)
	p.noteItem = id
}

func (p *itemPanel) setButtons(resubmit, request, upload bool) {
	busy := p.c.flight(p.itemID) != nil
	for _, b := range []struct {
		btn *tipButton
		on  bool
	}{{p.resubmit, resubmit}, {p.request, request}, {p.upload, upload}, {p.again, upload}} {
		if b.on && !busy {
			b.btn.Enable()
		} else {
			b.btn.Disable()
		}
	}
}

// situation is the item's situation as policy judges it.
func (p *itemPanel) situation() policy.Situation {
	d := p.detail
	sit := policy.Situation{Item: d.Item, OpenAction: d.OpenAction(), Now: p.c.opts.Now()}
	if d.Next.Kind == policy.NextWait {
		sit.RateLimitedUntil = d.Next.Until
	}
	return sit
}

// setOrHide shows a label with text, or hides it when there is none, so
// that empty wrapped labels leave no gaps.
func setOrHide(l *textLabel, text string) { setLookOrHide(l, text, l.Importance) }

// setLookOrHide is setOrHide with the label's colour.
func setLookOrHide(l *textLabel, text string, look widget.Importance) {
	setLook(l, text, look)
	showIf(l, text != "")
}

// reportedText explains a code the service reported beside the console's
// code, only when the console does not know it (or the answer was broken).
func reportedText(it policy.Item) string {
	rc := it.ReportedCode
	if rc == "" {
		return ""
	}
	if it.Status == policy.StatusInvalid {
		return "The service reported " + shown(rc) + " alongside the broken answer."
	}
	if policy.IsItemCode(policy.Code(rc)) || rc == string(it.ErrorCode) {
		return "" // a code the console knows: it is the one shown
	}
	if it.Status == policy.StatusError && it.ErrorCode != "" {
		return "The service reported " + shown(rc) + ", which the console does not know; it is treated as " + string(it.ErrorCode) + "."
	}
	return "The service reported " + shown(rc) + ", which the console does not know."
}

// verdictText is the headline of the item's state, in words (no code).
func verdictText(it policy.Item) (string, widget.Importance) {
	text, imp := statusLook(it)
	switch {
	case it.Checked():
		text = fmt.Sprintf("%s · %s · risk score %d", text, it.Recommendation, *it.RiskScore)
	default: // the code is said under it, with its words (render)
		text += " · not checked"
	}
	return text, imp
}

// readingDetail is the panel's line while an item's detail is read. The
// item is named above it. The same words for every item are drawn from
// the text Fyne has already rasterized; a new text on each ↓ cost about
// 2 ms inside the key's frame, though no change showed from the key to
// the frame (docs/performance.md).
const readingDetail = "Reading its actions and history…"

func (p *itemPanel) render() {
	listed := !p.loaded && p.itemID != "" && p.listed.ID == p.itemID
	if !p.loaded && !listed {
		title := "No item selected"
		if p.itemID != "" {
			title = "Loading " + shown(p.itemID) + "…"
		}
		p.itemWords.clear(title)
		p.decision.Hide()
		setText(p.why, "")
		p.renderLayers(review.Detail{})
		p.renderUnread()
		return
	}
	d := p.detail
	if listed {
		// The item's words as its row has them, drawn in the frame after
		// the key; its actions, history and claim are read from the cache
		// and follow (show), the actions off until they have.
		d = review.Detail{ItemView: p.listed}
	}
	p.itemWords.set(d, p.c.wf.Team.Reviewer(), p.c.opts.Now())
	p.renderLayers(d)
	if listed {
		setOrHide(p.why, readingDetail)
		p.decision.Hide()
		p.renderUnread()
		return
	}

	sit := p.situation()
	rErr, fErr, uErr := policy.CanResubmit(sit), policy.CanRequestFile(sit), policy.CanReplace(sit)
	p.setButtons(rErr == nil, fErr == nil, uErr == nil)
	if d.KeptFile != "" && uErr == nil {
		p.again.SetText("Upload kept file " + shown(d.KeptFile))
		p.again.Show()
	} else {
		p.again.Hide()
	}
	p.showQueueAgain() // outbox.go
	setOrHide(p.why, p.whyText(rErr, fErr, uErr))
	setOrHide(p.decision, p.c.decisionNote(sit))
	if policy.Cancellable(d.OpenAction()) && p.c.flight(d.ID) == nil {
		p.cancel.Show()
		p.cancel.Enable()
	} else {
		p.cancel.Hide()
	}
	p.renderMessage()
	setText(p.attempts, attemptsText(d))
	setText(p.audit, auditText(d))
	p.team.render() // claims.go: another reviewer's claim turns the actions off
}

// renderUnread draws what waits for the item's detail: no action offered,
// no history, no claim.
func (p *itemPanel) renderUnread() {
	setText(p.attempts, "")
	setText(p.audit, "")
	p.cancel.Hide()
	p.stop.Hide()
	p.again.Hide()
	p.requeue.Hide()
	p.setButtons(false, false, false)
	p.renderMessage()
	p.team.render()
}

// renderMessage draws the message line: the action in flight on this item
// (time spent and the limit), else the newest action's state, else a note.
func (p *itemPanel) renderMessage() {
	msg, details := "", ""
	f := p.c.flight(p.itemID)
	switch {
	case f != nil:
		spent := p.c.opts.Now().Sub(f.start)
		msg = fmt.Sprintf("%s… %s of at most %s", f.label, roundSeconds(spent), roundSeconds(p.c.opts.ActionLimit))
		if f.stopping {
			msg = f.label + "… stopping the wait; the outcome will be checked later with the same key."
		}
	case p.note != "" && p.noteItem == p.itemID:
		msg, details = p.note, p.noteDetails
	case p.loaded && p.detail.Action != nil:
		a := p.detail.Action
		lastErr, at := "", time.Time{}
		for _, full := range p.detail.Actions {
			if full.ID == a.ID {
				lastErr, at = full.LastError, full.UpdatedAt
			}
		}
		msg, details = actionNote(a.Kind, a.State, a.Code, lastErr, at)
		if policy.WaitingRetryAfter(a.State, a.NotBefore, p.c.opts.Now()) {
			msg = rateLimitedNote(a.Kind, a.NotBefore) // outbox.go
		}
	}
	setOrHide(p.message, msg)
	if f != nil && !f.stopping {
		p.stop.Show()
	} else {
		p.stop.Hide()
	}
	p.details.SetText(details)
	if details == "" {
		p.detailsAc.Hide()
	} else {
		p.detailsAc.Show()
	}
}

func roundSeconds(d time.Duration) string {
	return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
}

// whyText says why re-submitting is not offered, and what to do instead.
func (p *itemPanel) whyText(rErr, fErr, uErr error) string {
	d := p.detail
	switch {
	case p.c.flight(d.ID) != nil:
		return ""
	case rErr == nil:
		return "Re-submit runs the paid analysis again on the same file, once; it asks first."
	case d.OpenAction() == policy.ActionUnknown:
		return "An action's outcome is unknown: the console checks it with the same key when the API answers."
	case d.OpenAction() != "":
		return "An action is already open (" + stateWord(d.OpenAction()) + ")."
	case d.Next.Kind == policy.NextWait:
		return "The screening API asked the console to wait: re-submit after " + clock(d.Next.Until) + "."
	case fErr == nil:
		return "Re-submit is off: a new file is needed (" + shown(string(d.ErrorCode)) + "). Request one, or upload the one the customer sent."
	case uErr == nil:
		return "Waiting for the customer's new file: upload it when it arrives."
	case d.Checked():
		return "Checked by the service; nothing to re-submit."
	case d.Status == policy.StatusPending:
		return "The analysis is still running; sync to see its result."
	case d.Status == policy.StatusInvalid:
		return "The answer was broken; sync again before acting on this item."
	}
	return sentence(rErr)
}

func (p *itemPanel) renderLayers(d review.Detail) {
	key := ""
	if d.Checked() {
		key = fmt.Sprint(d.ID, d.Layers)
	}
	if key == p.layersOf {
		return // the same bars (the detail that follows the row)
	}
	p.layersOf = key
	p.layers.RemoveAll()
	if !d.Checked() || len(d.Layers) == 0 {
		return
	}
	for _, n := range layerNames(d) {
		// The words sit on the window's background, not on the bar, so they
		// keep their contrast in both themes.
		bar := widget.NewProgressBar()
		bar.TextFormatter = func() string { return "" }
		bar.SetValue(d.Layers[n])
		label := newLabel(layerText(n, d.Layers[n]))
		p.layers.Add(container.NewGridWithColumns(2, label, container.NewPadded(bar)))
	}
}

// layerNames are the names of a checked item's forensic layers, in order.
func layerNames(d review.Detail) []string {
	if !d.Checked() {
		return nil
	}
	names := make([]string, 0, len(d.Layers))
	for n := range d.Layers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// layerText is a layer's line beside its bar: its name and score.
func layerText(name string, v float64) string {
	return fmt.Sprintf("%s  %.2f", shown(strings.ReplaceAll(name, "_", " ")), v)
}

// attemptLabel names an attempt: the first try, or the console's one
// automatic connection retry.
func attemptLabel(op string, number int) string {
	if d, ok := policy.DescribeKind(policy.ActionKind(op)); ok {
		op = d.Word // the words the panel uses for actions everywhere
	}
	if number > 1 {
		return op + ", connection retry"
	}
	return op
}

func attemptsText(d review.Detail) string {
	if len(d.Attempts) == 0 {
		return "No calls made for this item yet."
	}
	var b strings.Builder
	for _, a := range d.Attempts {
		fmt.Fprintf(&b, "%s  %s · took %s (limits: connect %s, request %s)",
			a.Start.Local().Format("15:04:05"), attemptLabel(a.Operation, a.Number),
			humanDuration(a.Elapsed), humanDuration(a.ConnectTimeout), humanDuration(a.RequestTimeout))
		fmt.Fprintf(&b, " → %s", strings.ReplaceAll(string(a.Class), "_", " "))
		if a.Code != "" {
			b.WriteString(" " + shown(string(a.Code)))
		}
		if a.HTTPStatus != 0 {
			b.WriteString(" (HTTP " + strconv.Itoa(a.HTTPStatus) + ")")
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

func auditText(d review.Detail) string {
	if len(d.Audit) == 0 {
		return "Nothing done on this item yet."
	}
	var b strings.Builder
	for _, e := range d.Audit {
		fmt.Fprintf(&b, "%s  %s  %s", e.At.Local().Format("Jan 2 15:04:05"), shown(e.Reviewer), shown(e.Event))
		if e.Detail != "" {
			b.WriteString(": " + shownLong(e.Detail))
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

// ready: the panel shows the loaded detail of the selected item (not the
// previous item's while the next one loads).
func (p *itemPanel) ready() bool { return p.loaded && p.detail.ID == p.itemID }

// steadyWidth lays its objects over each other at the size it is given;
// its least width is width(), whatever they hold, its least height theirs.
type steadyWidth struct{ width func() float32 }

func (s *steadyWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
}

func (s *steadyWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		if o.Visible() {
			h = max(h, o.MinSize().Height)
		}
	}
	return fyne.NewSize(s.width(), h)
}
