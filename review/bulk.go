package review

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Bulk actions: a plan that says what a selection will cost and what it
// leaves out and why; a confirmation that queues every action durably, each
// with its own key, before any call (in chunks of short transactions, so
// that other writers get the cache between them); a run that sends them with a small
// bounded concurrency and stops starting new sends as soon as the API
// cannot take them (circuit open, rate limit, unreachable), leaving the rest
// queued for the next flush; and an undo that cancels what is still queued.
// The plan and its confirmation are here; the run and its undo in runs.go.
//
// Nothing is sent twice: each action has one key, the store lets one sender
// hold it, and a repeat replays the service's stored answer. Paid analyses
// never exceed the confirmed count: a run holds at most that many actions
// (the database refuses more), one per item.

// DefaultBulkMax is the largest bulk run confirmed with a plain yes: a plan
// of more items needs its count confirmed as well (typed in the window,
// --max N on the command line), so that a filter wider than meant does not
// spend a hundred thousand paid analyses on one keystroke.
const DefaultBulkMax = 1000

// BulkMax is the largest run confirmed without its count.
func (s *RunService) BulkMax() int { return s.bulkLimit() }

// bulkLimit is BulkMax, shared by the services that need it.
func (s *core) bulkLimit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bulkMax == 0 {
		return DefaultBulkMax
	}
	return s.bulkMax
}

// Selection is what a bulk action is planned on: the items of IDs, or, when
// IDs is nil, the items a filter lists.
type Selection struct {
	IDs    []string
	Filter store.ItemFilter
}

// PlanItem is an item a plan will act on.
type PlanItem struct {
	ItemID   string
	BatchID  string
	FileName string
	Code     policy.Code
}

// Skipped is an item a plan leaves out, and why. Detail names who holds a
// claimed item.
type Skipped struct {
	ItemID string
	Reason policy.Skip
	Detail string
}

// Plan is what a bulk action will do, shown before anything is queued.
type Plan struct {
	Kind    policy.ActionKind
	Items   []PlanItem
	Skipped []Skipped
	// Messages is the customer message per code for file requests,
	// prefilled by policy and editable once for all items of the code.
	Messages map[policy.Code]string
	// WaitUntil is a rate-limit wait running when the plan was made: the
	// actions are queued and go out when it ends.
	WaitUntil time.Time
	MadeAt    time.Time
	// Count is how many items the plan acts on. A plan made to be shown
	// (PlanSummary) holds no Items: EachPlanned streams them.
	Count int
	// Max is the bulk limit when the plan was made (BulkMax): a plan of
	// more items needs its count confirmed (NeedsCount).
	Max int
	// CountConfirmed is the count the reviewer gave to confirm a plan over
	// the limit: typed in the window (equal to Count), or --max N (at least
	// Count). Confirm refuses such a plan without it.
	CountConfirmed int
	// skips counts what a summary leaves out, by reason (Skipped stays nil).
	skips map[skipKey]int
	// held is what a plan to confirm (PlanToConfirm) acts on, in place of
	// Items.
	held *planIDs
}

// planIDs are the items a plan to confirm acts on, in the order planned,
// in a few flat slices rather than a value per item: each id followed by
// a NUL (an id is one safe path segment, which holds none), and for a
// file request the index of each item's code in codes.
type planIDs struct {
	ids     []byte
	codeOf  []uint16
	codes   []policy.Code
	indexOf map[policy.Code]uint16
}

func (h *planIDs) add(id string, code policy.Code, withCode bool) {
	h.ids = append(append(h.ids, id...), 0)
	if !withCode {
		return
	}
	i, ok := h.indexOf[code]
	if !ok {
		if h.indexOf == nil {
			h.indexOf = map[policy.Code]uint16{}
		}
		i = uint16(len(h.codes))
		h.codes, h.indexOf[code] = append(h.codes, code), i
	}
	h.codeOf = append(h.codeOf, i)
}

// cursor walks the held items in order.
type planCursor struct {
	h      *planIDs
	at, no int
}

func (c *planCursor) next() (id string, code policy.Code, ok bool) {
	if c.at >= len(c.h.ids) {
		return "", "", false
	}
	end := c.at + bytes.IndexByte(c.h.ids[c.at:], 0)
	id = string(c.h.ids[c.at:end])
	if c.no < len(c.h.codeOf) {
		code = c.h.codes[c.h.codeOf[c.no]]
	}
	c.at, c.no = end+1, c.no+1
	return id, code, true
}

type skipKey struct {
	r policy.Skip
	d string
}

// Len is how many items the plan acts on.
func (p Plan) Len() int {
	if p.Items != nil {
		return len(p.Items)
	}
	return p.Count
}

