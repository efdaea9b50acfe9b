package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Applied counts the rows a page changed.
type Applied struct {
	Batches int
	Items   int
	// Held is how many batches of the page the cache already held exactly
	// as sent: the batches of the position's own instant, which an
	// "at or after" request returns again. They are not written.
	Held        int
	HeldItems   int   // the items of those batches
	HeldInvalid int   // of which invalid answers
	HeldIndexes []int // where those batches are in the page, in its order
}

const upsertBatchSQL = `INSERT INTO batches(id, customer_ref, created_at, updated_at) VALUES (?, ?, ?, ?)
	ON CONFLICT(id) DO UPDATE SET customer_ref = excluded.customer_ref, created_at = excluded.created_at,
		updated_at = excluded.updated_at
	WHERE excluded.updated_at > batches.updated_at
	   OR (excluded.updated_at = batches.updated_at AND batches.customer_ref <> excluded.customer_ref)`

// An item row is replaced only by a newer (or equally new but different)
// state of it: an older answer arriving late never undoes a newer one.
const upsertItemSQL = `INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, risk_score,
		recommendation, layers, error_code, reported_code, error_message, problem, attempt, updated_at,
		revision, status_since, claim_reviewer, claim_expires_at, since, raw)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT(id) DO UPDATE SET batch_id = excluded.batch_id, kind = excluded.kind, file_name = excluded.file_name,
		media_type = excluded.media_type, size_bytes = excluded.size_bytes, status = excluded.status,
		risk_score = excluded.risk_score, recommendation = excluded.recommendation, layers = excluded.layers,
		error_code = excluded.error_code, reported_code = excluded.reported_code,
		error_message = excluded.error_message, problem = excluded.problem, attempt = excluded.attempt,
		updated_at = excluded.updated_at,
		revision = excluded.revision, status_since = excluded.status_since,
		claim_reviewer = excluded.claim_reviewer, claim_expires_at = excluded.claim_expires_at, raw = excluded.raw,
		since = CASE WHEN items.status IS NOT excluded.status
		               OR (excluded.status_since IS NOT NULL AND excluded.status_since IS NOT items.status_since)
		             THEN excluded.since ELSE items.since END
	WHERE excluded.updated_at > items.updated_at
	   OR (excluded.updated_at = items.updated_at AND (items.status IS NOT excluded.status
	       OR items.risk_score IS NOT excluded.risk_score OR items.error_code IS NOT excluded.error_code
	       OR items.reported_code IS NOT excluded.reported_code OR items.attempt IS NOT excluded.attempt
	       OR items.problem IS NOT excluded.problem OR items.revision IS NOT excluded.revision
	       OR items.claim_reviewer IS NOT excluded.claim_reviewer OR items.claim_expires_at IS NOT excluded.claim_expires_at))`

// itemValues are an item's column values as the cache stores them, by
// name: the upsert takes them in its column order (args), and the check
// for a batch the cache already holds compares some of them (holds).
type itemValues struct {
	id, batchID, kind, fileName, mediaType  any
	sizeBytes, status, riskScore            any
	recommendation, layers, errorCode       any
	reportedCode, errorMessage, problem     any
	attempt, updatedAt, revision            any
	statusSince, claimReviewer, claimExpiry any
	since, raw                              any
}

// args are the values in the order of upsertItemSQL's columns.
func (v itemValues) args() []any {
	return []any{v.id, v.batchID, v.kind, v.fileName, v.mediaType, v.sizeBytes, v.status, v.riskScore,
		v.recommendation, v.layers, v.errorCode, v.reportedCode, v.errorMessage, v.problem, v.attempt, v.updatedAt,
		v.revision, v.statusSince, v.claimReviewer, v.claimExpiry, v.since, v.raw}
}

func itemArgs(it policy.Item) []any { return valuesOf(it).args() }

