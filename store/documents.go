package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// An item's file versions (contract 1.1), as the service lists them, and
// the result the console recorded for each (migration 00015). The bytes of
// a document never enter the cache: only the list and the results.

// VersionResult is the result the console recorded for one file version:
// its status, then its score (scored) or its code (error, invalid), and
// when. A version with no result recorded has a zero Status.
type VersionResult struct {
	Status       policy.Status
	RiskScore    *int
	ErrorCode    policy.Code
	ReportedCode string
	RecordedAt   time.Time
}

// FileVersion is a file version with the result recorded for it.
type FileVersion struct {
	policy.FileVersion
	Result VersionResult
}

// The versions of a batch's items, with the newest one's result, go in one
// statement (rows of at most fileChunk), as the items do: one trip through
// database/sql and cgo per batch, not per item.
const fileChunk = 200

const upsertFileVersionHead = `INSERT INTO file_versions(item_id, version, file_name, media_type, size_bytes, uploaded_at,
	status, risk_score, error_code, reported_code, recorded_at) VALUES `

// A row whose status is NULL (an older version) leaves the result alone;
// the newest version's result is written when it differs from the one
// recorded, and only then does recorded_at move.
const upsertFileVersionTail = `
	ON CONFLICT(item_id, version) DO UPDATE SET file_name = excluded.file_name, media_type = excluded.media_type,
		size_bytes = excluded.size_bytes, uploaded_at = excluded.uploaded_at,
		status = coalesce(excluded.status, status),
		risk_score = CASE WHEN excluded.status IS NULL THEN risk_score ELSE excluded.risk_score END,
		error_code = CASE WHEN excluded.status IS NULL THEN error_code ELSE excluded.error_code END,
		reported_code = CASE WHEN excluded.status IS NULL THEN reported_code ELSE excluded.reported_code END,
		recorded_at = CASE WHEN excluded.status IS NULL THEN recorded_at
			WHEN excluded.status IS NOT status OR excluded.risk_score IS NOT risk_score
			  OR excluded.error_code IS NOT error_code OR excluded.reported_code IS NOT reported_code
			THEN excluded.recorded_at ELSE recorded_at END
	WHERE file_name IS NOT excluded.file_name OR media_type IS NOT excluded.media_type
	   OR size_bytes IS NOT excluded.size_bytes OR uploaded_at IS NOT excluded.uploaded_at
	   OR (excluded.status IS NOT NULL AND (excluded.status IS NOT status OR excluded.risk_score IS NOT risk_score
	       OR excluded.error_code IS NOT error_code OR excluded.reported_code IS NOT reported_code))`

// fileRows writes the versions and results of items, with a statement
// prepared once per transaction for each row count.
type fileRows struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newFileRows(tx *sql.Tx) *fileRows { return &fileRows{tx: tx, stmts: map[string]*sql.Stmt{}} }

func (r *fileRows) close() {
	for _, st := range r.stmts {
		st.Close()
	}
}

// exec runs head + n rows of cols parameters + tail.
func (r *fileRows) exec(ctx context.Context, head, tail string, cols int, args []any) error {
	n := len(args) / cols
	key := fmt.Sprint(n)
	st := r.stmts[key]
	if st == nil {
		row := "(?" + strings.Repeat(", ?", cols-1) + ")"
		q := head + row + strings.Repeat(", "+row, n-1) + tail
		p, err := r.tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		r.stmts[key], st = p, p
	}
	_, err := st.ExecContext(ctx, args...)
	return err
}

// apply writes the file versions of items and records each item's result
// for the newest of its versions. An item from a 1.0 service (no versions
// listed) writes nothing.
func (r *fileRows) apply(ctx context.Context, items []policy.Item) error {
	const cols = 11
	var rows []any
	flush := func(force bool) error {
		if len(rows) > 0 && (force || len(rows)/cols >= fileChunk) {
			if err := r.exec(ctx, upsertFileVersionHead, upsertFileVersionTail, cols, rows); err != nil {
				return fmt.Errorf("file versions: %w", err)
			}
			rows = rows[:0]
		}
		return nil
	}
	for _, it := range items {
		newest := len(it.Files) - 1
		for i, f := range it.Files {
			rows = append(rows, it.ID, f.Version, f.FileName, f.MediaType, f.SizeBytes, ms(f.UploadedAt))
			// Awaiting a file is the item's state, not a result of its
			// newest file: the result that file got (the code that
			// refused it) stays recorded for it, and the viewer shows it.
			if i == newest && it.Status != policy.StatusAwaitingFile {
				v := valuesOf(it)
				rows = append(rows, v.status, v.riskScore, v.errorCode, v.reportedCode, ms(it.UpdatedAt))
			} else {
				rows = append(rows, nil, nil, nil, nil, nil)
			}
			if err := flush(false); err != nil {
				return err
			}
		}
	}
	return flush(true)
}

func applyFiles(ctx context.Context, tx *sql.Tx, it policy.Item) error {
	r := newFileRows(tx)
	defer r.close()
	return r.apply(ctx, []policy.Item{it})
}

// FileVersions lists an item's file versions, oldest first, each with the
// result the console recorded for it. offered is false when the cache
// knows no version of the item (synced from a 1.0 service, or never since
// the cache kept versions).
func (s *FileStore) FileVersions(ctx context.Context, itemID string) (vs []FileVersion, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version, file_name, media_type, size_bytes, uploaded_at,
			status, risk_score, error_code, reported_code, recorded_at
		FROM file_versions WHERE item_id = ? ORDER BY version`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var f FileVersion
		var uploaded int64
		var status, code, reported sql.NullString
		var score, recorded sql.NullInt64
		if err := rows.Scan(&f.Version, &f.FileName, &f.MediaType, &f.SizeBytes, &uploaded,
			&status, &score, &code, &reported, &recorded); err != nil {
			return nil, err
		}
		f.UploadedAt = fromMS(uploaded)
		if status.Valid {
			f.Result = VersionResult{Status: policy.Status(status.String), ErrorCode: policy.Code(code.String),
				ReportedCode: reported.String, RecordedAt: fromMS(recorded.Int64)}
			if f.Result.Status == policy.StatusScored && score.Valid {
				s := int(score.Int64)
				f.Result.RiskScore = &s
			}
		}
		vs = append(vs, f)
	}
	return vs, rows.Err()
}