// NeedsCount reports whether the plan is over the bulk limit, so that a
// plain yes does not confirm it: the reviewer gives its count.
func (p Plan) NeedsCount() bool { return p.Max > 0 && p.Len() > p.Max }

// PaidAnalyses is how many paid analyses the plan may cost: one per item
// re-submitted, none for a file request.
func (p Plan) PaidAnalyses() int {
	if p.Kind.Paid() {
		return p.Len()
	}
	return 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Headline is the plan in one line: "Re-submit 12 items: 12 paid analyses".
func (p Plan) Headline() string {
	if p.Kind == policy.ActionResubmit {
		return fmt.Sprintf("Re-submit %s: %s", plural(p.Len(), "item", "items"),
			plural(p.PaidAnalyses(), "paid analysis", "paid analyses"))
	}
	return fmt.Sprintf("Request new files for %s from the customers: no paid analysis", plural(p.Len(), "item", "items"))
}

// SkipLines say what the plan leaves out and why, most first:
// "3 need a new file", "1 is claimed by Ben", "2 already have an action waiting".
func (p Plan) SkipLines() []string {
	type key = skipKey
	counts := map[key]int{}
	for _, s := range p.Skipped {
		counts[key{s.Reason, s.Detail}]++
	}
	for k, n := range p.skips {
		counts[k] += n
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i].r+policy.Skip(keys[i].d) < keys[j].r+policy.Skip(keys[j].d)
	})
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = skipLine(k.r, k.d, counts[k])
	}
	return lines
}

func skipLine(r policy.Skip, detail string, n int) string {
	verb := func(one, many string) string { return fmt.Sprintf("%d %s", n, pick(n, one, many)) }
	switch r {
	case policy.SkipNeedsFile:
		return verb("needs a new file", "need a new file")
	case policy.SkipRetryable:
		return verb("can be re-submitted instead", "can be re-submitted instead")
	case policy.SkipActionOpen:
		return verb("already has an action waiting", "already have an action waiting")
	case policy.SkipInvalid:
		return verb("has no valid answer (sync again)", "have no valid answer (sync again)")
	case policy.SkipNotInError:
		return verb("is not in error", "are not in error")
	case policy.SkipClaimed:
		return verb("is claimed by "+detail, "are claimed by "+detail)
	}
	return verb("is left out: "+string(r), "are left out: "+string(r))
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SetMessage edits the customer message of one code, once for all the
// plan's items with that code.
func (p *Plan) SetMessage(code policy.Code, text string) error {
	if _, ok := p.Messages[code]; !ok {
		return policy.Errorf(policy.CodeInvalidInput, "the plan has no item with code %s", code)
	}
	text, err := policy.CheckCustomerMessage(text)
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "the message for %s: %s", code, policy.ErrorMessage(err))
	}
	p.Messages[code] = text
	return nil
}

