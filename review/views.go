package review

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

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
	// AwaitingConfirmation: the items whose current decision awaits a
	// second reviewer, not their author (contract 1.2).
	AwaitingConfirmation bool   `json:"awaiting_confirmation,omitempty"`
	Search               string `json:"search,omitempty"`
	SortBy               string `json:"sort_by,omitempty"` // as store.ItemFilter; "since" is oldest first
	Desc                 bool   `json:"desc,omitempty"`
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
func (s *TriageService) ItemFilter(v ViewFilter) store.ItemFilter {
	f := store.ItemFilter{BatchID: v.BatchID, Status: v.Status, Code: v.Code, Retryable: v.Retryable,
		NeedsAction: v.NeedsAction, Search: v.Search, SortBy: v.SortBy, Desc: v.Desc}
	f.Snoozed = v.Snoozed
	f.AwaitingConfirmation = v.AwaitingConfirmation
	if v.Overdue {
		f.OlderThan = s.triageSettings().Ageing.Overdue
	}
	return f
}

// Views lists the built-in views, then the saved ones, oldest first: the
// order of Ctrl+1…9.
func (s *TriageService) Views(ctx context.Context) ([]View, error) {
	saved, err := s.db.Triage.Views(ctx)
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
func (s *TriageService) SaveView(ctx context.Context, name string, f ViewFilter) error {
	if isBuiltin(name) {
		return policy.Errorf(policy.CodeConflict, "%q is a built-in view; choose another name", strings.TrimSpace(name))
	}
	spec, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return s.db.Triage.SaveView(ctx, name, string(spec))
}

// RenameView renames a saved view.
func (s *TriageService) RenameView(ctx context.Context, from, to string) error {
	if isBuiltin(from) || isBuiltin(to) {
		return policy.Errorf(policy.CodeConflict, "the built-in views keep their names")
	}
	return s.db.Triage.RenameView(ctx, from, to)
}

// DeleteView deletes a saved view.
func (s *TriageService) DeleteView(ctx context.Context, name string) error {
	if isBuiltin(name) {
		return policy.Errorf(policy.CodeConflict, "%q is a built-in view and cannot be deleted", name)
	}
	return s.db.Triage.DeleteView(ctx, name)
}
