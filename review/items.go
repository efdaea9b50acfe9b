package review

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// ItemView is an item as a reviewer triages it.
type ItemView struct {
	store.ItemRow
	Retryable bool
	Next      policy.Next
	Notes     int // how many notes it has, the ones on their way included (notes.go)
	Aged          // risk band and age (ageing.go)
	// Holder is another reviewer's live claim on the item (nil: nobody
	// else holds it): its actions are off, with that reason.
	Holder *policy.Claim
	// At is the workflow's clock when the view was made: Next, Aged and
	// Holder are as of At, and so is any claim shown with it
	// (LiveClaim(At)).
	At time.Time
	// Me is the reviewer the view was made for: a decision awaiting
	// confirmation needs everyone but its author (decisions.go).
	Me string
}

// Detail is an item with its history.
type Detail struct {
	ItemView
	Actions  []store.Action
	Attempts []store.AttemptRow
	Audit    []store.AuditEntry
	NoteRows []store.NoteRow // oldest first (notes.go)
	// Decisions are the item's decisions, oldest first, the current one
	// last (contract 1.2; decisions.go).
	Decisions []policy.Decision
	// KeptFile is the name of the file a failed replacement of the item
	// kept for another try ("" when none; files.go).
	KeptFile string
}

// NeedsReviewer reports whether the reviewer is the one to act on the item
// next (policy.NeedsReviewerDecisions, the one definition: on a service
// that takes no decisions, policy.NeedsReviewer).
func (v ItemView) NeedsReviewer() bool {
	return policy.NeedsReviewerDecisions(policy.Situation{Item: v.Item, OpenAction: v.OpenAction()}, v.Me)
}

func (s *core) view(r store.ItemRow, sit policy.Situation) ItemView {
	sit.Item, sit.OpenAction = r.Item, r.OpenAction()
	return ItemView{ItemRow: r, Retryable: r.Status == policy.StatusError && policy.Retryable(r.ErrorCode), Next: policy.NextAction(sit),
		Aged: s.aged(r, sit.Now), Holder: r.HeldByOther(s.who(), sit.Now), At: sit.Now, Me: s.who()}
}

