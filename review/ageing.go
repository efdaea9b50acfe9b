package review

import (
	"context"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Seeing what waits: the risk band beside a score, and how long an item has
// been in its status.

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

// Settings are the triage settings in force (given at New).
func (s *TriageService) Settings() TriageSettings { return s.triageSettings() }

// triageSettings is Settings, shared by the services that need it.
func (s *core) triageSettings() TriageSettings {
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

func (s *core) aged(r store.ItemRow, now time.Time) Aged {
	t := s.triageSettings()
	band, _ := t.Bands.Of(r.Item)
	return Aged{Band: band, AgeLevel: t.Ageing.Level(r.Status, r.EnteredStatus, now),
		Age: t.Ageing.Describe(r.Status, r.EnteredStatus, now), Snoozed: r.Snoozed(now)}
}

// OldestWaiting returns, per batch, how long its longest-waiting item (not
// scored, not snoozed) has been in its status, and its level.
func (s *TriageService) OldestWaiting(ctx context.Context, batchIDs []string) (map[string]Aged, error) {
	since, err := s.db.Triage.OldestWaiting(ctx, batchIDs)
	if err != nil {
		return nil, err
	}
	t, now := s.triageSettings(), s.now()
	out := make(map[string]Aged, len(since))
	for id, at := range since {
		out[id] = Aged{AgeLevel: t.Ageing.Level(policy.StatusError, at, now), Age: t.Ageing.Describe(policy.StatusError, at, now)}
	}
	return out, nil
}
