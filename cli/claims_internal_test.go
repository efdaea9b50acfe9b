package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Whether a claim is live is judged on the workflow's clock (the view's
// At), never on this computer's: a view made after the claim ended shows
// nobody, in items --json (both encoders) and in item, even while the wall
// clock is still before the claim's end; and a view made before it ended
// shows the claim, even when the wall clock is past it.
func TestClaimLivenessIsTheWorkflowsClock(t *testing.T) {
	wall := time.Now()
	for _, tt := range []struct {
		name string
		end  time.Time // the claim's end
		at   time.Time // the workflow's clock when the view was made
		live bool
	}{
		{"ended on the workflow's clock, not yet on the wall's", wall.Add(time.Hour), wall.Add(2 * time.Hour), false},
		{"live on the workflow's clock, ended on the wall's", wall.Add(-time.Hour), wall.Add(-2 * time.Hour), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			it := policy.Item{ID: "itm_1", BatchID: "bat_1", Status: policy.StatusError, ErrorCode: policy.CodeClassifierTimeout,
				UpdatedAt: wall.Add(-3 * time.Hour), Team: policy.Team{Revision: 3, Claim: &policy.Claim{Reviewer: "ben", ExpiresAt: tt.end}}}
			v := review.ItemView{ItemRow: store.ItemRow{Item: it}, At: tt.at}

			if got := teamFields(v).ClaimedBy != nil; got != tt.live {
				t.Errorf("teamFields: claimed %v, want %v", got, tt.live)
			}
			fast, ok := appendItemJSON(nil, &v)
			if !ok {
				t.Fatal("appendItemJSON refused the row")
			}
			if got := bytes.Contains(fast, []byte(`"claimed_by": "ben"`)); got != tt.live {
				t.Errorf("appendItemJSON: claimed %v, want %v:\n%s", got, tt.live, fast)
			}
			slow, err := json.Marshal(toJSON(v))
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(slow, []byte(`"claimed_by":"ben"`)); got != tt.live {
				t.Errorf("toJSON: claimed %v, want %v: %s", got, tt.live, slow)
			}
			var out strings.Builder
			(&runner{}).printTeam(&out, review.Detail{ItemView: v})
			if got := strings.Contains(out.String(), "claim: ben until"); got != tt.live {
				t.Errorf("item: claimed %v, want %v:\n%s", got, tt.live, out.String())
			}
		})
	}
}
