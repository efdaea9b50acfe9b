package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Ageing: when an item entered its status (items.since), and what an item
// row and a listing's filter carry for triage with it: its age and its
// snooze.

// Triage is what the cache adds to an item for triage.
type Triage struct {
	// EnteredStatus is when the item entered its current status (zero:
	// unknown): the service's status_since where it gave one, else the
	// updated_at of the answer in which the cache first saw the status.
	EnteredStatus time.Time
	SnoozedUntil  time.Time // zero: not snoozed (a past date is still shown here until woken)
	SnoozeReason  string
}

// Snoozed reports whether the item is hidden from "needs my action" at now.
func (t Triage) Snoozed(now time.Time) bool { return now.Before(t.SnoozedUntil) }

// TriageFilter narrows a listing by age and snooze.
type TriageFilter struct {
	Snoozed   bool          // only items snoozed now
	OlderThan time.Duration // only items waiting (not scored) in their status at least this long
	// IDs, when not nil, keeps only these items (the new items a sync
	// brought that need the reviewer); an empty list keeps none.
	IDs []string
	// AwaitingConfirmation keeps the items whose current decision awaits
	// a second reviewer and whose author is not ItemFilter.Me: those that
	// await her confirmation (contract 1.2; the partial index
	// items_awaiting_confirmation holds them).
	AwaitingConfirmation bool
}

// waitingSQL is policy.Waits in SQL, for an item (i): its status waits for
// someone, so its age matters; a scored item does not age. It is built
// from policy, and TestWaitingSQLIsPolicyWaits holds it to Waits for every
// status.
var waitingSQL = "i.status NOT IN " + sqlStates(slices.DeleteFunc(policy.Statuses(), policy.Waits))

const triageColumns = ` i.since, sz.until, sz.reason`

const triageJoin = `
	LEFT JOIN snoozes sz ON sz.item_id = i.id`

type triageScan struct {
	since, until sql.NullInt64
	reason       sql.NullString
}

func (t *triageScan) dest() []any { return []any{&t.since, &t.until, &t.reason} }

func (t *triageScan) triage() Triage {
	return Triage{EnteredStatus: fromMS(t.since.Int64), SnoozedUntil: fromMS(t.until.Int64), SnoozeReason: t.reason.String}
}

// where adds the filter's conditions. "Needs my action" leaves out what is
// snoozed now; a snooze whose date has come is no snooze, with no process
// needed to end it.
func (f TriageFilter) where(where []string, args []any, now time.Time, needsAction bool) ([]string, []any) {
	switch {
	case f.Snoozed:
		where, args = append(where, "sz.until > ?"), append(args, ms(now))
	case needsAction:
		where, args = append(where, "(sz.until IS NULL OR sz.until <= ?)"), append(args, ms(now))
	}
	if f.OlderThan > 0 {
		where = append(where, waitingSQL+" AND i.since <= ?")
		args = append(args, ms(now.Add(-f.OlderThan)))
	}
	switch {
	case f.IDs == nil:
	case len(f.IDs) == 0:
		where = append(where, "0")
	default:
		where = append(where, "i.id IN (?"+strings.Repeat(",?", len(f.IDs)-1)+")")
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	return where, args
}

// OldestWaiting returns, per batch, when its longest-waiting item (not
// scored, not snoozed now) entered its status. Batches with none are absent.
func (s *TriageStore) OldestWaiting(ctx context.Context, batchIDs []string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	if len(batchIDs) == 0 {
		return out, nil
	}
	args := []any{ms(s.now())}
	for _, id := range batchIDs {
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT i.batch_id, MIN(i.since) FROM items i
		LEFT JOIN snoozes sz ON sz.item_id = i.id AND sz.until > ?
		WHERE `+waitingSQL+` AND sz.item_id IS NULL AND i.batch_id IN (?`+strings.Repeat(",?", len(batchIDs)-1)+`)
		GROUP BY i.batch_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var since int64
		if err := rows.Scan(&id, &since); err != nil {
			return nil, err
		}
		out[id] = fromMS(since)
	}
	return out, rows.Err()
}
