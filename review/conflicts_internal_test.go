package review

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// What a 412 says happened depends on what the reviewer saw: the revision
// they acted on, the cached item when the cache still holds it, when they
// queued the action. A cache that moved on, or could not be read, must not
// make the sentence wrong: it says less, never something false.
func TestConflictSentenceSaysOnlyWhatIsKnown(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := &core{now: func() time.Time { return now }, reviewer: "ana"}
	noteAt := now.Add(-3*time.Hour - time.Minute)
	// The service stamps a note, then the item's change, a moment later.
	answer := policy.Item{ID: "itm_1", Status: policy.StatusError, ErrorCode: policy.CodeSourceUnreachable, Attempt: 1,
		UpdatedAt: noteAt.Add(time.Millisecond), Team: policy.Team{Revision: 4,
			Notes: []policy.Note{{ID: "nte_1", Author: "ben", Text: "sharper scan coming", CreatedAt: noteAt}}}}
	at := func(rev int64, updated time.Time) policy.Item {
		it := answer
		it.Notes, it.Revision, it.UpdatedAt = nil, rev, updated
		return it
	}
	tests := []struct {
		name  string
		v     seen
		later time.Duration // the answer's change came this long after the note
		want  string
	}{
		{"the cache still holds the revision acted on",
			seen{item: at(3, noteAt.Add(-time.Hour)), cached: true, revision: 3, at: noteAt.Add(-30 * time.Minute)},
			0, "Ben added a note 3 h ago"},
		{"a sync brought the note's revision before the flush",
			seen{item: at(4, answer.UpdatedAt), cached: true, revision: 3, at: noteAt.Add(-30 * time.Minute)},
			0, "Ben added a note 3 h ago"},
		{"the note was already there when the reviewer acted",
			seen{item: at(3, noteAt.Add(time.Millisecond)), cached: true, revision: 3, at: noteAt.Add(2 * time.Minute)},
			10 * time.Minute, "changed 2 h ago: now failed with SOURCE_UNREACHABLE (revision 4; you saw 3)"},
		{"the cache cannot be read, the action was queued before the note",
			seen{revision: 3, at: noteAt.Add(-30 * time.Minute)},
			0, "Ben added a note 3 h ago"},
		{"the cache cannot be read, the note is older than the action",
			seen{revision: 3, at: noteAt.Add(time.Minute)},
			0, "changed 3 h ago: now failed with SOURCE_UNREACHABLE (revision 4; you saw 3)"},
		{"the cache cannot be read, nothing queued (a claim, a note)",
			seen{},
			0, "changed 3 h ago: now failed with SOURCE_UNREACHABLE (revision 4)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := answer
			if tc.later > 0 {
				it.UpdatedAt = noteAt.Add(tc.later)
			}
			if got := s.conflictSentence(tc.v, &client.Error{Code: policy.CodeItemChanged, Item: &it}); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