// Items lists items from the cache; it works with the API down. A long
// listing should use EachItem or a page (Limit, Offset).
func (s *TriageService) Items(ctx context.Context, f store.ItemFilter) ([]ItemView, error) {
	var out []ItemView
	err := s.EachItem(ctx, f, func(v ItemView) error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// EachItem calls fn with each item of a listing as the cache reads it, so
// that a listing of any length is written out in flat memory.
func (s *TriageService) EachItem(ctx context.Context, f store.ItemFilter, fn func(ItemView) error) error {
	return s.eachItem(ctx, f, fn)
}

// eachItem is EachItem, shared by the services that need it.
func (s *core) eachItem(ctx context.Context, f store.ItemFilter, fn func(ItemView) error) error {
	f = s.forMe(f)
	until, err := s.db.Sync.RateLimitedUntil(ctx)
	if err != nil {
		return err
	}
	sit := policy.Situation{RateLimitedUntil: until, Now: s.now()}
	notes, err := s.db.Notes.NoteCounts(ctx) // only items with notes: a small map
	if err != nil {
		return err
	}
	return s.db.Items.EachItem(ctx, f, func(r store.ItemRow) error {
		v := s.view(r, sit)
		v.Notes = notes[r.ID]
		return fn(v)
	})
}

// CountItems is how many items a listing holds: the window sizes its table
// with it and reads the rows a page at a time.
func (s *TriageService) CountItems(ctx context.Context, f store.ItemFilter) (int, error) {
	return s.db.Items.CountItems(ctx, s.forMe(f))
}

// forMe judges "needs the reviewer" for her when the filter names nobody
// (a decision awaiting confirmation needs everyone but its author).
func (s *core) forMe(f store.ItemFilter) store.ItemFilter {
	if f.Me == "" {
		f.Me = s.who()
	}
	return f
}

// Item returns one item with its actions, attempts and audit trail.
func (s *TriageService) Item(ctx context.Context, id string) (Detail, error) { return s.item(ctx, id) }

// item is Item, shared by the services that need it.
func (s *core) item(ctx context.Context, id string) (Detail, error) {
	r, err := s.db.Items.Item(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	until, err := s.db.Sync.RateLimitedUntil(ctx)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{ItemView: s.view(r, policy.Situation{RateLimitedUntil: until, Now: s.now()})}
	if d.Actions, err = s.db.Outbox.ItemActions(ctx, id); err != nil {
		return d, err
	}
	if d.Attempts, err = s.db.Evidence.ItemAttempts(ctx, id); err != nil {
		return d, err
	}
	if d.Audit, err = s.db.Evidence.ItemAudit(ctx, id); err != nil {
		return d, err
	}
	if d.KeptFile, _, err = s.db.Files.KeptFileName(ctx, id); err != nil {
		return d, err
	}
	if d.Decisions, err = s.db.Items.Decisions(ctx, id); err != nil { // decisions.go
		return d, err
	}
	d.NoteRows, err = s.db.Notes.ItemNotes(ctx, id)
	d.Notes = len(d.NoteRows)
	return d, err
}

// Batches lists the newest batches matching a search.
func (s *TriageService) Batches(ctx context.Context, search string, limit int) ([]store.BatchSummary, error) {
	return s.db.Items.Batches(ctx, s.triageSettings().Bands, search, limit)
}

// ExportCSV writes the items of a batch (all batches when empty) as CSV.
// A score is written only for a scored item. Every cell goes through
// safetext.CSVCell: control characters but newline and bidi controls are
// stripped, and one that a spreadsheet would run as a formula (ids and
// names come from the service) gets a leading apostrophe.
func (s *TriageService) ExportCSV(ctx context.Context, w io.Writer, batchID string) (int, error) {
	cw := csv.NewWriter(w)
	write := func(cells ...string) error {
		for i, c := range cells {
			cells[i] = safetext.CSVCell(c)
		}
		return cw.Write(cells)
	}
	_ = write("batch_id", "customer_ref", "item_id", "file_name", "kind", "status", "risk_score",
		"recommendation", "error_code", "reported_code", "retryable", "next_action", "open_action", "updated_at", "notes",
		"decision", "decision_reason", "decided_by", "decision_state", "confirmed_by") // decisions.go (1.2)
	notes, err := s.db.Notes.AllNotes(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	err = s.EachItem(ctx, store.ItemFilter{BatchID: batchID}, func(it ItemView) error {
		score := ""
		if it.Checked() {
			score = strconv.Itoa(*it.RiskScore)
		}
		n++
		decision := decisionCells(it.Item)
		// csv.Writer buffers; a failing writer shows in Error after a flush.
		return write(it.BatchID, it.CustomerRef, it.ID, it.FileName, string(it.Kind),
			string(it.Status), score, string(it.Recommendation), string(it.ErrorCode), it.ReportedCode,
			strconv.FormatBool(it.Retryable), string(it.Next.Kind), string(it.OpenAction()), it.UpdatedAt.Format("2006-01-02T15:04:05Z"),
			notesCell(notes[it.ID]), decision[0], decision[1], decision[2], decision[3], decision[4])
	})
	cw.Flush()
	if err != nil {
		return n, err
	}
	return n, cw.Error()
}

// sendable refuses, before anything is written or sent, an item whose id
// the service's paths cannot carry (policy.IDProblem): such an item is
// stored invalid by a sync, and nothing about it can ever be sent.
func sendable(itemID string) error {
	if problem := policy.IDProblem(itemID); problem != "" {
		return policy.Errorf(policy.CodeInvalidInput, "item %q cannot be named to the service (%s); nothing was sent", itemID, problem)
	}
	return nil
}
