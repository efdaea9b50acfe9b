package client

import (
	"context"
	"net/http"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: who is calling (GET /v1/me), and the version the
// service speaks. A 1.0 service answers 404 on the 1.1 endpoints (/v1/me,
// claims, notes); the client turns that into a NOT_OFFERED error
// (IsNotOffered), so that the workflow can say "this service does not offer
// it" instead of "not found".

// Me asks the service who the token belongs to. A service that answers
// speaks contract 1.1, and the identity says so.
func (c *Client) Me(ctx context.Context) (policy.Identity, []policy.Attempt, error) {
	var id policy.Identity
	attempts, err := c.do(ctx, request{method: "GET", path: "/v1/me", out: &id})
	if err != nil {
		return policy.Identity{}, attempts, notOffered(err, "who is calling")
	}
	if id.Reviewer == "" {
		return policy.Identity{}, attempts, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: 200,
			Message: "GET /v1/me answered without a reviewer", Attempts: attempts}
	}
	if id.DisplayName == "" {
		id.DisplayName = id.Reviewer
	}
	id.APIVersion = "1.1"
	return id, attempts, nil
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
