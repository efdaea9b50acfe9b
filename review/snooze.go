package review

import (
	"context"
	"time"
)

// Snooze hides an item from "needs my action" until a time, with a reason.
func (s *TriageService) Snooze(ctx context.Context, itemID string, until time.Time, reason string) error {
	return s.db.Triage.Snooze(ctx, itemID, until, reason, s.who())
}

// Wake ends an item's snooze now.
func (s *TriageService) Wake(ctx context.Context, itemID string) error {
	return s.db.Triage.Wake(ctx, itemID, s.who())
}

// WakeDue records, in the audit log, the snoozes whose date has come, and
// returns their items. They are back in "needs my action" whether or not
// this runs.
func (s *TriageService) WakeDue(ctx context.Context) ([]string, error) {
	return s.db.Triage.WakeDue(ctx)
}
