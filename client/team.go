package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: who is calling, If-Match on every POST on an item,
// claims and notes. A 1.0 service answers 404 on these endpoints; the client
// turns that into a NOT_OFFERED error (IsNotOffered), so that the workflow
// can say "this service does not offer it" instead of "not found".
//
// The client only carries these calls: whether a reviewer may claim, or
// which revision to send, is the workflow's business.

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

// Identity is who the service knows the caller to be.
type Identity struct {
	Reviewer    string `json:"reviewer"`
	DisplayName string `json:"display_name"`
}

// Me asks the service who the token belongs to.
func (c *Client) Me(ctx context.Context) (Identity, []Attempt, error) {
	var id Identity
	attempts, err := c.do(ctx, request{method: "GET", path: "/v1/me", out: &id})
	if err != nil {
		return Identity{}, attempts, notOffered(err, "who is calling")
	}
	if id.Reviewer == "" {
		return Identity{}, attempts, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: 200,
			Message: "GET /v1/me answered without a reviewer", Attempts: attempts}
	}
	if id.DisplayName == "" {
		id.DisplayName = id.Reviewer
	}
	return id, attempts, nil
}

// Claim claims an item for the caller, or renews the caller's own claim,
// for ttl (the contract allows 60 s to 3600 s). Another reviewer's claim is
// a CLAIMED error carrying the item.
func (c *Client) Claim(ctx context.Context, id string, ttl time.Duration) (policy.Item, []Attempt, error) {
	var raw policy.RawItem
	attempts, err := c.do(ctx, request{method: "PUT", path: itemPath(id, "/claim"), out: &raw,
		setup: func(r *resty.Request) {
			r.SetBody(map[string]int64{"ttl_seconds": int64(ttl / time.Second)})
		}})
	if err != nil {
		return policy.Item{}, attempts, notOffered(err, "claims")
	}
	return policy.Validate(raw), attempts, nil
}

// Release releases the caller's claim on an item.
func (c *Client) Release(ctx context.Context, id string) (policy.Item, []Attempt, error) {
	var raw policy.RawItem
	attempts, err := c.do(ctx, request{method: "DELETE", path: itemPath(id, "/claim"), out: &raw})
	if err != nil {
		return policy.Item{}, attempts, notOffered(err, "claims")
	}
	return policy.Validate(raw), attempts, nil
}

// AddNote adds a note to an item. key is the Idempotency-Key the caller
// stored with the note; a repeat passes the same key.
func (c *Client) AddNote(ctx context.Context, id, key, text string, opts ...CallOption) (policy.Note, []Attempt, error) {
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

// notOffered turns a 404 on a 1.1 endpoint into NOT_OFFERED.
func notOffered(err error, what string) error {
	e, ok := AsError(err)
	if !ok || e.HTTPStatus != http.StatusNotFound || e.Class != ClassAnsweredNo {
		return err
	}
	e.Code, e.Message = policy.CodeNotOffered, "this service does not offer "+what+" (it answers 404: a 1.0 service)"
	return e
}

// IsNotOffered reports whether err says the service lacks a 1.1 feature.
func IsNotOffered(err error) bool {
	e, ok := AsError(err)
	return ok && e.Code == policy.CodeNotOffered
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
