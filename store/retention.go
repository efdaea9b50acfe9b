package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Retention: a batch that nobody touched for a period, and that nothing
// holds (no open action or unsent note, no item that needs the reviewer),
// is removed from the cache with its items, their actions, files, notes,
// attempts, snoozes and audit lines; the audit keeps one line for the
// batch. policy.MayForget is the rule; forgettableSQL is the same rule in
// SQL (TestForgettableFollowsPolicy holds them together on a real cache).
//
// A batch is touched when the cache received a change of it (its
// touched_at, kept by triggers: migration 00016) or when an audit line was
// written for one of its items (an action, a note, a snooze, an item the
// workflow re-read).

// ForgottenBatch is a batch the retention removed, or would remove.
type ForgottenBatch struct {
	ID          string    `json:"id"`
	CustomerRef string    `json:"customer_ref"`
	Items       int       `json:"items"`
	TouchedAt   time.Time `json:"touched_at"`
}

// RetentionEvent is the audit event of a batch the retention removed.
const RetentionEvent = "batch removed by retention"

// forgettableSQL selects the batches that may be forgotten: batch id, item
// count and the time of the last touch. Its one parameter, used twice, is
// the cut-off (now - keep, in ms): touched at or before it is old enough.
// The statuses and states come from policy (needingStatuses, openSQL):
// with no open action, an item needs the reviewer by its status alone.
var forgettableSQL = `SELECT b.id AS id, (SELECT COUNT(*) FROM items c WHERE c.batch_id = b.id) AS n, b.touched_at AS t
	FROM batches b
	WHERE b.touched_at IS NOT NULL AND b.touched_at <= ?1
	  AND NOT EXISTS (SELECT 1 FROM items i WHERE i.batch_id = b.id AND (
	        i.status IN ` + sqlStatuses(needingStatuses()) + `
	     OR EXISTS (SELECT 1 FROM actions a WHERE a.item_id = i.id AND a.state IN ` + openSQL + `)
	     OR EXISTS (SELECT 1 FROM notes n WHERE n.item_id = i.id AND n.state IN ` + openSQL + `)
	     OR EXISTS (SELECT 1 FROM audit u WHERE u.item_id = i.id AND u.at > ?1)))`

// purgedItems are the items of the batches being purged.
const purgedItems = `(SELECT i.id FROM items i JOIN retention_purge p ON p.batch_id = i.batch_id)`

// Forgettable lists the batches the retention would remove at now when
// batches are kept for keep (a dry run): nothing changes. A keep of zero
// or less keeps everything.
func (s *RetentionStore) Forgettable(ctx context.Context, now time.Time, keep time.Duration) ([]ForgottenBatch, error) {
	if keep <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.id, b.customer_ref, f.n, f.t FROM (`+forgettableSQL+`) AS f
		JOIN batches b ON b.id = f.id ORDER BY f.t, f.id`, ms(now.Add(-keep)))
	if err != nil {
		return nil, err
	}
	return scanForgotten(rows)
}

func scanForgotten(rows *sql.Rows) ([]ForgottenBatch, error) {
	defer rows.Close()
	var out []ForgottenBatch
	for rows.Next() {
		var f ForgottenBatch
		var t int64
		if err := rows.Scan(&f.ID, &f.CustomerRef, &f.Items, &t); err != nil {
			return nil, err
		}
		f.TouchedAt = fromMS(t)
		out = append(out, f)
	}
	return out, rows.Err()
}

// forgetChunk is how many batches one transaction of Forget removes: about
// 10,000 items, well under a second of the cache's write lock on 2 loaded
// cores, so that a note or an action of another process gets in between.
const forgetChunk = 1000

// Forget removes the batches the retention may remove at now when batches
// are kept for keep, and returns them. Each leaves one audit line
// (RetentionEvent, by reviewer). Each transaction removes at most
// forgetChunk batches with a fixed set of statements (no statement per
// row). Deleted content is overwritten in the file (secure_delete), and the
// write-ahead log is checkpointed afterwards when no reader holds it, so
// that what was forgotten does not linger in free pages.
func (s *RetentionStore) Forget(ctx context.Context, now time.Time, keep time.Duration, reviewer string) ([]ForgottenBatch, error) {
	if keep <= 0 {
		return nil, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA secure_delete = ON`); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA secure_delete = OFF`)
	var out []ForgottenBatch
	for {
		var chunk []ForgottenBatch
		err := busyError(func() error {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if chunk, err = forget(ctx, tx, now, keep, reviewer, forgetChunk); err != nil {
				return err
			}
			return tx.Commit()
		}(), s.busyTimeout)
		if err != nil {
			return out, err
		}
		out = append(out, chunk...)
		if len(chunk) < forgetChunk {
			break
		}
	}
	if len(out) > 0 {
		// Best effort: a reader that holds the log keeps it until it lets go.
		conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	return out, nil
}

// forget removes at most limit of the batches that may be forgotten, the
// ones untouched longest first, inside the caller's transaction.
func forget(ctx context.Context, tx *sql.Tx, now time.Time, keep time.Duration, reviewer string, limit int) ([]ForgottenBatch, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM retention_purge`); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO retention_purge(batch_id, items, touched_at) `+forgettableSQL+
		` ORDER BY b.touched_at, b.id LIMIT ?2`, ms(now.Add(-keep)), limit); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT p.batch_id, b.customer_ref, p.items, p.touched_at
		FROM retention_purge p JOIN batches b ON b.id = p.batch_id ORDER BY p.touched_at, p.batch_id`)
	if err != nil {
		return nil, err
	}
	out, err := scanForgotten(rows)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	// The audit line names the batch, not its customer: what was
	// forgotten leaves no reference to it behind.
	detail := fmt.Sprintf(`'batch ' || p.batch_id || ': ' || p.items || ' items, untouched since ' ||
		strftime('%%Y-%%m-%%d %%H:%%M UTC', p.touched_at / 1000, 'unixepoch') || ' (kept %s)'`, keep)
	for _, q := range []string{
		// Its history first: the audit's trigger lets an item's line go only
		// while its batch is in retention_purge.
		`DELETE FROM audit WHERE item_id IN ` + purgedItems,
		`DELETE FROM attempts WHERE action_id IN (SELECT a.id FROM actions a WHERE a.item_id IN ` + purgedItems + `)`,
		`DELETE FROM attempts WHERE item_id IN ` + purgedItems,
		`DELETE FROM bulk_run_actions WHERE action_id IN (SELECT a.id FROM actions a WHERE a.item_id IN ` + purgedItems + `)`,
		`DELETE FROM action_files WHERE action_id IN (SELECT a.id FROM actions a WHERE a.item_id IN ` + purgedItems + `)`,
		`DELETE FROM actions WHERE item_id IN ` + purgedItems,
		`DELETE FROM notes WHERE item_id IN ` + purgedItems,
		`INSERT INTO audit(at, reviewer, item_id, action_id, event, detail)
			SELECT ?, ?, NULL, NULL, '` + RetentionEvent + `', ` + detail + ` FROM retention_purge p ORDER BY p.touched_at, p.batch_id`,
		// The items go with their batch (ON DELETE CASCADE), and their
		// snoozes and recorded ages with them.
		`DELETE FROM batches WHERE id IN (SELECT batch_id FROM retention_purge)`,
		`DELETE FROM retention_purge`,
	} {
		var args []any
		if q[:6] == "INSERT" {
			args = []any{ms(now), reviewer}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return nil, fmt.Errorf("retention: %w", err)
		}
	}
	return out, nil
}
