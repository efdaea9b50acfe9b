package cli

import (
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// A confirmation that stopped part-way on a busy cache queued actions:
// exit 5 (queued), never exit 8, which says nothing was written.
func TestAConfirmationStoppedPartWayExitsQueued(t *testing.T) {
	busy := policy.Errorf(policy.CodeCacheBusy, "the cache was busy")
	if got := confirmFailed(review.Run{}, busy); got != ExitCacheBusy {
		t.Fatalf("nothing queued: exit %d, want %d", got, ExitCacheBusy)
	}
	part := review.Run{Actions: []store.Action{{ID: 1, State: policy.ActionQueued}}}
	if got := confirmFailed(part, busy); got != ExitQueued {
		t.Fatalf("part queued: exit %d, want %d", got, ExitQueued)
	}
}
