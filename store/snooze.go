package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Snooze hides an item from "needs my action" until a time, with a reason;
// it comes back by itself when the time comes. A new snooze replaces the
// item's old one. Both are in the audit log.
func (s *TriageStore) Snooze(ctx context.Context, itemID string, until time.Time, reason, reviewer string) error {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return policy.Errorf(policy.CodeInvalidInput, "a snooze needs a reason")
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		if !until.After(now) {
			return policy.Errorf(policy.CodeInvalidInput, "snooze until %s: the date has passed", until.Local().Format("2006-01-02 15:04"))
		}
		if _, err := getItem(ctx, tx, itemID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO snoozes(item_id, until, reason, reviewer, created_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(item_id) DO UPDATE SET until = excluded.until, reason = excluded.reason, reviewer = excluded.reviewer,
			created_at = excluded.created_at`, itemID, ms(until), reason, reviewer, ms(now)); err != nil {
			return err
		}
		return audit(ctx, tx, now, reviewer, itemID, 0, "snoozed until "+until.UTC().Format(time.RFC3339), reason)
	})
}

// Wake ends an item's snooze now (the reviewer's choice).
func (s *TriageStore) Wake(ctx context.Context, itemID, reviewer string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM snoozes WHERE item_id = ?`, itemID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return policy.Errorf(policy.CodeConflict, "item %s is not snoozed", itemID)
		}
		return audit(ctx, tx, s.now(), reviewer, itemID, 0, "snooze ended by the reviewer", "")
	})
}

// WakeDue removes the snoozes whose date has come and writes each in the
// audit log; it returns the items that came back. Listing does not need
// it (a past date is no snooze); it keeps the table and the audit tidy.
func (s *TriageStore) WakeDue(ctx context.Context) ([]string, error) {
	var woken []string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := s.now()
		rows, err := tx.QueryContext(ctx, `DELETE FROM snoozes WHERE until <= ? RETURNING item_id, reviewer, reason`, ms(now))
		if err != nil {
			return err
		}
		type w struct{ item, reviewer, reason string }
		var ws []w
		for rows.Next() {
			var x w
			if err := rows.Scan(&x.item, &x.reviewer, &x.reason); err != nil {
				rows.Close()
				return err
			}
			ws = append(ws, x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, x := range ws {
			if err := audit(ctx, tx, now, x.reviewer, x.item, 0, "snooze ended: the date came", x.reason); err != nil {
				return err
			}
			woken = append(woken, x.item)
		}
		return nil
	})
	return woken, err
}
