package cli_test

import (
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// `reviewer sync` says which items need the reviewer since it and did not
// before it; the first sync (it brings everything) and a sync that brought
// nothing say no such thing.
func TestSyncSaysWhichItemsNewlyNeedYou(t *testing.T) {
	h := newHarness(t)
	if out, _ := h.want(0, "sync"); strings.Contains(out, "need") {
		t.Fatalf("first sync: %s", out)
	}
	id, _ := h.srv.Find(func(it policy.RawItem) bool { return it.Status == "scored" })
	h.srv.Touch(id, func(it *policy.RawItem) {
		code, msg := "CLASSIFIER_TIMEOUT", "the classifier ran out of time"
		it.Status, it.RiskScore, it.Recommendation, it.ErrorCode, it.ErrorMessage = "error", nil, nil, &code, &msg
		it.Layers = nil
	})
	out, _ := h.want(0, "sync")
	if !strings.Contains(out, "1 new item needs you: "+id+"\n") {
		t.Fatalf("sync after %s failed: %s", id, out)
	}
	if out, _ := h.want(0, "sync"); strings.Contains(out, "need") {
		t.Fatalf("a sync that brought nothing: %s", out)
	}
}
