package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.2: the service's reason codes, a reviewer's decision
// on an item and a second reviewer's confirmation. Both POSTs go through
// the same attempt, evidence and outcome-class machinery as every other
// POST on an item (do): the Idempotency-Key the caller stored, If-Match
// (IfMatch), one automatic retry only when no connection was made. Which
// decision a person may take is policy's business (CanDecide,
// CheckReason, CanConfirm); the client never asks it.

// ReasonCodes reads the service's list of reason codes. A 1.0 or 1.1
// service answers 404: the error is then NOT_OFFERED (IsNotOffered).
func (c *Client) ReasonCodes(ctx context.Context) ([]policy.ReasonCode, []policy.Attempt, error) {
	var d reasonCodesDecoder
	attempts, err := c.do(ctx, request{method: "GET", path: "/v1/reason-codes", out: &d})
	if err != nil {
		return nil, attempts, notOffered(err, "decisions")
	}
	if d.Problem != "" {
		return nil, attempts, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: 200,
			Message: d.Problem, Attempts: attempts}
	}
	return d.List, attempts, nil
}

// Decide records a reviewer's decision on an item. key is the
// Idempotency-Key the caller stored with the decision; a repeat passes the
// same key. The answer is the item with its new decision last.
func (c *Client) Decide(ctx context.Context, id, key string, outcome policy.Outcome, reasonCode, comment string, opts ...CallOption) (policy.Item, []policy.Attempt, error) {
	var raw policy.RawItem
	body := map[string]string{"outcome": string(outcome), "reason_code": reasonCode}
	if comment != "" {
		body["comment"] = comment
	}
	attempts, err := c.do(ctx, with(request{method: "POST", path: itemPath(id, "/decisions"), key: key, out: &raw,
		setup: func(r *resty.Request) { r.SetBody(body) }}, opts))
	if err != nil {
		return policy.Item{}, attempts, err
	}
	return decidedItem(raw, attempts)
}

// Confirm confirms (agree) or returns a decision awaiting a second
// reviewer. key is the Idempotency-Key the caller stored with it.
func (c *Client) Confirm(ctx context.Context, id, decisionID, key string, agree bool, comment string, opts ...CallOption) (policy.Item, []policy.Attempt, error) {
	if problem := policy.IDProblem(decisionID); problem != "" {
		return policy.Item{}, nil, &Error{Code: policy.CodeInvalidInput, Class: ClassNotStarted, Err: ErrUnsafeID,
			Message: "refused before any request: the decision id cannot be sent in a URL (" + problem + ")"}
	}
	var raw policy.RawItem
	body := map[string]any{"agree": agree}
	if comment != "" {
		body["comment"] = comment
	}
	attempts, err := c.do(ctx, with(request{method: "POST", key: key, out: &raw,
		path:  itemPath(id, "/decisions/"+url.PathEscape(decisionID)+"/confirmation"),
		setup: func(r *resty.Request) { r.SetBody(body) }}, opts))
	if err != nil {
		return policy.Item{}, attempts, err
	}
	return decidedItem(raw, attempts)
}

// decidedItem is the item a decision or a confirmation answered with. An
// item that breaks the contract comes back invalid, as from any POST; a
// valid one that carries no decision is no answer to a decision: the
// request's outcome is unknown, and is reconciled with the same key.
func decidedItem(raw policy.RawItem, attempts []policy.Attempt) (policy.Item, []policy.Attempt, error) {
	it := policy.Validate(raw)
	if it.Status != policy.StatusInvalid && it.CurrentDecision() == nil {
		return policy.Item{}, attempts, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, HTTPStatus: 200,
			Message: "the answer to a decision carries no decision", Attempts: attempts}
	}
	return it, attempts, nil
}

// AsDecisionRefusal returns the error when the service refused a decision
// or a confirmation by one of the rules of 1.2: NOT_CHECKED, NOT_DECIDABLE,
// SAME_REVIEWER or NOT_AWAITING_CONFIRMATION. Its Item is the item as it
// is now, when the answer carried one.
func AsDecisionRefusal(err error) (*Error, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Class != ClassAnsweredNo {
		return nil, false
	}
	switch e.Code {
	case policy.CodeNotChecked, policy.CodeNotDecidable, policy.CodeSameReviewer, policy.CodeNotAwaitingConfirmation:
		return e, true
	}
	return e, false
}

// reasonCodesDecoder reads GET /v1/reason-codes. The list is text from
// outside: a row without a code that can be sent back, or with no outcome
// the console knows, is left out (a newer service may add outcomes); a
// code listed twice keeps its first row. A body without the list is a bad
// answer (Problem). Its fields are exported so that the token redaction
// reaches the labels.
type reasonCodesDecoder struct {
	List    []policy.ReasonCode
	Problem string
}

func (d *reasonCodesDecoder) decodeBody(body []byte) error {
	var wire struct {
		ReasonCodes json.RawMessage `json:"reason_codes"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return err
	}
	var rows []json.RawMessage
	if len(wire.ReasonCodes) == 0 || json.Unmarshal(wire.ReasonCodes, &rows) != nil || rows == nil {
		d.Problem = "an answer without the list of reason codes"
		return nil
	}
	d.List, d.Problem = reasonCodesFromWire(rows)
	return nil
}

// maxReasonCodes bounds the list a service may send.
const maxReasonCodes = 1000

func reasonCodesFromWire(rows []json.RawMessage) ([]policy.ReasonCode, string) {
	if len(rows) > maxReasonCodes {
		return nil, fmt.Sprintf("a list of %d reason codes (at most %d)", len(rows), maxReasonCodes)
	}
	out := []policy.ReasonCode{}
	seen := map[string]bool{}
	for _, raw := range rows {
		var w struct {
			Code     string   `json:"code"`
			Label    string   `json:"label"`
			Outcomes []string `json:"outcomes"`
		}
		if json.Unmarshal(raw, &w) != nil || policy.IDProblem(w.Code) != "" || seen[w.Code] {
			continue
		}
		rc := policy.ReasonCode{Code: w.Code, Label: w.Label}
		for _, o := range w.Outcomes {
			if oc := policy.Outcome(o); oc.Known() && !rc.Allows(oc) {
				rc.Outcomes = append(rc.Outcomes, oc)
			}
		}
		if len(rc.Outcomes) == 0 {
			continue
		}
		if rc.Label == "" {
			rc.Label = rc.Code
		}
		seen[w.Code] = true
		out = append(out, rc)
	}
	return out, ""
}
