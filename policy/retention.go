package policy

import "time"

// DefaultRetention is how long the cache keeps a batch nobody touched
// (REVIEWER_RETENTION): 30 days.
const DefaultRetention = 720 * time.Hour

// RetainedItem is what the retention rule needs of one item of a cached
// batch: the item, the state of its open action ("" when none) and of its
// open note ("" when none: a note written here and not yet sent).
type RetainedItem struct {
	Item       Item
	OpenAction ActionState
	OpenNote   ActionState
}

// RetainedBatch is a cached batch as the retention rule sees it: its items
// and when anybody last touched it (a sync that brought a change, or a
// reviewer's action, note, snooze or claim on one of its items).
type RetainedBatch struct {
	ID        string
	Items     []RetainedItem
	TouchedAt time.Time
}

// MayForget reports whether the cache may remove a batch, with its items'
// actions, attempts and history, at now when batches are kept for keep: no
// item of it has an open action (queued, sending or unknown) or an unsent
// note, none needs the reviewer (NeedsReviewer), and nobody touched it for
// keep or longer. A keep of zero or less keeps everything: no period, no
// forgetting. This is the one definition of the rule; the store's SQL
// follows it (a test holds them together).
func MayForget(b RetainedBatch, now time.Time, keep time.Duration) bool {
	if keep <= 0 || now.Sub(b.TouchedAt) < keep {
		return false
	}
	for _, it := range b.Items {
		if it.OpenAction.Open() || it.OpenNote.Open() {
			return false
		}
		if NeedsReviewer(Situation{Item: it.Item, OpenAction: it.OpenAction, Now: now}) {
			return false
		}
	}
	return true
}
