package ui

import (
	"fmt"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// renderConflict puts who or what changed the item in the message line,
// when the newest action was refused with ITEM_CHANGED or CLAIMED: the
// panel already shows the item as it is now.
func (v *teamView) renderConflict(d review.Detail) {
	a := d.Action
	if a == nil || a.State != policy.ActionFailed || (a.Code != policy.CodeItemChanged && a.Code != policy.CodeClaimed) ||
		v.p.c.flight(d.ID) != nil || (v.p.note != "" && v.p.noteItem == d.ID) {
		return
	}
	for _, full := range d.Actions {
		if full.ID == a.ID && full.LastError != "" {
			setOrHide(v.p.message, fmt.Sprintf("The %s was not run: %s. Shown here as it is now.", policy.ActionWord(a.Kind), shownLong(full.LastError)))
			v.p.detailsAc.Hide()
			return
		}
	}
}
