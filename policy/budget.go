package policy

import "time"

// Default budget numbers. The request cap must stay above the service's
// classifier budget (10 s) so that a slow analysis is reported by the service,
// which knows the cause, and not cut by the console as an unknown outcome.
const (
	DefaultRequestCap       = 30 * time.Second
	DefaultConnectCap       = 5 * time.Second
	DefaultReserve          = 250 * time.Millisecond
	ServiceClassifierBudget = 10 * time.Second
)

// Budget turns an operation's deadline into the timeouts of one attempt.
type Budget struct {
	RequestCap time.Duration // the longest any one request may take
	ConnectCap time.Duration // the longest a connection may take to open
	Reserve    time.Duration // kept back to record the outcome
}

// DefaultBudget returns the budget with the default numbers.
func DefaultBudget() Budget {
	return Budget{RequestCap: DefaultRequestCap, ConnectCap: DefaultConnectCap, Reserve: DefaultReserve}
}

// Allocation is the time one attempt may use.
type Allocation struct {
	Request time.Duration
	Connect time.Duration
}

// Attempt returns the allocation of an attempt starting at now in an
// operation that must end by deadline:
//
//	request = min(request cap, deadline - now - reserve)
//	connect = min(connect cap, request)
//
// ok is false when request is zero or less: the attempt must not start.
func (b Budget) Attempt(now, deadline time.Time) (a Allocation, ok bool) {
	a.Request = deadline.Sub(now) - b.Reserve
	if b.RequestCap > 0 && a.Request > b.RequestCap {
		a.Request = b.RequestCap
	}
	if a.Request <= 0 {
		return Allocation{}, false
	}
	a.Connect = a.Request
	if b.ConnectCap > 0 && a.Connect > b.ConnectCap {
		a.Connect = b.ConnectCap
	}
	return a, true
}

// Deadline is the deadline of an operation starting at now that was given
// none: time for one full request and the reserve.
func (b Budget) Deadline(now time.Time) time.Time {
	return now.Add(b.RequestCap + b.Reserve)
}

// Lease is how long a sender holds an action before another process may
// take it over as an unknown outcome: the whole operation (the request cap
// and the reserve kept back to record its outcome) and one more reserve.
// Recording may take longer than that (the workflow allows it 10 s, for a
// cache busy with another writer): a sender taken over meanwhile is fenced,
// the store refuses its late write (store.ErrFenced), and the action, now
// unknown, is reconciled with its key. Nothing is ever sent with a new key.
func (b Budget) Lease() time.Duration { return b.RequestCap + 2*b.Reserve }

// DefaultMaxSyncPages is the most pages one sync reads before it takes the
// service for one whose pages never end (REVIEWER_SYNC_MAX_PAGES): 100,000
// pages of 100 batches of 10 items is a hundred million items, far beyond
// any reviewer's cache.
const DefaultMaxSyncPages = 100_000
