package client

import (
	"context"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: a reviewer's claim on an item. The client only
// carries these calls: whether a reviewer may claim is the workflow's
// business.

// Claim claims an item for the caller, or renews the caller's own claim,
// for ttl (the contract allows 60 s to 3600 s). Another reviewer's claim is
// a CLAIMED error carrying the item.
func (c *Client) Claim(ctx context.Context, id string, ttl time.Duration) (policy.Item, []policy.Attempt, error) {
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
func (c *Client) Release(ctx context.Context, id string) (policy.Item, []policy.Attempt, error) {
	var raw policy.RawItem
	attempts, err := c.do(ctx, request{method: "DELETE", path: itemPath(id, "/claim"), out: &raw})
	if err != nil {
		return policy.Item{}, attempts, notOffered(err, "claims")
	}
	return policy.Validate(raw), attempts, nil
}
