package review

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// ItemView is an item as a reviewer triages it.
type ItemView struct {
	store.ItemRow
	Retryable bool
	Next      policy.Next
	Aged      // risk band and age (triage.go)
}

// Detail is an item with its history.
type Detail struct {
	ItemView
	Actions  []store.Action
	Attempts []store.Attempt
	Audit    []store.AuditEntry
}

func (s *Service) view(r store.ItemRow, sit policy.Situation) ItemView {
	sit.Item, sit.OpenAction = r.Item, r.OpenAction()
	return ItemView{ItemRow: r, Retryable: r.Status == policy.StatusError && policy.Retryable(r.ErrorCode), Next: policy.NextAction(sit),
		Aged: s.aged(r, sit.Now)}
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
	out := make([]ItemView, len(rows))
	for i, r := range rows {
		out[i] = s.view(r, sit)
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
	d.Audit, err = s.db.ItemAudit(ctx, id)
	return d, err
}

// Batches lists the newest batches matching a search.
func (s *Service) Batches(ctx context.Context, search string, limit int) ([]store.BatchSummary, error) {
	return s.db.Batches(ctx, search, limit)
}

// ExportCSV writes the items of a batch (all batches when empty) as CSV.
// A score is written only for a scored item. Every cell goes through
// safetext.CSVCell: one that a spreadsheet would run as a formula (ids and
// names come from the service) gets a leading apostrophe.
func (s *Service) ExportCSV(ctx context.Context, w io.Writer, batchID string) (int, error) {
	items, err := s.Items(ctx, store.ItemFilter{BatchID: batchID})
	if err != nil {
		return 0, err
	}
	cw := csv.NewWriter(w)
	write := func(cells ...string) {
		for i, c := range cells {
			cells[i] = safetext.CSVCell(c)
		}
		_ = cw.Write(cells)
	}
	write("batch_id", "customer_ref", "item_id", "file_name", "kind", "status", "risk_score",
		"recommendation", "error_code", "reported_code", "retryable", "next_action", "open_action", "updated_at")
	for _, it := range items {
		score := ""
		if it.Checked() {
			score = strconv.Itoa(*it.RiskScore)
		}
		write(it.BatchID, it.CustomerRef, it.ID, it.FileName, string(it.Kind),
			string(it.Status), score, string(it.Recommendation), string(it.ErrorCode), it.ReportedCode,
			strconv.FormatBool(it.Retryable), string(it.Next.Kind), string(it.OpenAction()), it.UpdatedAt.Format("2006-01-02T15:04:05Z"))
	}
	cw.Flush()
	return len(items), cw.Error()
}
