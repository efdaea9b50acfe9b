package client

import (
	"context"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: notes reviewers leave on an item.

// AddNote adds a note to an item. key is the Idempotency-Key the caller
// stored with the note; a repeat passes the same key.
func (c *Client) AddNote(ctx context.Context, id, key, text string, opts ...CallOption) (policy.Note, []policy.Attempt, error) {
	var n policy.RawNote
	attempts, err := c.do(ctx, with(request{method: "POST", path: itemPath(id, "/notes"), key: key, out: &n,
		setup: func(r *resty.Request) { r.SetBody(map[string]string{"text": text}) }}, opts))
	if err != nil {
		return policy.Note{}, attempts, notOffered(err, "notes")
	}
	if n.ID == "" || n.Author == "" {
		return policy.Note{}, attempts, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: 201,
			Message: "a note without an id or an author", Attempts: attempts}
	}
	return policy.Note{ID: n.ID, Author: n.Author, Text: n.Text, CreatedAt: n.CreatedAt.UTC()}, attempts, nil
}
