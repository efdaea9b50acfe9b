package ui

import (
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

func TestARefusalSaysWhoOrWhatChangedTheItem(t *testing.T) {
	it := scoredItem("itm_1", 62, policy.RecommendReview)
	it.Action = &store.ActionRef{ID: 7, Kind: policy.ActionResubmit, State: policy.ActionFailed, Code: policy.CodeItemChanged}
	wf := newTeamFake(it)
	c := newTeamConsole(t, wf)
	c.apply(func() {
		c.panel.detail.Actions = []store.Action{{ID: 7, Kind: policy.ActionResubmit, State: policy.ActionFailed,
			LastErrorCode: policy.CodeItemChanged, LastError: "re-analysed 2 min ago: now review, score 62"}}
		c.panel.render()
	})
	if got := c.panel.message.Text; !strings.Contains(got, "was not run: re-analysed 2 min ago: now review, score 62") {
		t.Fatalf("message %q", got)
	}
}