func valuesOf(it policy.Item) itemValues {
	var score, layers any
	if it.Status == policy.StatusScored && it.RiskScore != nil {
		score = int64(*it.RiskScore)
		if len(it.Layers) > 0 {
			layers = layersJSON(it.Layers)
		}
	}
	var rec any
	if it.Status == policy.StatusScored {
		rec = string(it.Recommendation)
	}
	var code, raw any
	if it.Status == policy.StatusError || it.Status == policy.StatusInvalid {
		code = string(it.ErrorCode)
	}
	if it.Status == policy.StatusInvalid {
		raw = nullStr(it.Raw)
	}
	return itemValues{id: it.ID, batchID: it.BatchID, kind: string(it.Kind), fileName: it.FileName,
		mediaType: it.MediaType, sizeBytes: it.SizeBytes, status: string(it.Status), riskScore: score,
		recommendation: rec, layers: layers, errorCode: code, reportedCode: nullStr(it.ReportedCode),
		errorMessage: nullStr(it.ErrorMessage), problem: nullStr(it.Problem), attempt: int64(it.Attempt),
		updatedAt: ms(it.UpdatedAt), revision: it.Revision, statusSince: nullMS(it.StatusSince),
		claimReviewer: claimReviewer(it), claimExpiry: claimExpires(it), since: sinceMS(it), raw: raw}
}

// sinceMS is when the item entered its status, as far as this answer says:
// the service's status_since, else the answer's updated_at. The upsert
// keeps what the cache had when the status is the same and no
// status_since is reported.
func sinceMS(it policy.Item) int64 {
	if !it.StatusSince.IsZero() {
		return ms(it.StatusSince)
	}
	return ms(it.UpdatedAt)
}

// layersJSON is json.Marshal(layers), byte for byte, without its
// reflection and sorting allocations for the common case (plain names,
// numbers printed without an exponent); anything else goes to json.Marshal.
func layersJSON(layers map[string]float64) string {
	var names [8]string
	keys := names[:0]
	for k := range layers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := make([]byte, 0, 16*len(keys)+2)
	b = append(b, '{')
	for i, k := range keys {
		v := layers[k]
		if a := math.Abs(v); !plainName(k) || (a != 0 && (a < 1e-6 || a >= 1e21)) {
			j, _ := json.Marshal(layers)
			return string(j)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return string(append(b, '}'))
}

func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return s != ""
}

// ApplyPage writes one page of batches and their items in one transaction
// and advances the sync position to the newest change it holds, never past
// the console's clock plus policy.MaxClockSkew. It writes
// only what changed, and reports how much that was.
//
// The page is written under a context that cannot be cancelled: go-sqlite3
// runs each statement of a cancellable context in a goroutine of its own
// (two thread hand-offs per row), and a page is short. Cancellation is
// checked before the page, so a sync stops between pages.
func (s *SyncStore) ApplyPage(ctx context.Context, batches []policy.Batch) (Applied, error) {
	var n Applied
	err := ctx.Err()
	if err != nil {
		return n, err
	}
	ctx = context.WithoutCancel(ctx)
	batches, n.HeldIndexes, n.HeldItems, n.HeldInvalid, err = s.dropHeld(ctx, batches)
	n.Held = len(n.HeldIndexes)
	if err != nil || len(batches) == 0 {
		return n, err
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		bs, err := tx.PrepareContext(ctx, upsertBatchSQL)
		if err != nil {
			return err
		}
		defer bs.Close()
		rows := newItemRows(tx)
		defer rows.close()
		files := newFileRows(tx)
		defer files.close()
		pos, err := getState(ctx, tx, keyPosition)
		if err != nil {
			return err
		}
		newest := pos
		// A batch dated ahead of the console's clock (beyond the allowed
		// skew) is kept, but never becomes the position: every later sync
		// would ask for changes after a date that has not come.
		limit := s.now()
		for _, b := range batches {
			res, err := bs.ExecContext(ctx, b.ID, b.CustomerRef, ms(b.CreatedAt), ms(b.UpdatedAt))
			if err != nil {
				return fmt.Errorf("batch %s: %w", b.ID, err)
			}
			k, _ := res.RowsAffected()
			n.Batches += int(k)
			// A batch's items go in one statement: one trip through
			// database/sql, cgo and a statement journal per batch, not per item.
			k, err = rows.upsert(ctx, b.Items)
			if err != nil {
				return fmt.Errorf("batch %s: %w", b.ID, err)
			}
			n.Items += int(k)
			for _, it := range b.Items {
				if err := applyNotes(ctx, tx, it); err != nil {
					return err
				}
				if err := applyDecisions(ctx, tx, it, limit); err != nil { // decisions.go
					return err
				}
			}
			if err := files.apply(ctx, b.Items); err != nil { // documents.go
				return fmt.Errorf("batch %s: %w", b.ID, err)
			}
			if !policy.AheadOf(b.UpdatedAt, limit) {
				newest = max(newest, ms(b.UpdatedAt))
			}
		}
		if newest != pos {
			return setState(ctx, tx, keyPosition, newest)
		}
		return nil
	})
	return n, err
}

