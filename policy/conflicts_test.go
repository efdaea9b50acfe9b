package policy_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

func TestUnseen(t *testing.T) {
	score := func(n int) *int { return &n }
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	saw := policy.Item{ID: "i1", Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout,
		ReportedCode: "CLASSIFIER_TIMEOUT", Attempt: 1, FileName: "front.jpg", MediaType: "image/jpeg", SizeBytes: 10,
		UpdatedAt: at}
	saw.Notes = []policy.Note{{ID: "n1", Author: "ben"}}
	known := map[string]bool{"n1": true}
	seen := func(id string) bool { return known[id] }

	cases := []struct {
		name   string
		change func(*policy.Item)
		want   []string
	}{
		{"nothing", func(*policy.Item) {}, nil},
		{"only the revision and updated_at", func(it *policy.Item) { it.Revision, it.UpdatedAt = 9, at.Add(time.Hour) }, nil},
		{"a claim by another reviewer", func(it *policy.Item) {
			it.Claim = &policy.Claim{Reviewer: "ben", ExpiresAt: at.Add(time.Hour)}
		}, nil},
		{"her own note", func(it *policy.Item) {
			it.Notes = append(it.Notes, policy.Note{ID: "n2", Author: "ana"})
		}, nil},
		{"another's note she has not seen", func(it *policy.Item) {
			it.Notes = append(it.Notes, policy.Note{ID: "n2", Author: "ben"})
		}, []string{"notes"}},
		{"re-analysed into a score", func(it *policy.Item) {
			it.Status, it.ErrorCode, it.ReportedCode, it.Attempt = policy.StatusScored, "", "", 2
			it.RiskScore, it.Recommendation = score(12), policy.RecommendForward
		}, []string{"status", "attempt", "result"}},
		{"re-analysed into another code", func(it *policy.Item) {
			it.ErrorCode, it.ReportedCode, it.Attempt = policy.CodeForensicsUnreachable, "FORENSICS_UNREACHABLE", 2
		}, []string{"attempt", "result"}},
		{"a new file request", func(it *policy.Item) {
			it.Status, it.ErrorCode, it.ReportedCode = policy.StatusAwaitingFile, "", ""
		}, []string{"status", "result"}},
		{"a replacement file", func(it *policy.Item) { it.FileName, it.SizeBytes = "front-2.jpg", 99 }, []string{"file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := saw
			now.Notes = append([]policy.Note(nil), saw.Notes...)
			c.change(&now)
			if got := policy.Unseen(saw, now, "ana", seen); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Unseen = %v, want %v", got, c.want)
			}
		})
	}
}
