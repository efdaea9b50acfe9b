package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// A reviewer's claim on an item (contract 1.1) lives in the items table:
// who holds it and until when, as the service last said. teamColumns
// reads it from an item row together with status_since, the other column
// that contract 1.1 added.

func claimReviewer(it policy.Item) any {
	if it.Claim == nil {
		return nil
	}
	return it.Claim.Reviewer
}

func claimExpires(it policy.Item) any {
	if it.Claim == nil {
		return nil
	}
	return ms(it.Claim.ExpiresAt)
}

// teamColumns scans the 1.1 columns of an item row.
type teamColumns struct {
	since, expires sql.NullInt64
	reviewer       sql.NullString
}

func (tm teamColumns) apply(it *policy.Item) {
	if tm.since.Valid {
		it.StatusSince = fromMS(tm.since.Int64)
	}
	if tm.reviewer.Valid && tm.expires.Valid {
		it.Claim = &policy.Claim{Reviewer: tm.reviewer.String, ExpiresAt: fromMS(tm.expires.Int64)}
	}
}

// NextCandidates lists the items that need a reviewer and that nobody but
// me holds at now, oldest in their status first (items.since: the
// service's status_since, or the answer in which the cache saw the status).
func (s *TeamStore) NextCandidates(ctx context.Context, me string, now time.Time, limit int) ([]string, error) {
	needs, args := needsSQL(me) // decisions.go
	rows, err := s.db.QueryContext(ctx, `SELECT i.id FROM items i`+newestAction+`
		WHERE `+needs+`
		  AND (i.claim_reviewer IS NULL OR i.claim_reviewer = ? OR i.claim_expires_at <= ?)
		ORDER BY i.since, i.id LIMIT ?`, append(args, me, ms(now), limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// HeldFilter keeps items by who holds them at the listing's now, as
// policy.Team.LiveClaim judges it: a claim that has ended is no claim.
type HeldFilter string

const (
	HeldFree   HeldFilter = "free"   // nobody holds it
	HeldMine   HeldFilter = "mine"   // Me holds it
	HeldOthers HeldFilter = "others" // someone other than Me holds it
)

func (h HeldFilter) where(where []string, args []any, me string, now time.Time) ([]string, []any) {
	live := "(i.claim_reviewer IS NOT NULL AND i.claim_expires_at > ?)"
	switch h {
	case HeldFree:
		return append(where, "NOT "+live), append(args, ms(now))
	case HeldMine:
		return append(where, live+" AND i.claim_reviewer = ?"), append(args, ms(now), me)
	case HeldOthers:
		return append(where, live+" AND i.claim_reviewer <> ?"), append(args, ms(now), me)
	}
	return where, args
}
