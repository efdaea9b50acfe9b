package review

import (
	"context"
	"fmt"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// foreignAnswer checks that an item the service answered about itemID (a
// re-submission's or a replacement's result, a claim, the item a refusal
// carried) is that item, filed under the batch the cache holds it in. An
// answer about another item, or one that moves it to another batch, is no
// verdict on it: applying it would give one item another's score, or fail
// on the batch's foreign key after the call and leave the action unrecorded.
// It comes back as an answer the console cannot read (INVALID_RESPONSE):
// an action is then reconciled with its key, never re-sent with a new one.
func (s *core) foreignAnswer(ctx context.Context, itemID string, it policy.Item) error {
	var msg string
	if it.ID != itemID {
		msg = fmt.Sprintf("the answer for item %s is about item %q", itemID, it.ID)
	} else {
		cached, err := s.db.Items.Item(ctx, itemID)
		if err != nil || it.BatchID == cached.BatchID {
			return nil
		}
		msg = fmt.Sprintf("the answer for item %s files it under batch %q, not %q", itemID, it.BatchID, cached.BatchID)
	}
	return &client.Error{Code: policy.CodeInvalidResponse, Class: client.ClassBadAnswer, HTTPStatus: 200, Message: msg}
}
