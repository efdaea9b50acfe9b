package ui

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Workflow is what the window asks of the reviewer's workflow: one small
// interface per screen, each satisfied by one of review's services (the
// compile-time checks below), so that a screen takes only what it uses.
// ServiceWorkflow builds it from a *review.Service; a test gives fakes.
// The window never looks for more by type assertion.
type Workflow struct {
	Sync      Syncing       // the strip, the background sync and probe (syncing.go)
	Listing   Listing       // the batches, the items, an item's detail, the CSV
	Actions   ItemActions   // the item panel's actions and the outbox (actions.go, outbox.go)
	Team      Team          // who reviews, claims and notes (claims.go, notes.go)
	Triage    Triage        // snoozes and saved views (snooze.go, views.go)
	Bulk      Bulk          // the bulk dialog (bulk.go)
	Documents Documents     // the preview and the viewer (preview.go)
	Kept      KeptDocuments // documents kept for offline review (kept.go); nil: none are kept
	Retention Retention     // the cache's retention (run.go: once a day)
	Decide    Deciding      // the reviewer's decisions (decide.go); nil: the service takes none
}

// ServiceWorkflow is the window's Workflow on the reviewer's workflow:
// each screen's interface is the review service of its noun. Kept is nil
// when the service keeps no documents.
func ServiceWorkflow(s *review.Service) *Workflow {
	w := &Workflow{Sync: s.Sync, Listing: s.Triage, Actions: s.Actions, Team: s.Team, Triage: s.Triage,
		Bulk: s.Runs, Documents: s.Documents, Retention: s.Retention}
	if s.Kept.KeepsDocuments() {
		w.Kept = s.Kept
	}
	if s.Decisions != nil {
		w.Decide = decisions{s.Decisions}
	}
	return w
}

// decisions is the window's Deciding on review.Decisions: its Result
// said as what became of the request (DecideResult).
type decisions struct{ d *review.Decisions }

func (d decisions) ReasonCodes(ctx context.Context) ([]policy.ReasonCode, error) {
	list, _, err := d.d.ReasonCodes(ctx) // offline: the list the last sync kept
	return list, err
}

func (d decisions) Decide(ctx context.Context, itemID string, o policy.Outcome, reason, comment string) (DecideResult, error) {
	res, err := d.d.Decide(ctx, itemID, o, reason, comment)
	return decideResult(res), err
}

func (d decisions) Confirm(ctx context.Context, itemID string, agree bool, comment string) (DecideResult, error) {
	res, err := d.d.Confirm(ctx, itemID, agree, comment)
	return decideResult(res), err
}

// decideResult says a decision's action as the window does: done with
// the item's current decision, refused with the service's words, unknown
// (sent with no answer, or being sent by another process), or queued.
func decideResult(res review.Result) DecideResult {
	a := res.Action
	switch {
	case a.State == policy.ActionDone:
		r := DecideResult{Sent: DecideDone}
		if res.Item != nil {
			r.Decision = res.Item.CurrentDecision()
		}
		return r
	case a.State == policy.ActionFailed:
		why := string(a.LastErrorCode)
		if a.LastError != "" {
			why = strings.TrimPrefix(why+": "+a.LastError, ": ")
		}
		return DecideResult{Sent: DecideRefused, Refusal: why}
	case a.State == policy.ActionUnknown, res.Unleased == review.UnleasedBusy:
		return DecideResult{Sent: DecideUnknown}
	}
	return DecideResult{Sent: DecideQueued}
}

// Syncing is the connection and the sync (syncing.go, strip.go).
type Syncing interface {
	Sync(ctx context.Context, progress func(review.SyncProgress)) (review.SyncProgress, error)
	Connectivity(ctx context.Context) (review.Connectivity, error)
	// Probe asks the API, cheaply, whether it answers (unless the breaker
	// or a Retry-After wait says not to call); it reports whether it called.
	Probe(ctx context.Context) (bool, error)
	// CacheVersion changes when the cache was changed by another
	// connection or process.
	CacheVersion(ctx context.Context) (int64, error)
}

