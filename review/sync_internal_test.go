package review

import (
	"fmt"
	"strings"
	"testing"
)

// snap is a news check's read: the ids in listing order, those marked
// with * needing the reviewer.
func snap(cut bool, rows ...string) *needSnapshot {
	s := &needSnapshot{needs: map[string]bool{}, cut: cut}
	for _, r := range rows {
		id, needs := strings.CutSuffix(r, "*")
		s.read = append(s.read, id)
		if needs {
			s.needs[id] = true
		}
	}
	return s
}

func TestNewlyNeedingIsWhatNeedsTheReviewerAfterAndDidNotBefore(t *testing.T) {
	before := snap(false, "a*", "b*", "w")
	after := snap(false, "d*", "b*", "c*", "w*")
	if ids := newlyNeeding(before, after); fmt.Sprint(ids) != "[c d w]" {
		t.Fatalf("%v", ids)
	}
	if newlyNeeding(nil, after) != nil || newlyNeeding(before, nil) != nil {
		t.Fatal("a failed read claimed news")
	}
}

// With more rows needing action than a news check reads, a row that moves
// up into the read after the sync (rows above it were dealt with) is not
// news: it may have needed the reviewer before, below what was read.
func TestNewsStopsWhereTheReadBeforeTheSyncStopped(t *testing.T) {
	before := snap(true, "a*", "b*", "c*", "d*")
	// The sync brought n (a new batch, on top) and a teammate dealt with
	// b: e moves up into the read.
	after := snap(true, "n*", "a*", "c*", "d*", "e*")
	if ids := newlyNeeding(before, after); fmt.Sprint(ids) != "[n]" {
		t.Fatalf("news %v, want [n]", ids)
	}
	// The last row read before is gone too: the news stops at the last
	// row of the read before that is still listed.
	after = snap(true, "n*", "a*", "c*", "x*", "e*")
	before = snap(true, "a*", "c*", "x", "d*")
	if ids := newlyNeeding(before, after); fmt.Sprint(ids) != "[n x]" {
		t.Fatalf("news %v, want [n x]", ids)
	}
	// The read before was cut, the one after is not (b was dealt with,
	// and all that needs action now fits): d, from below, is no news.
	if ids := newlyNeeding(snap(true, "a*", "b*", "c*"), snap(false, "a*", "c*", "d*")); len(ids) != 0 {
		t.Fatalf("news %v, want none", ids)
	}
	// Nothing of the read before is listed any more: more new batches came
	// than a read holds; all of the read after is news.
	if ids := newlyNeeding(snap(true, "a*", "b*"), snap(true, "e*", "f*", "g")); fmt.Sprint(ids) != "[e f]" {
		t.Fatalf("news %v, want [e f]", ids)
	}
}
