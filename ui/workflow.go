package ui

import (
	"context"
	"io"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Workflow is everything the window asks of the reviewer's workflow, in
// one interface: a *review.Service is one (workflow.go holds the
// compile-time check), and the window never looks for more by type
// assertion.
type Workflow interface {
	// The connection and the sync (syncing.go).
	Sync(ctx context.Context, progress func(review.SyncProgress)) (review.SyncProgress, error)
	Flush(ctx context.Context) (review.FlushResult, error)
	Connectivity(ctx context.Context) (review.Connectivity, error)
	// Probe asks the API, cheaply, whether it answers (unless the breaker
	// or a Retry-After wait says not to call); it reports whether it called.
	Probe(ctx context.Context) (bool, error)
	// CacheVersion changes when the cache was changed by another
	// connection or process.
	CacheVersion(ctx context.Context) (int64, error)

	// The items' documents (preview.go, viewer.go).
	Documents
	// Purge applies the cache's retention (retention.go: once a day).
	Purge(ctx context.Context, olderThan time.Duration, dryRun bool) (review.Purged, error)

	// Who reviews, and where the name came from.
	Reviewer() string
	// ReviewerFromService reports whether the name came from the service
	// (GET /v1/me) rather than from this computer.
	ReviewerFromService() bool
	// APIVersion is the contract version the service speaks ("1.0" offers
	// no claims nor notes).
	APIVersion() string

	// Batches and items.
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

	// An item's actions.
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

	// Claims and notes (claims.go, notes.go).
	Claim(ctx context.Context, itemID string, ttl time.Duration) (policy.Item, error)
	Release(ctx context.Context, itemID string) (policy.Item, error)
	Next(ctx context.Context) (review.NextResult, error)
	AddNote(ctx context.Context, itemID, text string) (review.NoteResult, error)
	ClaimTTL() time.Duration
	// ClaimAway is how long she gives the window none of her input (or
	// leaves it out of the foreground) before a claim held only because
	// she looks at an item is let go (REVIEWER_CLAIM_AWAY).
	ClaimAway() time.Duration

	// Bulk runs (bulk.go; the bulk dialog needs only these).
	PlanResubmit(ctx context.Context, sel review.Selection) (review.Plan, error)
	PlanRequestFiles(ctx context.Context, sel review.Selection) (review.Plan, error)
	Confirm(ctx context.Context, p review.Plan) (review.Run, error)
	SendRun(ctx context.Context, runID int64, opts review.RunOptions) (review.RunResult, error)
	CancelRun(ctx context.Context, runID int64) ([]store.Action, error)

	// Snoozes and saved views (snooze.go, views.go).
	Snooze(ctx context.Context, itemID string, until time.Time, reason string) error
	Views(ctx context.Context) ([]review.View, error)
	SaveView(ctx context.Context, name string, f review.ViewFilter) error
	ItemFilter(v review.ViewFilter) store.ItemFilter
}

// The workflow the window runs on is a Workflow: a method the window
// needs that the service lacks fails the build, not a type assertion at
// run time.
var _ Workflow = (*review.Service)(nil)