// Listing is the batches and items as the window lists them.
type Listing interface {
	Batches(ctx context.Context, search string, limit int) ([]store.BatchSummary, error)
	Items(ctx context.Context, f store.ItemFilter) ([]review.ItemView, error)
	// CountItems is how many items a listing holds (the tray's "needs my
	// action").
	CountItems(ctx context.Context, f store.ItemFilter) (int, error)
	// EachItem hands over the rows of a listing one at a time, as read.
	EachItem(ctx context.Context, f store.ItemFilter, fn func(review.ItemView) error) error
	Item(ctx context.Context, id string) (review.Detail, error)
	// OldestWaiting is the oldest waiting age of each listed batch
	// (ageing.go).
	OldestWaiting(ctx context.Context, batchIDs []string) (map[string]review.Aged, error)
	ExportCSV(ctx context.Context, w io.Writer, batchID string) (int, error)
}

// ItemActions is an item's actions and the outbox.
type ItemActions interface {
	Resubmit(ctx context.Context, itemID string) (review.Result, error)
	RequestFile(ctx context.Context, itemID, message string) (review.Result, error)
	ReplaceFile(ctx context.Context, itemID, path string, opt review.ReplaceOptions) (review.Result, error)
	CheckUploadFile(ctx context.Context, path string) error
	// ReplaceAgain uploads again the file a failed replacement kept.
	ReplaceAgain(ctx context.Context, itemID string, opt review.ReplaceOptions) (review.Result, error)
	Cancel(ctx context.Context, actionID int64) (store.Action, error)
	// QueueAgain makes an action the service turned away for now again,
	// with a new key (outbox.go).
	QueueAgain(ctx context.Context, actionID int64) (review.Result, error)
	// Flush sends what the outbox holds (syncing.go).
	Flush(ctx context.Context) (review.FlushResult, error)
}

// Team is who reviews, claims and notes (claims.go, notes.go).
type Team interface {
	// Reviewer is who reviews.
	Reviewer() string
	// ReviewerFromService reports whether the name came from the service
	// (GET /v1/me) rather than from this computer.
	ReviewerFromService() bool
	// APIVersion is the contract version the service speaks ("1.0" offers
	// no claims nor notes).
	APIVersion() string
	Claim(ctx context.Context, itemID string, ttl time.Duration) (policy.Item, error)
	Release(ctx context.Context, itemID string) (policy.Item, error)
	Next(ctx context.Context) (review.NextResult, error)
	AddNote(ctx context.Context, itemID, text string) (review.NoteResult, error)
	ClaimTTL() time.Duration
	// ClaimAway is how long she gives the window none of her input (or
	// leaves it out of the foreground) before a claim held only because
	// she looks at an item is let go (REVIEWER_CLAIM_AWAY).
	ClaimAway() time.Duration
}

// Triage is snoozes and saved views (snooze.go, views.go).
type Triage interface {
	Snooze(ctx context.Context, itemID string, until time.Time, reason string) error
	Views(ctx context.Context) ([]review.View, error)
	SaveView(ctx context.Context, name string, f review.ViewFilter) error
	ItemFilter(v review.ViewFilter) store.ItemFilter
}

// Bulk is what the bulk dialog asks (bulk.go); it names the items through
// Listing.
type Bulk interface {
	PlanResubmit(ctx context.Context, sel review.Selection) (review.Plan, error)
	PlanRequestFiles(ctx context.Context, sel review.Selection) (review.Plan, error)
	// PlanClear plans a bulk clear (policy.ClearSkip says what it leaves
	// out and why).
	PlanClear(ctx context.Context, sel review.Selection) (review.Plan, error)
	Confirm(ctx context.Context, p review.Plan) (review.Run, error)
	SendRun(ctx context.Context, runID int64, opts review.RunOptions) (review.RunResult, error)
	CancelRun(ctx context.Context, runID int64) ([]store.Action, error)
}

// Retention is the cache forgetting on time (run.go: once a day).
type Retention interface {
	Purge(ctx context.Context, olderThan time.Duration, dryRun bool) (review.Purged, error)
}

// Each screen's interface is one review service: a method the window
// needs that the service lacks fails the build, not a type assertion at
// run time.
var (
	_ Syncing       = (*review.SyncService)(nil)
	_ Listing       = (*review.TriageService)(nil)
	_ ItemActions   = (*review.ActionService)(nil)
	_ Team          = (*review.TeamService)(nil)
	_ Triage        = (*review.TriageService)(nil)
	_ Bulk          = (*review.RunService)(nil)
	_ Documents     = (*review.DocumentService)(nil)
	_ KeptDocuments = (*review.KeptService)(nil)
	_ Retention     = (*review.RetentionService)(nil)
	_ Deciding      = decisions{}
)
