package client

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

func itemPath(id, suffix string) string { return "/v1/items/" + url.PathEscape(id) + suffix }

// ErrUnsafeID is the cause of a call refused before any request because
// its item id is not a safe single URL path segment (policy.IDProblem): "."
// or ".." would name another path (POST /v1/items/./resubmissions), a "/"
// or a "%" another segment, at a proxy or at the service.
var ErrUnsafeID = errors.New("the item id is not a safe URL path segment")

// checkItemPath refuses a path on an item (made by itemPath) whose id is
// not a safe path segment. It returns an INVALID_INPUT error of class
// not_started that wraps ErrUnsafeID.
func checkItemPath(path string) *Error {
	rest, ok := strings.CutPrefix(path, "/v1/items/")
	if !ok {
		return nil
	}
	seg, _, _ := strings.Cut(rest, "/")
	id, err := url.PathUnescape(seg)
	problem := "it cannot be read"
	if err == nil {
		if problem = policy.IDProblem(id); problem == "" {
			return nil
		}
	}
	return &Error{Code: policy.CodeInvalidInput, Class: ClassNotStarted, Err: ErrUnsafeID,
		Message: "refused before any request: the item id cannot be sent in a URL (" + problem + ")"}
}

// GetItem fetches the item as the service knows it now.
func (c *Client) GetItem(ctx context.Context, id string) (policy.Item, []policy.Attempt, error) {
	var raw policy.RawItem
	attempts, err := c.do(ctx, request{method: "GET", path: itemPath(id, ""), out: &raw})
	if err != nil {
		return policy.Item{}, attempts, err
	}
	return policy.Validate(raw), attempts, nil
}

// Resubmit asks the service to run the analysis again on the stored file.
// key is the Idempotency-Key the caller stored before calling; a repeat of
// the same action must pass the same key.
func (c *Client) Resubmit(ctx context.Context, id, key string, opts ...CallOption) (policy.Item, []policy.Attempt, error) {
	var raw policy.RawItem
	attempts, err := c.do(ctx, with(request{method: "POST", path: itemPath(id, "/resubmissions"), key: key, out: &raw}, opts))
	if err != nil {
		return policy.Item{}, attempts, err
	}
	return policy.Validate(raw), attempts, nil
}

// FileRequest is the service's record of a request for a new file.
type FileRequest struct {
	ID        string    `json:"id"`
	ItemID    string    `json:"item_id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// RequestFile asks the customer for a new file.
func (c *Client) RequestFile(ctx context.Context, id, key string, reason policy.Code, message string, opts ...CallOption) (FileRequest, []policy.Attempt, error) {
	var fr FileRequest
	attempts, err := c.do(ctx, with(request{method: "POST", path: itemPath(id, "/file-requests"), key: key, out: &fr,
		setup: func(r *resty.Request) {
			r.SetBody(map[string]string{"reason": string(reason), "message": message})
		}}, opts))
	if err == nil && fr.ID == "" {
		err = &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, Message: "a file request without an id", Attempts: attempts}
	}
	return fr, attempts, err
}

// Replace uploads the file the customer sent and returns the new result.
// The file goes as a seekable reader, so that the one retry sends it whole.
func (c *Client) Replace(ctx context.Context, id, key, fileName string, data []byte, opts ...CallOption) (policy.Item, []policy.Attempt, error) {
	var raw policy.RawItem
	attempts, err := c.do(ctx, with(request{method: "POST", path: itemPath(id, "/replacement"), key: key, out: &raw,
		setup: func(r *resty.Request) {
			r.SetFileReader("file", fileName, bytes.NewReader(data))
		}}, opts))
	if err != nil {
		return policy.Item{}, attempts, err
	}
	return policy.Validate(raw), attempts, nil
}
