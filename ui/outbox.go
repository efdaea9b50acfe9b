package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// A refusal for now is not final: an action the service turned away for
// now (a 503; policy.MayQueueAgain) ends failed, and the panel offers to
// queue it again, in one key press (q), as a new intent with a new key.
// The service may have run the work before its 503, so it is the
// reviewer's choice, and the button says what it costs.

// turnedAway is the item's newest action when the service turned it away
// for now and nothing has been queued on the item since (nil otherwise).
func (p *itemPanel) turnedAway() *store.Action {
	d := p.detail
	if len(d.Actions) == 0 || d.OpenAction() != "" {
		return nil
	}
	a := d.Actions[0] // newest first
	if !policy.MayQueueAgain(a.State, a.LastErrorCode) || a.Kind == policy.ActionReplacement {
		return nil // a replacement's kept file has its own button (Upload kept file)
	}
	return &a
}

// showQueueAgain shows "Queue again" when the newest action may be queued again.
func (p *itemPanel) showQueueAgain() {
	a := p.turnedAway()
	if a == nil {
		p.requeue.Hide()
		return
	}
	p.requeue.SetText("Queue again: " + policy.ActionWord(a.Kind))
	p.requeue.Tip = "The service turned it away for now (" + shown(string(a.LastErrorCode)) + "). Queue it again as a new intent with a new key (key: q)"
	if a.Kind.Paid() {
		p.requeue.Tip += "; a new paid analysis, and the service may have run the first one before it failed"
	}
	if p.c.flight(p.itemID) == nil {
		p.requeue.Enable()
	} else {
		p.requeue.Disable()
	}
	p.requeue.Show()
}

// onQueueAgain queues again the action the service turned away for now.
func (p *itemPanel) onQueueAgain() {
	if !p.ready() {
		return
	}
	a := p.turnedAway()
	if a == nil {
		return
	}
	id := a.ID
	p.act(a.Kind, "Queuing again", func(ctx context.Context, _ string) (review.Result, error) {
		return p.c.wf.Actions.QueueAgain(ctx, id)
	})
}

// turnedAwayIDs are the items of a bulk result that the service turned
// away for now.
func turnedAwayIDs(res review.RunResult) []string {
	var ids []string
	for _, r := range res.Items {
		if policy.MayQueueAgain(r.Action.State, r.Action.LastErrorCode) {
			ids = append(ids, r.Action.ItemID)
		}
	}
	return ids
}

// showQueueAgain offers, in a bulk result, to queue again what the
// service turned away for now.
func (b *bulkScreen) showQueueAgain() {
	b.mu.Lock()
	n := len(turnedAwayIDs(b.result))
	b.mu.Unlock()
	if n == 0 || b.queueAgain == nil {
		b.requeue.Hide()
		return
	}
	b.requeue.SetText(fmt.Sprintf("Queue again the %d turned away", n))
	b.requeue.Show()
}

// onQueueAgain plans the run's kind again on the items the service turned
// away for now: a new plan to confirm, new intents, new keys.
func (b *bulkScreen) onQueueAgain() {
	b.mu.Lock()
	ids := turnedAwayIDs(b.result)
	b.mu.Unlock()
	if len(ids) > 0 && b.queueAgain != nil {
		b.queueAgain(ids)
	}
}

// onBulkIDs plans a bulk action on these items and shows the plan.
func (c *Console) onBulkIDs(kind policy.ActionKind, ids []string) {
	c.planBulk(kind, review.Selection{IDs: ids}) // bulk.go
}

// refusedWhy names the actions a flush found refused, grouped by why, in
// words: " Refused: the item changed: Ben re-analysed it (itm_1, itm_2)."
func refusedWhy(fr review.FlushResult) string {
	var order []string
	ids := map[string][]string{}
	for _, r := range fr.Results {
		a := r.Action
		if a.State != policy.ActionFailed {
			continue
		}
		why := reasonWords(a)
		if _, ok := ids[why]; !ok {
			order = append(order, why)
		}
		ids[why] = append(ids[why], a.ItemID)
	}
	if len(order) == 0 {
		return ""
	}
	var parts []string
	for _, why := range order {
		list := ids[why]
		shown := list
		if len(shown) > 3 {
			shown = shown[:3]
		}
		names := strings.Join(shown, ", ")
		if more := len(list) - len(shown); more > 0 {
			names += fmt.Sprintf(" and %d more", more)
		}
		parts = append(parts, why+" ("+names+")")
	}
	return " Refused: " + strings.Join(parts, "; ") + "."
}

// reasonWords is why the service refused an action, in words: the
// code's sentence without the code, and for a change of the item what
// changed.
func reasonWords(a store.Action) string {
	why := policy.Headline(a.LastErrorCode)
	if i := strings.LastIndex(why, " ("); i > 0 {
		why = why[:i]
	}
	if why == "" {
		why = "refused"
	}
	why = strings.ToLower(why[:1]) + why[1:]
	if a.LastErrorCode == policy.CodeItemChanged && a.LastError != "" {
		why += ": " + strings.TrimSuffix(safetext.Line(a.LastError, safetext.Message), ".")
	}
	return why
}

// showRefused offers, in the strip, to show the items a flush found
// refused (none: the link goes).
func (c *Console) showRefused(fr review.FlushResult) {
	var ids []string
	for _, r := range fr.Results {
		if r.Action.State == policy.ActionFailed {
			ids = append(ids, r.Action.ItemID)
		}
	}
	s := c.strip
	s.refIDs = ids
	if len(ids) == 0 {
		s.refused.Hide()
	} else {
		s.refused.SetText(fmt.Sprintf("Show the %d refused", len(ids)))
		s.refused.OnTapped = c.onRefused
		s.refused.Show()
	}
	s.row2.Refresh()
}

// onRefused lists exactly the items the last flush found refused.
func (c *Console) onRefused() {
	if len(c.strip.refIDs) == 0 || c.win.Canvas().Overlays().Top() != nil {
		return
	}
	var f store.ItemFilter
	f.IDs = append([]string{}, c.strip.refIDs...)
	c.applyView(review.View{Name: "Refused in the last flush"}, f)
}

// rateLimitedNote is the panel's sentence for an action queued after a
// 429: nothing ran, and it goes out by itself when the wait ends.
func rateLimitedNote(kind policy.ActionKind, until time.Time) string {
	return "The screening API asked the console to slow down (RATE_LIMITED); nothing of the " + policy.ActionWord(kind) +
		" ran. It is queued, and goes out by itself at " + clock(until) + ", with the same key."
}