// upsertItem writes an item the service sent, its notes and its
// decisions; now is when, for the audit of a decision it brings.
func upsertItem(ctx context.Context, tx *sql.Tx, it policy.Item, now time.Time) error {
	if _, err := tx.ExecContext(ctx, upsertItemSQL, itemArgs(it)...); err != nil {
		return err
	}
	if err := applyFiles(ctx, tx, it); err != nil { // documents.go
		return err
	}
	if err := applyNotes(ctx, tx, it); err != nil {
		return err
	}
	return applyDecisions(ctx, tx, it, now) // decisions.go
}

// applyNotes keeps the notes the service sent with an item. A note the
// cache already holds (by the service's id) is left as it is.
func applyNotes(ctx context.Context, tx *sql.Tx, it policy.Item) error {
	for _, n := range it.Notes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO notes(item_id, remote_id, author, text, state, created_at, updated_at)
			VALUES (?, ?, ?, ?, `+sqlState(policy.ActionDone)+`, ?, ?) ON CONFLICT(remote_id) DO NOTHING`,
			it.ID, n.ID, n.Author, n.Text, ms(n.CreatedAt), ms(n.CreatedAt)); err != nil {
			return fmt.Errorf("note %s of item %s: %w", n.ID, it.ID, err)
		}
	}
	return nil
}

// ApplyItem writes an item the service answered outside of an action (a
// claim, a release, a refusal carrying the item, a read after a note) and
// audits the event, if one is named.
func (s *SyncStore) ApplyItem(ctx context.Context, it policy.Item, reviewer, event, detail string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := upsertItem(ctx, tx, it, s.now()); err != nil {
			return fmt.Errorf("applying item %s: %w", it.ID, err)
		}
		if event == "" {
			return nil
		}
		return audit(ctx, tx, s.now(), reviewer, it.ID, 0, event, detail)
	})
}

// itemRows upserts items several to a statement, with a statement prepared
// once per transaction for each row count.
type itemRows struct {
	tx    *sql.Tx
	stmts map[int]*sql.Stmt
	args  []any
}

func newItemRows(tx *sql.Tx) *itemRows { return &itemRows{tx: tx, stmts: map[int]*sql.Stmt{}} }

func (r *itemRows) close() {
	for _, st := range r.stmts {
		st.Close()
	}
}

// upsertItemsSQL is upsertItemSQL for n rows.
func upsertItemsSQL(n int) string {
	i := strings.Index(upsertItemSQL, "VALUES (")
	j := strings.Index(upsertItemSQL, "\n\tON CONFLICT")
	row := upsertItemSQL[i+len("VALUES ") : j]
	return upsertItemSQL[:i] + "VALUES " + strings.Repeat(row+", ", n-1) + row + upsertItemSQL[j:]
}

// upsert writes items and returns how many rows it changed.
func (r *itemRows) upsert(ctx context.Context, items []policy.Item) (int64, error) {
	var changed int64
	for len(items) > 0 {
		chunk := items[:min(len(items), 10)]
		items = items[len(chunk):]
		st := r.stmts[len(chunk)]
		if st == nil {
			var err error
			if st, err = r.tx.PrepareContext(ctx, upsertItemsSQL(len(chunk))); err != nil {
				return changed, err
			}
			r.stmts[len(chunk)] = st
		}
		r.args = r.args[:0]
		for _, it := range chunk {
			r.args = append(r.args, itemArgs(it)...)
		}
		res, err := st.ExecContext(ctx, r.args...)
		if err != nil {
			return changed, err
		}
		k, _ := res.RowsAffected()
		changed += k
	}
	return changed, nil
}

// dropHeld removes from a page the batches the cache already holds exactly
// as sent. Only a batch at or before the sync position can be one: "at or
// after" returns the batches of the position's own instant again. A batch
// is held when its row and every item of it would be left as they are by
// the upserts (same updated_at, same state), and no other item is filed
// under it. It returns the rest, and where the held ones were in the page.
func (s *SyncStore) dropHeld(ctx context.Context, batches []policy.Batch) (out []policy.Batch, held []int, items, invalid int, err error) {
	pos, err := getState(ctx, s.db, keyPosition)
	if err != nil || pos == 0 {
		return batches, nil, 0, 0, err
	}
	for i, b := range batches {
		if ms(b.UpdatedAt) <= pos {
			same, err := s.holds(ctx, b)
			if err != nil {
				return nil, nil, 0, 0, err
			}
			if same {
				if len(held) == 0 {
					out = append(make([]policy.Batch, 0, len(batches)), batches[:i]...)
				}
				held, items = append(held, i), items+len(b.Items)
				for _, it := range b.Items {
					if it.Status == policy.StatusInvalid {
						invalid++
					}
				}
				continue
			}
		}
		if len(held) > 0 {
			out = append(out, b)
		}
	}
	if len(held) == 0 {
		return batches, nil, 0, 0, nil
	}
	return out, held, items, invalid, nil
}

const heldItemSQL = `SELECT COUNT(*) FROM items WHERE id = ? AND batch_id = ? AND (updated_at > ? OR (updated_at = ?
	AND status IS ? AND risk_score IS ? AND error_code IS ? AND reported_code IS ? AND attempt IS ? AND problem IS ?
	AND revision IS ? AND claim_reviewer IS ? AND claim_expires_at IS ? AND decisions_offered >= ?))`

// holds reports whether the cache holds batch b exactly as sent.
func (s *SyncStore) holds(ctx context.Context, b policy.Batch) (bool, error) {
	var k int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM batches WHERE id = ? AND updated_at = ? AND customer_ref = ?`,
		b.ID, ms(b.UpdatedAt), b.CustomerRef).Scan(&k)
	if err != nil || k == 0 {
		return false, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE batch_id = ?`, b.ID).Scan(&k); err != nil || k != len(b.Items) {
		return false, err
	}
	for _, it := range b.Items {
		v := valuesOf(it)
		// The state the upsert compares at the same instant (its WHERE).
		if err := s.db.QueryRowContext(ctx, heldItemSQL, v.id, v.batchID, v.updatedAt, v.updatedAt, v.status, v.riskScore,
			v.errorCode, v.reportedCode, v.attempt, v.problem, v.revision, v.claimReviewer, v.claimExpiry,
			offersDecisions(it)).Scan(&k); err != nil || k == 0 { // decisions.go: a cache without them does not hold a 1.2 answer
			return false, err
		}
	}
	return true, nil
}

// ActionRef is the newest action on an item.
type ActionRef struct {
	ID    int64              `json:"id"`
	Kind  policy.ActionKind  `json:"kind"`
	State policy.ActionState `json:"state"`
	Key   string             `json:"idempotency_key"`
	Code  policy.Code        `json:"last_error_code,omitempty"`
	// NotBefore: a queued action the service rate limited waits until then.
	NotBefore time.Time `json:"not_before,omitzero"`
}

// ItemRow is an item with its batch and its newest action.
type ItemRow struct {
	policy.Item
	CustomerRef string
	Action      *ActionRef // newest action, open or not
	Triage                 // age and snooze (ageing.go)
}

// OpenAction is the state of the item's open action, "" when none.
func (r ItemRow) OpenAction() policy.ActionState {
	if r.Action != nil && r.Action.State.Open() {
		return r.Action.State
	}
	return ""
}

// ItemFilter selects items. Zero fields select everything.
type ItemFilter struct {
	BatchID     string
	Status      policy.Status
	Code        policy.Code // the console's code
	Retryable   bool        // errors a person may re-submit
	NeedsAction bool        // retryable errors, errors needing a new file not yet requested, unknown outcomes
	Search      string      // in id, file name, customer reference
	SortBy      string      // file, kind, status, score, recommendation, code, updated, since (default: batch order)
	Desc        bool
	Limit       int
	Offset      int
	TriageFilter
	// Held keeps the items by who holds them now (claims.go): HeldFree,
	// HeldMine or HeldOthers, judged for Me; "" keeps every item.
	Held HeldFilter
	Me   string
}

var sortColumns = map[string]string{
	"file": "i.file_name", "kind": "i.kind", "status": "i.status", "score": "i.risk_score",
	"recommendation": "i.recommendation", "code": "i.error_code", "updated": "i.updated_at", "id": "i.id",
	"since": "i.since",
}

func retryableList() string {
	var q []string
	for _, c := range policy.ItemCodes() {
		if policy.Retryable(c) {
			q = append(q, "'"+string(c)+"'")
		}
	}
	return "(" + strings.Join(q, ",") + ")"
}

const itemColumns = `i.id, i.batch_id, i.kind, i.file_name, i.media_type, i.size_bytes, i.status, i.risk_score,
	i.recommendation, i.layers, i.error_code, i.reported_code, i.error_message, i.problem, i.attempt, i.updated_at,
	b.customer_ref, a.id, a.kind, a.state, a.idempotency_key, a.last_error_code, a.not_before,
	i.revision, i.status_since, i.claim_reviewer, i.claim_expires_at, ` + decisionItemColumns + `,` + triageColumns

const newestAction = `
	LEFT JOIN actions a ON a.id = (SELECT MAX(x.id) FROM actions x WHERE x.item_id = i.id)` + triageJoin

// itemFrom finds items by their own keys.
const itemFrom = ` FROM items i JOIN batches b ON b.id = i.batch_id` + newestAction

// listFrom walks batches newest first and their items in order, so that the
// default order needs no sort and a LIMIT stops early (CROSS JOIN fixes the
// loop order in SQLite).
// INDEXED BY keeps the inner loop on a batch's own items whatever other
// index a filter could tempt the planner with.
const listFrom = ` FROM batches b CROSS JOIN items i INDEXED BY items_batch ON i.batch_id = b.id` + newestAction

// ItemsQuery is the SQL and the arguments of a listing at the time now (a
// snooze or an age is relative to it): what Items and EachItem run (the
// performance suite gives it to the sqlite3 shell).
func ItemsQuery(f ItemFilter, now time.Time) (string, []any) {
	var where []string
	var args []any
	if f.BatchID != "" {
		where, args = append(where, "i.batch_id = ?"), append(args, f.BatchID)
	}
	if f.Status != "" {
		where, args = append(where, "i.status = ?"), append(args, string(f.Status))
	}
	if f.Code != "" {
		where, args = append(where, "i.error_code = ?"), append(args, string(f.Code))
	}
	if f.Retryable {
		where = append(where, "i.status = "+sqlState(policy.StatusError)+" AND i.error_code IN "+retryableList())
	}
	if f.NeedsAction {
		q, a := needsSQL(f.Me) // decisions.go
		where, args = append(where, q), append(args, a...)
	}
	where, args = f.Held.where(where, args, f.Me, now)
	if f.AwaitingConfirmation {
		// The state as a literal, as the partial index names it.
		where = append(where, "i.decision_state = "+sqlState(policy.DecisionAwaiting)+" AND i.decision_by IS NOT ?")
		args = append(args, f.Me)
	}
	where, args = f.TriageFilter.where(where, args, now, f.NeedsAction)
	if s := strings.TrimSpace(f.Search); s != "" {
		like := "%" + strings.NewReplacer("%", `\%`, "_", `\_`).Replace(s) + "%"
		where = append(where, `(i.id LIKE ? ESCAPE '\' OR i.file_name LIKE ? ESCAPE '\' OR b.customer_ref LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like)
	}
	from := listFrom
	if _, sorted := sortColumns[f.SortBy]; f.BatchID != "" || sorted || f.AwaitingConfirmation {
		// One batch, or a sort of its own: the batch walk would not spare
		// the sort, and it makes SQLite probe an index per batch. The
		// items awaiting confirmation are few: their own index holds them.
		from = itemFrom
	}
	q := "SELECT " + itemColumns + from
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	order := "b.created_at DESC, b.id DESC, i.id"
	if col, ok := sortColumns[f.SortBy]; ok {
		dir := "ASC"
		if f.Desc {
			dir = "DESC"
		}
		order = col + " " + dir + " NULLS LAST, i.id"
	}
	q += " ORDER BY " + order
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, max(f.Offset, 0))
	}
	return q, args
}

