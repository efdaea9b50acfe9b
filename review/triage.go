package review

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Seeing what waits: the risk band beside a score, how long an item has
// been in its status, snoozes, and saved views.

// TriageSettings are the numbers of triage (configuration).
type TriageSettings struct {
	Bands  policy.Bands
	Ageing policy.Ageing
}

// DefaultTriageSettings are the defaults: bands 40/70/85, warn 2 d,
// overdue 5 d.
func DefaultTriageSettings() TriageSettings {
	return TriageSettings{Bands: policy.DefaultBands(), Ageing: policy.DefaultAgeing()}
}

// SetTriage sets the bands and ageing thresholds; invalid ones are refused.
func (s *Service) SetTriage(t TriageSettings) error {
	if err := t.Bands.Check(); err != nil {
		return err
	}
	if err := t.Ageing.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.triage = t
	return nil
}

// Triage returns the settings in force.
func (s *Service) Triage() TriageSettings {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.triage.Bands.Check() != nil || s.triage.Ageing.Check() != nil {
		return DefaultTriageSettings()
	}
	return s.triage
}

// Aged is what triage adds to an item's view.
type Aged struct {
	Band     policy.Band     // "" for an item with no verdict: errors and invalid answers have none
	AgeLevel policy.AgeLevel // fresh, warn or overdue
	Age      string          // "3 d", "6 d · overdue", "" when unknown
	Snoozed  bool            // hidden from "needs my action" now
}

func (s *Service) aged(r store.ItemRow, now time.Time) Aged {
	t := s.Triage()
	band, _ := t.Bands.Of(r.Item)
	return Aged{Band: band, AgeLevel: t.Ageing.Level(r.Status, r.EnteredStatus, now),
		Age: t.Ageing.Describe(r.Status, r.EnteredStatus, now), Snoozed: r.Snoozed(now)}
}

// OldestWaiting returns, per batch, how long its longest-waiting item (not
// scored, not snoozed) has been in its status, and its level.
func (s *Service) OldestWaiting(ctx context.Context, batchIDs []string) (map[string]Aged, error) {
	since, err := s.db.OldestWaiting(ctx, batchIDs)
	if err != nil {
		return nil, err
	}
	t, now := s.Triage(), s.now()
	out := make(map[string]Aged, len(since))
	for id, at := range since {
		out[id] = Aged{AgeLevel: t.Ageing.Level(policy.StatusError, at, now), Age: t.Ageing.Describe(policy.StatusError, at, now)}
	}
	return out, nil
}

// Snooze hides an item from "needs my action" until a time, with a reason.
func (s *Service) Snooze(ctx context.Context, itemID string, until time.Time, reason string) error {
	return s.db.Snooze(ctx, itemID, until, reason, s.who())
}

// Wake ends an item's snooze now.
func (s *Service) Wake(ctx context.Context, itemID string) error {
	return s.db.Wake(ctx, itemID, s.who())
}

// WakeDue records, in the audit log, the snoozes whose date has come, and
// returns their items. They are back in "needs my action" whether or not
// this runs.
func (s *Service) WakeDue(ctx context.Context) ([]string, error) { return s.db.WakeDue(ctx) }

// ViewFilter is the filters and sort a saved view keeps (its JSON is kept
// in the cache, so the names are a stored format).
type ViewFilter struct {
	BatchID     string        `json:"batch_id,omitempty"`
	Status      policy.Status `json:"status,omitempty"`
	Code        policy.Code   `json:"code,omitempty"`
	Retryable   bool          `json:"retryable,omitempty"`
	NeedsAction bool          `json:"needs_action,omitempty"`
	Snoozed     bool          `json:"snoozed,omitempty"`
	Overdue     bool          `json:"overdue,omitempty"` // waiting at least the overdue threshold
	Search      string        `json:"search,omitempty"`
	SortBy      string        `json:"sort_by,omitempty"` // as store.ItemFilter; "since" is oldest first
	Desc        bool          `json:"desc,omitempty"`
}

// View is a named ViewFilter. Built-in views cannot be renamed or deleted.
type View struct {
	Name    string
	Builtin bool
	Filter  ViewFilter
}

// Names of the built-in views.
const (
	ViewNeedsMyAction = "Needs my action, oldest first"
	ViewOverdue       = "Overdue"
)

// BuiltinViews are the views every cache has.
func BuiltinViews() []View {
	return []View{
		{Name: ViewNeedsMyAction, Builtin: true, Filter: ViewFilter{NeedsAction: true, SortBy: "since"}},
		{Name: ViewOverdue, Builtin: true, Filter: ViewFilter{Overdue: true, SortBy: "since"}},
	}
}

func isBuiltin(name string) bool {
	for _, v := range BuiltinViews() {
		if strings.EqualFold(v.Name, strings.TrimSpace(name)) {
			return true
		}
	}
	return false
}

// ItemFilter turns a view's filter into the store's, with the overdue
// threshold in force.
func (s *Service) ItemFilter(v ViewFilter) store.ItemFilter {
	f := store.ItemFilter{BatchID: v.BatchID, Status: v.Status, Code: v.Code, Retryable: v.Retryable,
		NeedsAction: v.NeedsAction, Search: v.Search, SortBy: v.SortBy, Desc: v.Desc}
	f.Snoozed = v.Snoozed
	if v.Overdue {
		f.OlderThan = s.Triage().Ageing.Overdue
	}
	return f
}

// Views lists the built-in views, then the saved ones, oldest first: the
// order of Ctrl+1…9.
func (s *Service) Views(ctx context.Context) ([]View, error) {
	saved, err := s.db.Views(ctx)
	if err != nil {
		return nil, err
	}
	out := BuiltinViews()
	for _, sv := range saved {
		v := View{Name: sv.Name}
		if err := json.Unmarshal([]byte(sv.Spec), &v.Filter); err != nil {
			continue // a view this version cannot read is not offered
		}
		out = append(out, v)
	}
	return out, nil
}

// SaveView keeps the filters and sort under a name (replacing a saved view
// of that name).
func (s *Service) SaveView(ctx context.Context, name string, f ViewFilter) error {
	if isBuiltin(name) {
		return policy.Errorf(policy.CodeConflict, "%q is a built-in view; choose another name", strings.TrimSpace(name))
	}
	spec, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return s.db.SaveView(ctx, name, string(spec))
}

// RenameView renames a saved view.
func (s *Service) RenameView(ctx context.Context, from, to string) error {
	if isBuiltin(from) || isBuiltin(to) {
		return policy.Errorf(policy.CodeConflict, "the built-in views keep their names")
	}
	return s.db.RenameView(ctx, from, to)
}

// DeleteView deletes a saved view.
func (s *Service) DeleteView(ctx context.Context, name string) error {
	if isBuiltin(name) {
		return policy.Errorf(policy.CodeConflict, "%q is a built-in view and cannot be deleted", name)
	}
	return s.db.DeleteView(ctx, name)
}
