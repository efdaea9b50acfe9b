package policy

// What changed since the reviewer saw an item: the 412 ITEM_CHANGED and 409
// CLAIMED answers (contract version 1.1) carry the item as it is now, and
// Unseen says whether a change matters to what she queued.

// Unseen lists what a reviewer decides on that differs between the item
// she saw (the cache's) and the item as the service holds it now: its
// status, its attempt, its result (score, recommendation, code), its file,
// and notes by anyone else that she has not seen. Empty: nothing she
// decides on changed, so an action she queued on what she saw may go out
// at the service's current revision. A claim is not among them (contract
// 1.1: a claim leaves the revision alone), nor a note of her own.
//
// seenNote reports whether the cache holds a note, by the service's id.
func Unseen(saw, now Item, me string, seenNote func(id string) bool) []string {
	var out []string
	if saw.Status != now.Status {
		out = append(out, "status")
	}
	if saw.Attempt != now.Attempt {
		out = append(out, "attempt")
	}
	if !sameScore(saw.RiskScore, now.RiskScore) || saw.Recommendation != now.Recommendation ||
		saw.ErrorCode != now.ErrorCode || saw.ReportedCode != now.ReportedCode {
		out = append(out, "result")
	}
	if saw.FileName != now.FileName || saw.MediaType != now.MediaType || saw.SizeBytes != now.SizeBytes {
		out = append(out, "file")
	}
	if decisionKey(saw) != decisionKey(now) {
		// Another reviewer's decision (or its confirmation) is what she
		// decides on too: hers must never overrule it unseen (1.2).
		out = append(out, "decision")
	}
	for _, n := range now.Notes {
		if n.Author != me && !seenNote(n.ID) {
			out = append(out, "notes")
			break
		}
	}
	return out
}

func sameScore(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// decisionKey names an item's current decision and its state ("": none).
func decisionKey(it Item) string {
	if d := it.CurrentDecision(); d != nil {
		return d.ID + "/" + string(d.State)
	}
	return ""
}