// Codes lists the plan's codes in a stable order (for the message editor).
func (p Plan) Codes() []policy.Code {
	var out []policy.Code
	if p.Items == nil { // a summary: the codes its messages are for
		for c := range p.Messages {
			out = append(out, c)
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	seen := map[policy.Code]bool{}
	for _, it := range p.Items {
		if !seen[it.Code] {
			seen[it.Code] = true
			out = append(out, it.Code)
		}
	}
	return out
}

func (s *core) claimCheck() func(store.ItemRow, string, time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claimedBy
}

func heldBy(check func(store.ItemRow, string, time.Time) string, r store.ItemRow, me string, now time.Time) string {
	if check != nil {
		return check(r, me, now)
	}
	if c := r.HeldByOther(me, now); c != nil {
		return c.Reviewer
	}
	return ""
}

// eachSelected calls fn with each item of a selection, in flat memory for
// a filter (the longest waiting first).
func (s *core) eachSelected(ctx context.Context, sel Selection, fn func(store.ItemRow) error) error {
	if sel.IDs != nil {
		rows, err := s.db.Items.ItemsByID(ctx, sel.IDs)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
	f := sel.Filter
	f.Limit, f.Offset = 0, 0
	if f.SortBy == "" {
		f.SortBy = "since" // the longest waiting go out first
	}
	return s.db.Items.EachItem(ctx, f, fn)
}

// PlanResubmit plans the re-submission of a selection: only items whose
// code a re-run may help, with no open action, not claimed by someone else.
func (s *RunService) PlanResubmit(ctx context.Context, sel Selection) (Plan, error) {
	return s.plan(ctx, sel, policy.ActionResubmit, holdItems, nil)
}

// PlanRequestFiles plans a file request for each item of a selection whose
// code needs a new file, with the message prefilled per code.
func (s *RunService) PlanRequestFiles(ctx context.Context, sel Selection) (Plan, error) {
	return s.plan(ctx, sel, policy.ActionFileRequest, holdItems, nil)
}

// PlanToConfirm is the plan of kind on a selection, to be confirmed, in
// memory that grows by its items' ids alone: it holds what it acts on
// (not as Items: EachPlanItem lists them) and counts what it leaves out
// and why, as a summary does. The window's plans hold their Items.
func (s *RunService) PlanToConfirm(ctx context.Context, sel Selection, kind policy.ActionKind) (Plan, error) {
	return s.plan(ctx, sel, kind, holdIDs, nil)
}

// EachPlanItem calls fn with each item a plan acts on, in order, as the
// cache holds it now (a plan to confirm is read back from the cache a few
// hundred at a time; an item gone from it is given by its id alone).
func (s *RunService) EachPlanItem(ctx context.Context, p Plan, fn func(PlanItem) error) error {
	if p.held == nil {
		for _, it := range p.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		return nil
	}
	c := planCursor{h: p.held}
	ids := make([]string, 0, 500)
	for {
		ids = ids[:0]
		for len(ids) < cap(ids) {
			id, _, ok := c.next()
			if !ok {
				break
			}
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return nil
		}
		rows, err := s.db.Items.ItemsByID(ctx, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]store.ItemRow, len(rows))
		for _, r := range rows {
			byID[r.ID] = r
		}
		for _, id := range ids {
			it := PlanItem{ItemID: id}
			if r, ok := byID[id]; ok {
				it.BatchID, it.FileName, it.Code = r.BatchID, r.FileName, r.ErrorCode
			}
			if err := fn(it); err != nil {
				return err
			}
		}
	}
}

// PlanSummary is the plan of kind on a selection as it is shown, without
// its items: the headline, what it leaves out and why, the messages. It
// reads the selection in flat memory, however large; EachPlanned then
// lists the items. Nothing is confirmed from a summary.
func (s *RunService) PlanSummary(ctx context.Context, sel Selection, kind policy.ActionKind) (Plan, error) {
	return s.plan(ctx, sel, kind, countOnly, nil)
}

// EachPlanned calls fn with each item the plan of kind on a selection acts
// on, in order, in flat memory.
func (s *RunService) EachPlanned(ctx context.Context, sel Selection, kind policy.ActionKind, fn func(PlanItem) error) error {
	_, err := s.plan(ctx, sel, kind, countOnly, fn)
	return err
}

// planHold is what a plan keeps of the items it judges.
type planHold int

const (
	countOnly planHold = iota // counts (a summary)
	holdItems                 // Items and Skipped (the window's plan)
	holdIDs                   // the ids of what it acts on, and counts (a plan to confirm, flat)
)

// plan judges each item of a selection, keeping what hold says, and each
// planned item goes to each (when not nil).
func (s *core) plan(ctx context.Context, sel Selection, kind policy.ActionKind, mode planHold, each func(PlanItem) error) (Plan, error) {
	hold := mode == holdItems
	spec, ok := policy.DescribeKind(kind)
	if !ok || spec.BulkSkip == nil {
		return Plan{}, policy.Errorf(policy.CodeInvalidInput, "a %s is not planned in bulk", policy.ActionWord(kind))
	}
	skip := spec.BulkSkip
	until, err := s.db.Sync.RateLimitedUntil(ctx)
	if err != nil {
		return Plan{}, err
	}
	now, me, claimed := s.now(), s.who(), s.claimCheck()
	p := Plan{Kind: kind, MadeAt: now, Max: s.bulkLimit()}
	if spec.Message {
		p.Messages = map[policy.Code]string{}
	} else if now.Before(until) {
		p.WaitUntil = until
	}
	if hold {
		p.Items = []PlanItem{}
	} else {
		p.skips = map[skipKey]int{}
	}
	if mode == holdIDs {
		p.held = &planIDs{}
	}
	err = s.eachSelected(ctx, sel, func(r store.ItemRow) error {
		sit := policy.Situation{Item: r.Item, OpenAction: r.OpenAction(), Now: now}
		reason := skip(sit)
		detail := ""
		if reason == "" {
			if who := heldBy(claimed, r, me, now); who != "" {
				reason, detail = policy.SkipClaimed, who
			}
		}
		if reason != "" {
			if hold {
				p.Skipped = append(p.Skipped, Skipped{ItemID: r.ID, Reason: reason, Detail: detail})
			} else {
				p.skips[skipKey{reason, detail}]++
			}
			return nil
		}
		it := PlanItem{ItemID: r.ID, BatchID: r.BatchID, FileName: r.FileName, Code: r.ErrorCode}
		p.Count++
		if hold {
			p.Items = append(p.Items, it)
		}
		if p.held != nil {
			p.held.add(it.ItemID, it.Code, spec.Message) // the code picks the message
		}
		if p.Messages != nil {
			if _, ok := p.Messages[r.ErrorCode]; !ok {
				p.Messages[r.ErrorCode] = policy.Info(r.ErrorCode).CustomerMessage
			}
		}
		if each != nil {
			return each(it)
		}
		return nil
	})
	if err != nil {
		return Plan{}, err
	}
	return p, nil
}

// Confirm queues every action of a plan durably, each with its own key,
// before any call (store.RunStore.CreateRun: in chunks that let other writers in).
// Each item is judged again inside the transaction that queues it; what
// changed since the plan is left out and reported. A plan over the bulk
// limit needs CountConfirmed (NeedsCount). A confirmation that stopped
// part-way returns the run with what it queued, and the error.
func (s *RunService) Confirm(ctx context.Context, p Plan) (Run, error) {
	var run Run
	r, err := s.confirm(ctx, p, func(created []store.Action, refused []store.Refusal) {
		run.Actions, run.Refused = append(run.Actions, created...), append(run.Refused, refused...)
	})
	r.Actions, r.Refused = run.Actions, run.Refused
	return r, err
}

// ConfirmEach is Confirm in memory that does not grow with the run: the
// run's Actions and Refused stay empty (Queued and LeftOut count them),
// and leftOut (when not nil) is called with each item left out, once the
// chunk that judged it is durable.
func (s *RunService) ConfirmEach(ctx context.Context, p Plan, leftOut func(store.Refusal)) (Run, error) {
	return s.confirm(ctx, p, func(_ []store.Action, refused []store.Refusal) {
		if leftOut != nil {
			for _, f := range refused {
				leftOut(f)
			}
		}
	})
}

func (s *core) confirm(ctx context.Context, p Plan, chunk func([]store.Action, []store.Refusal)) (Run, error) {
	n := p.Len()
	if n == 0 || (p.Items == nil && p.held == nil) {
		return Run{}, policy.Errorf(policy.CodeConflict, "the plan holds no item to act on")
	}
	if p.NeedsCount() && p.CountConfirmed < n {
		return Run{}, policy.Errorf(policy.CodeInvalidInput,
			"the plan acts on %d items, more than the bulk limit of %d: confirm its count (type %d in the window, or --max %d)",
			n, p.Max, n, n)
	}
	spec, ok := policy.DescribeKind(p.Kind)
	if !ok || spec.BulkSkip == nil {
		return Run{}, policy.Errorf(policy.CodeInvalidInput, "a %s is not planned in bulk", policy.ActionWord(p.Kind))
	}
	check := func(sit policy.Situation) error {
		skip := spec.BulkSkip(sit)
		if skip == policy.SkipActionOpen {
			return policy.Errorf(policy.CodeActionOpen, "item %s already has an open action", sit.Item.ID)
		}
		if skip != "" {
			return policy.Errorf(policy.CodeConflict, "item %s changed since the plan (%s)", sit.Item.ID, skip)
		}
		return nil
	}
	// Messages go to customers: the one of each code of the plan is
	// checked again here, however the plan was edited, before anything
	// is queued.
	messages := map[policy.Code]string{}
	if spec.Message {
		for _, code := range p.Codes() {
			m, err := policy.CheckCustomerMessage(p.Messages[code])
			if err != nil {
				return Run{}, policy.Errorf(policy.CodeInvalidInput, "the message for %s: %s", code, policy.ErrorMessage(err))
			}
			messages[code] = m
		}
	}
	// The actions are made a chunk at a time, each with its new key, as
	// the store takes them: nothing is held for the whole run.
	var buf []store.Action
	next := p.items()
	source := func(want int) ([]store.Action, error) {
		buf = buf[:0]
		for len(buf) < want {
			id, code, ok := next()
			if !ok {
				break
			}
			a := store.Action{ItemID: id, Kind: p.Kind, Key: s.newKey()}
			if spec.Message {
				a.Message = messages[code]
			}
			buf = append(buf, a)
		}
		return buf, nil
	}
	var queued, left int
	run, _, err := s.db.Runs.CreateRunFrom(ctx, p.Kind, s.who(), n, source, s.notHeldByOther(check),
		func(created []store.Action, refused []store.Refusal) {
			queued, left = queued+len(created), left+len(refused)
			chunk(created, refused)
		})
	return Run{BulkRun: run, Queued: queued, LeftOut: left}, err
}

// items walks what the plan acts on: its Items, or the ids it holds.
func (p Plan) items() func() (string, policy.Code, bool) {
	if p.held != nil {
		c := planCursor{h: p.held}
		return c.next
	}
	i := 0
	return func() (string, policy.Code, bool) {
		if i >= len(p.Items) {
			return "", "", false
		}
		it := p.Items[i]
		i++
		return it.ItemID, it.Code, true
	}
}