// Items lists items. A long listing should use EachItem, or pages of
// Limit and Offset: this one holds every row in memory.
func (s *ItemStore) Items(ctx context.Context, f ItemFilter) ([]ItemRow, error) {
	var out []ItemRow
	err := s.EachItem(ctx, f, func(r ItemRow) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// EachItem calls fn with each item of a listing, in order, as SQLite reads
// it: memory stays flat however many rows match. An error from fn stops
// the listing and is returned.
func (s *ItemStore) EachItem(ctx context.Context, f ItemFilter, fn func(ItemRow) error) error {
	q, args := ItemsQuery(f, s.now())
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var sc itemScan
	for rows.Next() {
		r, err := sc.scan(rows)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountItems is how many items a listing holds (Limit and Offset aside).
func (s *ItemStore) CountItems(ctx context.Context, f ItemFilter) (int, error) {
	f.Limit, f.Offset, f.SortBy = 0, 0, ""
	q, args := ItemsQuery(f, s.now())
	q = q[:strings.LastIndex(q, " ORDER BY ")]
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ("+q+")", args...).Scan(&n)
	return n, err
}

// Item returns one item, with the raw text of an invalid one (which
// listings do not read).
func (s *ItemStore) Item(ctx context.Context, id string) (ItemRow, error) {
	r, err := getItem(ctx, s.db, id)
	if err == nil && r.Status == policy.StatusInvalid {
		var raw sql.NullString
		err = s.db.QueryRowContext(ctx, `SELECT raw FROM items WHERE id = ?`, id).Scan(&raw)
		r.Raw = raw.String
	}
	return r, err
}

func getItem(ctx context.Context, q querier, id string) (ItemRow, error) {
	row := q.QueryRowContext(ctx, "SELECT "+itemColumns+itemFrom+" WHERE i.id = ?", id)
	r, err := scanItem(row)
	if errors.Is(err, sql.ErrNoRows) {
		return r, notFound("item", id)
	}
	return r, err
}

// ItemsByID returns the items of a selection that the cache holds, in the
// order given; ids it does not hold are left out.
func (s *ItemStore) ItemsByID(ctx context.Context, ids []string) ([]ItemRow, error) {
	byID := make(map[string]ItemRow, len(ids))
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		q := "SELECT " + itemColumns + itemFrom + " WHERE i.id IN (?" + strings.Repeat(",?", len(part)-1) + ")"
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			r, err := scanItem(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			byID[r.ID] = r
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	out := make([]ItemRow, 0, len(byID))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
			delete(byID, id) // a repeated id counts once
		}
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanItem(s scanner) (ItemRow, error) {
	var sc itemScan
	return sc.scan(s)
}

// itemScan holds the destinations of an item row's columns. A listing
// scans every row into the same one: database/sql's Scan takes pointers,
// and a row's variables handed to it would each go to the heap, row after
// row.
type itemScan struct {
	r                          ItemRow // the columns scanned as they are; nothing else is set in it
	score                      sql.NullInt64
	rec                        sql.NullString
	layers                     sql.NullString
	code                       sql.NullString
	reported, msg, problem     sql.NullString
	updated                    int64
	aID                        sql.NullInt64
	aKind, aState, aKey, aCode sql.NullString
	aNotBefore                 sql.NullInt64
	tm                         teamColumns
	cd                         currentDecision
	tr                         triageScan
	dest                       []any
}

func (sc *itemScan) scan(s scanner) (ItemRow, error) {
	if sc.dest == nil {
		r := &sc.r
		sc.dest = append([]any{&r.ID, &r.BatchID, &r.Kind, &r.FileName, &r.MediaType, &r.SizeBytes, &r.Status, &sc.score, &sc.rec,
			&sc.layers, &sc.code, &sc.reported, &sc.msg, &sc.problem, &r.Attempt, &sc.updated, &r.CustomerRef,
			&sc.aID, &sc.aKind, &sc.aState, &sc.aKey, &sc.aCode, &sc.aNotBefore, &r.Revision, &sc.tm.since, &sc.tm.reviewer, &sc.tm.expires},
			append(sc.cd.dest(), sc.tr.dest()...)...)
	}
	if err := s.Scan(sc.dest...); err != nil {
		return ItemRow{}, err
	}
	r := sc.r
	sc.tm.apply(&r.Item)
	sc.cd.apply(&r.Item) // decisions.go
	r.Triage = sc.tr.triage()
	r.UpdatedAt = fromMS(sc.updated)
	r.ErrorCode, r.ReportedCode, r.ErrorMessage, r.Problem = policy.Code(sc.code.String), sc.reported.String, sc.msg.String, sc.problem.String
	if r.Status == policy.StatusScored && sc.score.Valid {
		v := int(sc.score.Int64)
		r.RiskScore = &v
		r.Recommendation = policy.Recommendation(sc.rec.String)
		if sc.layers.Valid {
			_ = json.Unmarshal([]byte(sc.layers.String), &r.Layers)
		}
	}
	if sc.aID.Valid {
		r.Action = &ActionRef{ID: sc.aID.Int64, Kind: policy.ActionKind(sc.aKind.String), State: policy.ActionState(sc.aState.String),
			Key: sc.aKey.String, Code: policy.Code(sc.aCode.String)}
		if sc.aNotBefore.Valid {
			r.Action.NotBefore = fromMS(sc.aNotBefore.Int64)
		}
	}
	return r, nil
}

// BatchSummary is a batch with the counts a reviewer triages by.
type BatchSummary struct {
	ID          string
	CustomerRef string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Items       int
	Scored      int
	// Bands counts the scored items by risk band: low, medium, high,
	// critical (the bands given to Batches).
	Bands        [4]int
	Errors       int // errors and invalid answers
	Retryable    int
	AwaitingFile int
	OpenActions  int
	// MatchItem and MatchFile, in a search, are the first item of the
	// batch whose id or file name matched ("" when the batch itself did).
	MatchItem, MatchFile string
}

// SearchScope is how many of the newest batches a search looks into for
// items by a part of their id or file name. An item's whole id is found in
// any batch, by its index; a part of one, or of a file name, cannot use an
// index, so that search is bounded to the batches the window lists (500).
const SearchScope = 500

// Batches lists the newest batches (at most limit; 0 for all) matching a
// search: in their id or customer reference, or holding an item with the
// search as its whole id (any batch, by index) or in its id or file name
// (among the SearchScope newest batches). Scored items are counted in
// bands (policy.DefaultBands when they are not valid): the caller's
// settings, which the reviewer may change while the cache is open.
func (s *ItemStore) Batches(ctx context.Context, bands policy.Bands, search string, limit int) ([]BatchSummary, error) {
	inner := "SELECT id, customer_ref, created_at, updated_at, NULL AS match_item FROM batches"
	var args []any
	if s := strings.TrimSpace(search); s != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s) + "%"
		itemMatch := `(i.id LIKE ?1 ESCAPE '\' OR i.file_name LIKE ?1 ESCAPE '\')`
		inner = `WITH scope(id) AS (SELECT id FROM batches ORDER BY created_at DESC, id DESC LIMIT ` + fmt.Sprint(SearchScope) + `),
			hit(batch_id, item_id) AS MATERIALIZED (
				SELECT batch_id, MIN(id) FROM (
					SELECT i.batch_id, i.id FROM items i WHERE i.id = ?2
					UNION ALL
					SELECT i.batch_id, i.id FROM scope s JOIN items i ON i.batch_id = s.id WHERE ` + itemMatch + `)
				GROUP BY batch_id)
			SELECT b.id, b.customer_ref, b.created_at, b.updated_at,
				CASE WHEN b.customer_ref LIKE ?1 ESCAPE '\' OR b.id LIKE ?1 ESCAPE '\' THEN NULL ELSE h.item_id END AS match_item
			FROM batches b LEFT JOIN hit h ON h.batch_id = b.id
			WHERE b.customer_ref LIKE ?1 ESCAPE '\' OR b.id LIKE ?1 ESCAPE '\' OR h.item_id IS NOT NULL`
		args = append(args, like, s)
	}
	inner += " ORDER BY created_at DESC, id DESC"
	if limit > 0 {
		inner += fmt.Sprintf(" LIMIT %d", limit)
	}
	rb := bands
	if rb.Check() != nil {
		rb = policy.DefaultBands()
	}
	q := `SELECT b.id, b.customer_ref, b.created_at, b.updated_at, b.match_item, COALESCE(m.file_name, ''), COUNT(i.id),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusScored) + `), 0),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusScored) + ` AND i.risk_score < ` + fmt.Sprint(rb.Medium) + `), 0),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusScored) + ` AND i.risk_score >= ` + fmt.Sprint(rb.Medium) + ` AND i.risk_score < ` + fmt.Sprint(rb.High) + `), 0),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusScored) + ` AND i.risk_score >= ` + fmt.Sprint(rb.High) + ` AND i.risk_score < ` + fmt.Sprint(rb.Critical) + `), 0),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusScored) + ` AND i.risk_score >= ` + fmt.Sprint(rb.Critical) + `), 0),
		COALESCE(SUM(i.status IN ` + sqlStates([]policy.Status{policy.StatusError, policy.StatusInvalid}) + `), 0),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusError) + ` AND i.error_code IN ` + retryableList() + `), 0),
		COALESCE(SUM(i.status = ` + sqlState(policy.StatusAwaitingFile) + `), 0),
		COALESCE(SUM(EXISTS(SELECT 1 FROM actions a WHERE a.item_id = i.id AND a.state IN ` + openSQL + `)), 0)
		FROM (` + inner + `) b LEFT JOIN items i ON i.batch_id = b.id LEFT JOIN items m ON m.id = b.match_item
		GROUP BY b.id ORDER BY b.created_at DESC, b.id DESC`
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BatchSummary
	for rows.Next() {
		var s BatchSummary
		var c, u int64
		var match sql.NullString
		if err := rows.Scan(&s.ID, &s.CustomerRef, &c, &u, &match, &s.MatchFile, &s.Items, &s.Scored, &s.Bands[0], &s.Bands[1], &s.Bands[2], &s.Bands[3], &s.Errors, &s.Retryable, &s.AwaitingFile, &s.OpenActions); err != nil {
			return nil, err
		}
		s.CreatedAt, s.UpdatedAt, s.MatchItem = fromMS(c), fromMS(u), match.String
		out = append(out, s)
	}
	return out, rows.Err()
}

// Empty reports whether the cache holds no batch at all (never synced, or
// a first sync that wrote nothing): the window must not speak of cached
// data then.
func (s *ItemStore) Empty(ctx context.Context) (bool, error) {
	var any bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM batches)`).Scan(&any)
	return !any, err
}

// Counts is how many batches and items the cache holds.
func (s *ItemStore) Counts(ctx context.Context) (batches, items int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM batches), (SELECT COUNT(*) FROM items)`).Scan(&batches, &items)
	return
}
