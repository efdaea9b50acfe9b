package client

import (
	"context"
	"strconv"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Page is one page of changed batches.
type Page struct {
	Batches    []policy.Batch
	NextCursor string // "" on the last page
}

type wireBatch struct {
	ID          string           `json:"id"`
	CustomerRef string           `json:"customer_ref"`
	CreatedAt   time.Time        `json:"created_at"`
	UpdatedAt   time.Time        `json:"updated_at"`
	Items       []policy.RawItem `json:"items"`
}

type wirePage struct {
	Batches    *[]wireBatch `json:"batches"`
	NextCursor *string      `json:"next_cursor"`
}

// ListBatches fetches one page of batches changed since `since` (all when
// zero). Each item is validated: one that breaks the contract comes back as
// invalid, the rest of its batch as sent. A page that is not the contract's
// JSON is an INVALID_RESPONSE error and nothing of it is returned.
func (c *Client) ListBatches(ctx context.Context, since time.Time, cursor string, limit int) (Page, []Attempt, error) {
	var wp wirePage
	attempts, err := c.do(ctx, request{method: "GET", path: "/v1/batches", out: &wp, setup: func(r *resty.Request) {
		if !since.IsZero() {
			r.SetQueryParam("updated_since", since.UTC().Format(time.RFC3339Nano))
		}
		if cursor != "" {
			r.SetQueryParam("cursor", cursor)
		}
		if limit > 0 {
			r.SetQueryParam("limit", strconv.Itoa(limit))
		}
	}})
	if err != nil {
		return Page{}, attempts, err
	}
	page, bad := pageFromWire(wp)
	if bad != nil {
		bad.HTTPStatus, bad.Attempts = 200, attempts
		return Page{}, attempts, bad
	}
	return page, attempts, nil
}

// pageFromWire checks a decoded page and validates each item: one that
// breaks the contract comes back as invalid, the rest of its batch as sent.
// A page without a batches array, or a batch without an id, is an error.
func pageFromWire(wp wirePage) (Page, *Error) {
	if wp.Batches == nil {
		return Page{}, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, Message: "the page has no batches array"}
	}
	page := Page{Batches: make([]policy.Batch, 0, len(*wp.Batches))}
	if wp.NextCursor != nil {
		page.NextCursor = *wp.NextCursor
	}
	for _, wb := range *wp.Batches {
		if wb.ID == "" {
			return Page{}, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, Message: "a batch without an id"}
		}
		b := policy.Batch{ID: wb.ID, CustomerRef: wb.CustomerRef, CreatedAt: wb.CreatedAt.UTC(), UpdatedAt: wb.UpdatedAt.UTC(),
			Items: make([]policy.Item, 0, len(wb.Items))}
		for _, raw := range wb.Items {
			it := policy.Validate(raw)
			if it.BatchID != b.ID {
				// An item filed under another batch is a broken answer too.
				it.BatchID = b.ID
				it = policy.MarkInvalid(it, "item listed under batch "+b.ID+" but names batch "+raw.BatchID)
			}
			b.Items = append(b.Items, it)
		}
		page.Batches = append(page.Batches, b)
	}
	return page, nil
}
