package store

import (
	"context"
	"database/sql"
	"fmt"
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

const upsertFileVersionSQL = `INSERT INTO file_versions(item_id, version, file_name, media_type, size_bytes, uploaded_at)
	VALUES (?, ?, ?, ?, ?, ?)
	ON CONFLICT(item_id, version) DO UPDATE SET file_name = excluded.file_name, media_type = excluded.media_type,
		size_bytes = excluded.size_bytes, uploaded_at = excluded.uploaded_at
	WHERE file_name IS NOT excluded.file_name OR media_type IS NOT excluded.media_type
	   OR size_bytes IS NOT excluded.size_bytes OR uploaded_at IS NOT excluded.uploaded_at`

// A result is recorded when it differs from the one the version has, so
// that recorded_at is when the console first saw it.
const upsertFileResultSQL = `INSERT INTO file_results(item_id, version, status, risk_score, error_code, reported_code, recorded_at)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT(item_id, version) DO UPDATE SET status = excluded.status, risk_score = excluded.risk_score,
		error_code = excluded.error_code, reported_code = excluded.reported_code, recorded_at = excluded.recorded_at
	WHERE status IS NOT excluded.status OR risk_score IS NOT excluded.risk_score
	   OR error_code IS NOT excluded.error_code OR reported_code IS NOT excluded.reported_code`

// fileRows writes the versions and results of the items of a page, with
// statements prepared once per transaction.
type fileRows struct {
	tx              *sql.Tx
	version, result *sql.Stmt
}

func (r *fileRows) close() {
	for _, st := range []*sql.Stmt{r.version, r.result} {
		if st != nil {
			st.Close()
		}
	}
}

func (r *fileRows) exec(ctx context.Context, st **sql.Stmt, q string, args ...any) error {
	if *st == nil {
		p, err := r.tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		*st = p
	}
	_, err := (*st).ExecContext(ctx, args...)
	return err
}

// apply writes an item's file versions and records its result for the
// newest of them. An item from a 1.0 service (no versions listed) writes
// nothing.
func (r *fileRows) apply(ctx context.Context, it policy.Item) error {
	if len(it.Files) == 0 {
		return nil
	}
	for _, f := range it.Files {
		if err := r.exec(ctx, &r.version, upsertFileVersionSQL, it.ID, f.Version, f.FileName, f.MediaType, f.SizeBytes, ms(f.UploadedAt)); err != nil {
			return fmt.Errorf("file version %d of item %s: %w", f.Version, it.ID, err)
		}
	}
	v := valuesOf(it)
	newest := it.Files[len(it.Files)-1].Version
	if err := r.exec(ctx, &r.result, upsertFileResultSQL, it.ID, newest, v.status, v.riskScore, v.errorCode, v.reportedCode, ms(it.UpdatedAt)); err != nil {
		return fmt.Errorf("result of file version %d of item %s: %w", newest, it.ID, err)
	}
	return nil
}

func applyFiles(ctx context.Context, tx *sql.Tx, it policy.Item) error {
	r := &fileRows{tx: tx}
	defer r.close()
	return r.apply(ctx, it)
}

// FileVersions lists an item's file versions, oldest first, each with the
// result the console recorded for it. offered is false when the cache
// knows no version of the item (synced from a 1.0 service, or never since
// the cache kept versions).
func (db *DB) FileVersions(ctx context.Context, itemID string) (vs []FileVersion, err error) {
	rows, err := db.db.QueryContext(ctx, `SELECT v.version, v.file_name, v.media_type, v.size_bytes, v.uploaded_at,
			r.status, r.risk_score, r.error_code, r.reported_code, r.recorded_at
		FROM file_versions v LEFT JOIN file_results r ON r.item_id = v.item_id AND r.version = v.version
		WHERE v.item_id = ? ORDER BY v.version`, itemID)
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
