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
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// itemPanel is the item panel on the right.
type itemPanel struct {
	c      *Console
	itemID string
	detail review.Detail
	loaded bool
	busy   bool
	gen    int

	title     *widget.Label
	subtitle  *widget.Label
	verdict   *widget.Label
	explain   *widget.Label
	reported  *widget.Label
	nextActor *widget.Label
	layers    *fyne.Container
	resubmit  *widget.Button
	request   *widget.Button
	upload    *widget.Button
	cancel    *widget.Button
	why       *widget.Label
	message   *widget.Label
	attempts  *widget.Label
	audit     *widget.Label
	content   fyne.CanvasObject
}

func wrapped(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

func newItemPanel(c *Console) *itemPanel {
	p := &itemPanel{c: c,
		title: widget.NewLabel("No item selected"), subtitle: widget.NewLabel(""),
		verdict: widget.NewLabel(""), explain: wrapped(""), reported: wrapped(""), nextActor: widget.NewLabel(""),
		layers: container.NewVBox(), why: wrapped(""), message: wrapped(""),
		attempts: wrapped(""), audit: wrapped(""),
	}
	p.title.TextStyle.Bold = true
	p.title.Truncation = fyne.TextTruncateEllipsis
	p.verdict.TextStyle.Bold = true
	p.why.TextStyle.Italic = true
	p.resubmit = widget.NewButtonWithIcon("Re-submit", theme.MediaReplayIcon(), p.onResubmit)
	p.resubmit.Importance = widget.HighImportance
	p.request = widget.NewButtonWithIcon("Request new file", theme.MailSendIcon(), p.onRequestFile)
	p.upload = widget.NewButtonWithIcon("Upload replacement", theme.UploadIcon(), p.onUpload)
	p.cancel = widget.NewButtonWithIcon("Cancel queued action", theme.CancelIcon(), p.onCancel)
	p.cancel.Hide()
	history := container.NewAppTabs(
		container.NewTabItem("Attempts", container.NewVScroll(p.attempts)),
		container.NewTabItem("Audit", container.NewVScroll(p.audit)),
	)
	top := container.NewVBox(p.title, p.subtitle, p.verdict, p.explain, p.reported, p.nextActor, p.layers,
		container.NewGridWithColumns(2, p.resubmit, p.request), container.NewGridWithColumns(2, p.upload, p.cancel),
		p.why, p.message, widget.NewSeparator())
	p.content = container.NewBorder(top, nil, nil, nil, history)
	p.setButtons(false, false, false)
	return p
}

// show loads an item into the panel ("" clears it).
func (p *itemPanel) show(id string) {
	if id != p.itemID {
		setOrHide(p.message, "")
	}
	p.itemID = id
	p.gen++
	gen := p.gen
	if id == "" {
		p.loaded = false
		p.render()
		return
	}
	p.c.background(func(ctx context.Context) func() {
		d, err := p.c.wf.Item(ctx, id)
		return func() {
			if gen != p.gen {
				return
			}
			if err != nil {
				p.loaded = false
				p.render()
				setOrHide(p.message, sentence(err))
				return
			}
			p.detail, p.loaded = d, true
			p.render()
		}
	})
}

func (p *itemPanel) refresh() { p.show(p.itemID) }

func (p *itemPanel) setButtons(resubmit, request, upload bool) {
	for _, b := range []struct {
		btn *widget.Button
		on  bool
	}{{p.resubmit, resubmit}, {p.request, request}, {p.upload, upload}} {
		if b.on && !p.busy {
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
func setOrHide(l *widget.Label, text string) {
	l.SetText(text)
	if text == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

func (p *itemPanel) render() {
	if !p.loaded {
		p.title.SetText("No item selected")
		for _, l := range []*widget.Label{p.subtitle, p.verdict, p.explain, p.reported, p.nextActor, p.why, p.attempts, p.audit} {
			l.SetText("")
		}
		p.layers.RemoveAll()
		p.cancel.Hide()
		p.setButtons(false, false, false)
		return
	}
	d := p.detail
	p.title.SetText(d.FileName)
	kind := "ID document"
	if d.Kind == policy.KindSelfie {
		kind = "Selfie"
	}
	p.subtitle.SetText(fmt.Sprintf("%s · %s · %s · attempt %d", kind, d.ID, d.CustomerRef, d.Attempt))
	text, imp := statusLook(d.Item)
	if d.Checked() {
		text = fmt.Sprintf("%s · risk score %d", text, *d.RiskScore)
	} else if d.ErrorCode != "" {
		text = fmt.Sprintf("%s · %s · not checked", text, d.ErrorCode)
	} else {
		text += " · not checked"
	}
	p.verdict.Importance = imp
	p.verdict.SetText(text)
	p.explain.SetText(policy.Describe(d.Item))
	reported := ""
	if d.ReportedCode != "" && d.ReportedCode != string(d.ErrorCode) {
		reported = "The service reported " + d.ReportedCode + ", which the console does not know; it is treated as " + string(d.ErrorCode) + "."
	}
	if d.Status == policy.StatusInvalid && d.ReportedCode != "" {
		reported = "The service reported " + d.ReportedCode + " alongside the broken answer."
	}
	setOrHide(p.reported, reported)
	next := ""
	if d.Status == policy.StatusError || d.Status == policy.StatusInvalid {
		next = "Who acts next: the " + string(policy.Info(d.ErrorCode).NextActor) + "."
	}
	setOrHide(p.nextActor, next)
	p.renderLayers()

	sit := p.situation()
	rErr, fErr, uErr := policy.CanResubmit(sit), policy.CanRequestFile(sit), policy.CanReplace(sit)
	p.setButtons(rErr == nil, fErr == nil, uErr == nil)
	setOrHide(p.why, p.whyText(rErr, fErr, uErr))
	if d.OpenAction() == policy.ActionQueued {
		p.cancel.Show()
		if p.busy {
			p.cancel.Disable()
		} else {
			p.cancel.Enable()
		}
	} else {
		p.cancel.Hide()
	}
	p.attempts.SetText(attemptsText(d))
	p.audit.SetText(auditText(d))
}

// whyText says why re-submitting is not offered, and what to do instead.
func (p *itemPanel) whyText(rErr, fErr, uErr error) string {
	d := p.detail
	switch {
	case rErr == nil:
		return "Re-submit runs the paid analysis again on the same file, once."
	case d.OpenAction() == policy.ActionUnknown:
		return "An action's outcome is unknown: the next sync checks it with the same key."
	case d.OpenAction() != "":
		return "An action is already open (" + string(d.OpenAction()) + ")."
	case d.Next.Kind == policy.NextWait:
		return "The screening API asked us to wait: re-submit after " + clock(d.Next.Until) + "."
	case fErr == nil:
		return "Re-submit is off: a new file is needed (" + string(d.ErrorCode) + "). Request one, or upload the one the customer sent."
	case uErr == nil:
		return "Waiting for the customer's new file: upload it when it arrives."
	case d.Checked():
		return "Checked by the service; nothing to re-submit."
	}
	return sentence(rErr)
}

func (p *itemPanel) renderLayers() {
	p.layers.RemoveAll()
	d := p.detail
	if !d.Checked() || len(d.Layers) == 0 {
		return
	}
	names := make([]string, 0, len(d.Layers))
	for n := range d.Layers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v, name := d.Layers[n], strings.ReplaceAll(n, "_", " ")
		bar := widget.NewProgressBar()
		bar.TextFormatter = func() string { return fmt.Sprintf("%s  %.2f", name, v) }
		bar.SetValue(v)
		p.layers.Add(bar)
	}
}

func attemptsText(d review.Detail) string {
	if len(d.Attempts) == 0 {
		return "No calls made for this item yet."
	}
	var b strings.Builder
	for _, a := range d.Attempts {
		fmt.Fprintf(&b, "%s  %s #%d · connect %v · request %v · after %v · took %v → %s",
			a.Start.Local().Format("15:04:05"), a.Operation, a.Number, short(a.ConnectTimeout), short(a.RequestTimeout),
			short(a.SpentBefore), short(a.Elapsed), a.Class)
		if a.Code != "" {
			b.WriteString(" " + a.Code)
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
		fmt.Fprintf(&b, "%s  %s  %s", e.At.Local().Format("Jan 2 15:04:05"), e.Reviewer, e.Event)
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

func short(d time.Duration) string { return d.Round(time.Millisecond).String() }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// act runs an action in the background and shows its outcome in one
// sentence. The buttons are off from the click until the outcome is in:
// together with the outbox's one-open-action rule, a double click is one
// action.
func (p *itemPanel) act(kind policy.ActionKind, label string, run func(ctx context.Context, id string) (review.Result, error)) {
	if p.busy || !p.loaded {
		return
	}
	id := p.itemID
	p.busy = true
	p.setButtons(false, false, false)
	p.cancel.Disable()
	setOrHide(p.message, label+"…")
	p.c.items.showSending(id, kind)
	p.c.background(func(ctx context.Context) func() {
		res, err := run(ctx, id)
		return func() {
			p.busy = false
			if err != nil {
				setOrHide(p.message, sentence(err))
			} else {
				setOrHide(p.message, resultSentence(res))
			}
			p.c.reload()
		}
	})
}

func (p *itemPanel) onResubmit() {
	if !p.loaded || policy.CanResubmit(p.situation()) != nil {
		return
	}
	p.act(policy.ActionResubmit, "Re-submitting", p.c.wf.Resubmit)
}

// onRequestFile asks for the message to the customer, pre-filled from the
// code, and sends the request.
func (p *itemPanel) onRequestFile() {
	if p.busy || !p.loaded || policy.CanRequestFile(p.situation()) != nil {
		return
	}
	msg := widget.NewMultiLineEntry()
	msg.Wrapping = fyne.TextWrapWord
	msg.SetText(policy.Info(p.detail.ErrorCode).CustomerMessage)
	msg.SetMinRowsVisible(4)
	d := dialog.NewForm("Request a new file", "Send", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Message to the customer", msg)}, func(ok bool) {
			if ok {
				p.requestFile(msg.Text)
			}
		}, p.c.win)
	d.Resize(fyne.NewSize(520, 280))
	d.Show()
}

func (p *itemPanel) requestFile(message string) {
	p.act(policy.ActionFileRequest, "Requesting a new file", func(ctx context.Context, id string) (review.Result, error) {
		return p.c.wf.RequestFile(ctx, id, message)
	})
}

// onUpload picks the file the customer sent; the workflow checks it before
// anything is sent.
func (p *itemPanel) onUpload() {
	if p.busy || !p.loaded || policy.CanReplace(p.situation()) != nil {
		return
	}
	dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		p.uploadFile(path)
	}, p.c.win)
}

func (p *itemPanel) uploadFile(path string) {
	p.act(policy.ActionReplacement, "Uploading", func(ctx context.Context, id string) (review.Result, error) {
		return p.c.wf.ReplaceFile(ctx, id, path)
	})
}

func (p *itemPanel) onCancel() {
	if p.busy || !p.loaded || p.detail.Action == nil || p.detail.OpenAction() != policy.ActionQueued {
		return
	}
	actionID := p.detail.Action.ID
	p.busy = true
	p.c.background(func(ctx context.Context) func() {
		_, err := p.c.wf.Cancel(ctx, actionID)
		return func() {
			p.busy = false
			if err != nil {
				setOrHide(p.message, sentence(err))
			} else {
				setOrHide(p.message, "The queued action was cancelled; nothing of it reached the API.")
			}
			p.c.reload()
		}
	})
}
