package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// A confirmation that stopped part-way on a busy cache queued actions:
// exit 5 (queued), never exit 8, which says nothing was written.
func TestAConfirmationStoppedPartWayExitsQueued(t *testing.T) {
	busy := policy.Errorf(policy.CodeCacheBusy, "the cache was busy")
	if got := confirmFailed(review.Run{}, busy); got != ExitCacheBusy {
		t.Fatalf("nothing queued: exit %d, want %d", got, ExitCacheBusy)
	}
	part := review.Run{Queued: 1}
	if got := confirmFailed(part, busy); got != ExitQueued {
		t.Fatalf("part queued: exit %d, want %d", got, ExitQueued)
	}
}

// A confirmed run whose summary cannot be read says that it was confirmed
// and how many actions it queued, in words, with the status of what it saw:
// queued (5), or unknown (4) when a send may have gone out unanswered;
// never 1, which reads as nothing done, nor 0.
func TestAConfirmedRunWhoseSummaryCannotBeReadSaysSo(t *testing.T) {
	for _, c := range []struct {
		seen review.RunProgress
		want int
	}{
		{review.RunProgress{Total: 3, Queued: 3}, ExitQueued},
		{review.RunProgress{Total: 3, Done: 3}, ExitQueued},
		{review.RunProgress{Total: 3, Done: 1, Unknown: 1, Queued: 1}, ExitUnknown},
		{review.RunProgress{Total: 3, Sending: 1, Queued: 2}, ExitUnknown},
	} {
		var out bytes.Buffer
		r := &runner{env: Env{Stdout: &out}}
		unread := &review.SummaryError{Err: errors.New("disk I/O error")}
		run := review.Run{Queued: 3}
		run.ID = 7
		code, err := r.unsummed(run, review.RunResult{Progress: c.seen}, unread, unread)
		want := "bulk run 7: confirmed: 3 actions queued; the summary could not be read: disk I/O error"
		if code != c.want || !errors.Is(err, unread.Err) || !strings.Contains(out.String(), want) {
			t.Errorf("saw %+v: exit %d (%v), want %d\n%s", c.seen, code, err, c.want, out.String())
		}
	}
}
