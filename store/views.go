package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// SavedView is a named set of filters and a sort; Spec is the workflow's
// JSON of it.
type SavedView struct {
	Name      string
	Spec      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SaveView creates a view or replaces the one of that name.
func (s *TriageStore) SaveView(ctx context.Context, name, spec string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return policy.Errorf(policy.CodeInvalidInput, "a view needs a name")
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		now := ms(s.now())
		_, err := tx.ExecContext(ctx, `INSERT INTO saved_views(name, spec, created_at, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(name) DO UPDATE SET spec = excluded.spec, updated_at = excluded.updated_at`, name, spec, now, now)
		return err
	})
}

// Views lists the saved views, oldest first (the order of Ctrl+1…9).
func (s *TriageStore) Views(ctx context.Context) ([]SavedView, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, spec, created_at, updated_at FROM saved_views ORDER BY created_at, name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SavedView
	for rows.Next() {
		var v SavedView
		var c, u int64
		if err := rows.Scan(&v.Name, &v.Spec, &c, &u); err != nil {
			return nil, err
		}
		v.CreatedAt, v.UpdatedAt = fromMS(c), fromMS(u)
		out = append(out, v)
	}
	return out, rows.Err()
}

// RenameView renames a view; the new name must be free.
func (s *TriageStore) RenameView(ctx context.Context, from, to string) error {
	to = strings.TrimSpace(to)
	if to == "" {
		return policy.Errorf(policy.CodeInvalidInput, "a view needs a name")
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE saved_views SET name = ?, updated_at = ? WHERE name = ?`, to, ms(s.now()), from)
		if isUniqueViolation(err) || isPrimaryKeyViolation(err) {
			return policy.Errorf(policy.CodeConflict, "a view named %q already exists", to)
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("view", from)
		}
		return nil
	})
}

// DeleteView deletes a view.
func (s *TriageStore) DeleteView(ctx context.Context, name string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM saved_views WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("view", name)
		}
		return nil
	})
}
