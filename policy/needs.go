package policy

// NeedsReviewer reports whether the reviewer is the one to act next on an
// item: there is a next action for her (NextAction says reconcile,
// resubmit, request_file or wait). This is the one definition of "needs
// the reviewer": the store's "needs action" SQL (what `list
// --needs-action`, `next` and the window's "Needs my action" show) and the
// window (which item to move to, what is new, what a dwell claims) all
// follow it. An item awaiting the customer's new file does not need her:
// the customer is the one to act.
func NeedsReviewer(s Situation) bool { return NextAction(s).Kind != NextNone }
