package client

import (
	"errors"
	"strconv"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: If-Match on every POST on an item, and the refusals
// when the item changed since the reviewer saw it (412 ITEM_CHANGED) or
// another reviewer holds it (409 CLAIMED). The client only carries the
// revision: which one to send is the workflow's business.

// CallOption adds something to one call.
type CallOption func(*request)

// IfMatch sends If-Match with the revision the reviewer saw. A revision of
// 0 (a 1.0 service reports none) sends no header.
func IfMatch(revision int64) CallOption {
	return func(r *request) { r.match = revision }
}

// IfMatchReplayOnly sends an If-Match that no item's revision matches (a
// revision is 1 or more): the service answers a key it knows with the
// stored answer, whatever the If-Match, and runs nothing for a key it does
// not know (412). For a repeat of a send that may have run, on an item
// that changed since the reviewer saw it.
func IfMatchReplayOnly() CallOption {
	return func(r *request) { r.match = replayOnly }
}

// replayOnly is the request's match for IfMatchReplayOnly.
const replayOnly = -1

func with(r request, opts []CallOption) request {
	for _, o := range opts {
		o(&r)
	}
	return r
}

func ifMatchValue(rev int64) string { return `"` + strconv.FormatInt(rev, 10) + `"` }

// answeredItem validates the item a refusal carried, if any.
func answeredItem(raw *policy.RawItem) *policy.Item {
	if raw == nil {
		return nil
	}
	it := policy.Validate(*raw)
	return &it
}

// AsConflict returns the error when the service refused because the item
// changed (ITEM_CHANGED) or another reviewer holds it (CLAIMED); its Item is
// the item as it is now, when the answer carried one.
func AsConflict(err error) (*Error, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Class != ClassAnsweredNo {
		return nil, false
	}
	return e, e.Code == policy.CodeItemChanged || e.Code == policy.CodeClaimed
}
