package review

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// ItemView is an item as a reviewer triages it.
type ItemView struct {
	store.ItemRow
	Retryable bool
	Next      policy.Next
	Notes     int // how many notes it has, the ones on their way included
}

// Detail is an item with its history.
type Detail struct {
	ItemView
	Actions  []store.Action
	Attempts []store.Attempt
	Audit    []store.AuditEntry
	NoteRows []store.NoteRow // oldest first
}

func (s *Service) view(r store.ItemRow, sit policy.Situation) ItemView {
	sit.Item, sit.OpenAction = r.Item, r.OpenAction()
	return ItemView{ItemRow: r, Retryable: r.Status == policy.StatusError && policy.Retryable(r.ErrorCode), Next: policy.NextAction(sit)}
}

// Items lists items from the cache; it works with the API down.
func (s *Service) Items(ctx context.Context, f store.ItemFilter) ([]ItemView, error) {
	rows, err := s.db.Items(ctx, f)
	if err != nil {
		return nil, err
	}
	until, err := s.db.RateLimitedUntil(ctx)
	if err != nil {
		return nil, err
	}
	sit := policy.Situation{RateLimitedUntil: until, Now: s.now()}
	notes, err := s.db.NoteCounts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ItemView, len(rows))
	for i, r := range rows {
		out[i] = s.view(r, sit)
		out[i].Notes = notes[r.ID]
	}
	return out, nil
}

// Item returns one item with its actions, attempts and audit trail.
func (s *Service) Item(ctx context.Context, id string) (Detail, error) {
	r, err := s.db.Item(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	until, err := s.db.RateLimitedUntil(ctx)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{ItemView: s.view(r, policy.Situation{RateLimitedUntil: until, Now: s.now()})}
	if d.Actions, err = s.db.ItemActions(ctx, id); err != nil {
		return d, err
	}
	if d.Attempts, err = s.db.ItemAttempts(ctx, id); err != nil {
		return d, err
	}
	if d.Audit, err = s.db.ItemAudit(ctx, id); err != nil {
		return d, err
	}
	d.NoteRows, err = s.db.ItemNotes(ctx, id)
	d.Notes = len(d.NoteRows)
	return d, err
}

// Batches lists the newest batches matching a search.
func (s *Service) Batches(ctx context.Context, search string, limit int) ([]store.BatchSummary, error) {
	return s.db.Batches(ctx, search, limit)
}

// ExportCSV writes the items of a batch (all batches when empty) as CSV.
// A score is written only for a scored item; a cell that a spreadsheet
// would run as a formula is quoted with a leading apostrophe.
func (s *Service) ExportCSV(ctx context.Context, w io.Writer, batchID string) (int, error) {
	items, err := s.Items(ctx, store.ItemFilter{BatchID: batchID})
	if err != nil {
		return 0, err
	}
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"batch_id", "customer_ref", "item_id", "file_name", "kind", "status", "risk_score",
		"recommendation", "error_code", "reported_code", "retryable", "next_action", "open_action", "updated_at", "notes"})
	notes, err := s.db.AllNotes(ctx)
	if err != nil {
		return 0, err
	}
	for _, it := range items {
		score := ""
		if it.Checked() {
			score = strconv.Itoa(*it.RiskScore)
		}
		open := string(it.OpenAction())
		_ = cw.Write([]string{it.BatchID, safeCell(it.CustomerRef), it.ID, safeCell(it.FileName), string(it.Kind),
			string(it.Status), score, string(it.Recommendation), string(it.ErrorCode), safeCell(it.ReportedCode),
			strconv.FormatBool(it.Retryable), string(it.Next.Kind), open, it.UpdatedAt.Format("2006-01-02T15:04:05Z"),
			safeCell(notesCell(notes[it.ID]))})
	}
	cw.Flush()
	return len(items), cw.Error()
}

func safeCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
