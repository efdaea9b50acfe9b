package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Page is one page of changed batches.
type Page struct {
	Batches    []policy.Batch
	NextCursor string // "" on the last page
}

// wirePage is a page as sent: its two fields are read at once, its batches
// one at a time (pageFromWire), so that one field the console cannot read
// costs that item, never the page.
type wirePage struct {
	Batches    *[]json.RawMessage `json:"batches"`
	NextCursor *string            `json:"next_cursor"`
}

// wireBatch is a batch as sent, each field read on its own.
type wireBatch struct {
	ID          json.RawMessage `json:"id"`
	CustomerRef json.RawMessage `json:"customer_ref"`
	CreatedAt   json.RawMessage `json:"created_at"`
	UpdatedAt   json.RawMessage `json:"updated_at"`
	Items       json.RawMessage `json:"items"`
}

// ListBatches fetches one page of batches changed since `since` (all when
// zero). Each item is read and validated on its own: one that cannot be
// read or breaks the contract comes back as invalid, with the text the
// service sent for it, and the rest of its batch and page as sent. Only a
// page that is not JSON, or has no batches array, is an INVALID_RESPONSE
// error, and then nothing of it is returned.
// Probe asks the API whether it answers with one cheap read (the batches
// changed from now on, at most one), and returns what the call met. It
// goes past the circuit breaker, which it neither waits for nor feeds: a
// probe every few seconds is no storm, and the window must see the API
// come back within seconds, not after the breaker's pause. An answer
// (any answer of the service's) closes an open breaker, so that queued
// work goes out at once.
func (c *Client) Probe(ctx context.Context) ([]policy.Attempt, error) {
	pd := &pageDecoder{}
	now := c.now()
	return c.do(ctx, request{method: "GET", path: "/v1/batches", out: pd, probe: true, setup: func(r *resty.Request) {
		r.SetQueryParam("updated_since", now.UTC().Format(time.RFC3339Nano))
		r.SetQueryParam("limit", "1")
	}})
}

func (c *Client) ListBatches(ctx context.Context, since time.Time, cursor string, limit int) (Page, []policy.Attempt, error) {
	pd := &pageDecoder{}
	attempts, err := c.do(ctx, request{method: "GET", path: "/v1/batches", out: pd, setup: func(r *resty.Request) {
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
	page, bad := pd.page, (*Error)(nil)
	if !pd.fast {
		page, bad = pageFromWire(pd.wp, c.now())
	}
	if bad != nil {
		bad.HTTPStatus, bad.Attempts = 200, attempts
		return Page{}, attempts, bad
	}
	// Every string of the page, the text kept of an invalid item included,
	// before anyone else sees it (redact.go): the decoder's own fields are
	// not the page, so do's redaction does not reach it.
	redactValue(&page, c.cfg.Token)
	return page, attempts, nil
}

// pageDecoder decodes a page in one pass when every item of it can be read,
// which is nearly always and costs what decoding it whole costs (an item
// that breaks the contract keeps its text as read: readText); a page with
// an item that cannot be read is decoded again, each item on its own
// (pageFromWire). Both give the same Page for a page the one pass takes
// (FuzzBatchPageDecoder).
type pageDecoder struct {
	fast bool
	page Page     // when fast
	wp   wirePage // when not
}

type fastPage struct {
	Batches    *[]fastBatch `json:"batches"`
	NextCursor *string      `json:"next_cursor"`
}

type fastBatch struct {
	ID          string           `json:"id"`
	CustomerRef string           `json:"customer_ref"`
	CreatedAt   time.Time        `json:"created_at"`
	UpdatedAt   time.Time        `json:"updated_at"`
	Items       []policy.RawItem `json:"items"`
}

func (d *pageDecoder) decodeBody(body []byte) error {
	var fp fastPage
	if json.Unmarshal(body, &fp) == nil {
		if page, ok := fastPageFrom(fp); ok {
			d.page, d.fast = page, true
			return nil
		}
	}
	return json.Unmarshal(body, &d.wp)
}

// fastPageFrom is the page when every batch has an id and every item of it
// is filed under it, alone with its id on the page, and dated. An item
// that breaks the contract is kept invalid, with its text as read
// (readText); the reference service has such items on most pages, and
// reading every item of those pages again on its own doubled a sync's CPU.
func fastPageFrom(fp fastPage) (page Page, ok bool) {
	if fp.Batches == nil {
		return Page{}, false
	}
	page = Page{Batches: make([]policy.Batch, 0, len(*fp.Batches))}
	if fp.NextCursor != nil {
		page.NextCursor = *fp.NextCursor
	}
	ids := map[string]bool{}
	for _, wb := range *fp.Batches {
		if wb.ID == "" {
			return Page{}, false
		}
		b := policy.Batch{ID: wb.ID, CustomerRef: wb.CustomerRef, CreatedAt: wb.CreatedAt.UTC(), UpdatedAt: wb.UpdatedAt.UTC(),
			Items: make([]policy.Item, 0, len(wb.Items))}
		for _, raw := range wb.Items {
			it := policy.Validate(raw)
			if it.ID == "" || raw.BatchID != b.ID || ids[it.ID] {
				return Page{}, false
			}
			if it.Status == policy.StatusInvalid {
				if it.UpdatedAt.IsZero() { // pageFromWire dates it by its batch, or now
					return Page{}, false
				}
				it.Raw = readText(raw)
			}
			ids[it.ID] = true
			b.Items = append(b.Items, it)
		}
		page.Batches = append(page.Batches, b)
	}
	return page, true
}

// readText is the text of an item the console could read but that broke
// the contract: every field as read, in the contract's names. (An item that
// could not be read keeps the bytes the service sent.)
func readText(raw policy.RawItem) string {
	b, err := json.Marshal(raw)
	if err != nil {
		return ""
	}
	return string(b)
}

// pageFromWire reads each batch and each item of a decoded page on its
// own. A page without a batches array is an error; nothing else is:
//   - an item that cannot be read (a date in the year 275760, a score of
//     1e400, a layer that is a string, an item that is not an object)
//     comes back invalid, with its raw text, its id if readable and what
//     else of it can be read;
//   - an item that breaks the contract, or whose id cannot be sent as a
//     URL path segment ("." or ".."), comes back invalid with its raw text;
//   - an item without an id, and every item but the first of an id the page
//     lists twice, get a console-made id that is never a valid one (so that
//     it is never sent), and all of them come back invalid;
//   - a batch without a readable id gets a console-made id made from its
//     text, and all its items come back invalid; a batch field that cannot
//     be read is left empty (a date: zero, which never moves the sync
//     position) and its items are kept.
//
// An item without a readable updated_at is dated as its batch, or at now
// when the batch's date cannot be read either: a newer answer replaces it.
func pageFromWire(wp wirePage, now time.Time) (Page, *Error) {
	if wp.Batches == nil {
		return Page{}, &Error{Code: policy.CodeInvalidResponse, Class: ClassBadAnswer, Message: "the page has no batches array"}
	}
	page := Page{Batches: make([]policy.Batch, 0, len(*wp.Batches))}
	if wp.NextCursor != nil {
		page.NextCursor = *wp.NextCursor
	}
	ids := map[string]int{}      // how many items of the page carry each id
	var raws [][]json.RawMessage // each batch's items as sent
	for _, raw := range *wp.Batches {
		b, items := batchFromWire(raw, now)
		raws = append(raws, items)
		for _, it := range b.Items {
			ids[it.ID]++
		}
		page.Batches = append(page.Batches, b)
	}
	// unique returns base, or base with a number, that no item of the
	// page carries yet.
	unique := func(base string) string {
		for n := 1; ; n++ {
			id := base
			if n > 1 {
				id = fmt.Sprintf("%s #%d", base, n)
			}
			if ids[id] == 0 {
				ids[id] = 1
				return id
			}
		}
	}
	seen := map[string]bool{}
	for bi := range page.Batches {
		b := &page.Batches[bi]
		for i := range b.Items {
			it := &b.Items[i]
			switch id := it.ID; {
			case id == "":
				// Validate or itemFromWire made it invalid already.
				it.ID = unique(madeID(b.ID, i, "no readable id"))
			case ids[id] > 1:
				// Two answers for one item on one page: neither can be
				// trusted, and one upsert cannot write a row twice.
				if seen[id] {
					it.ID = unique(madeID(b.ID, i, "another item with id "+strconv.Quote(id)))
				}
				seen[id] = true
				*it = policy.MarkInvalid(*it, fmt.Sprintf("the page lists item %q more than once", id))
				if it.Raw == "" {
					it.Raw = string(raws[bi][i])
				}
			}
		}
	}
	return page, nil
}

// batchFromWire reads one batch, and returns it with the text of each of
// its items; it never fails.
func batchFromWire(raw json.RawMessage, now time.Time) (policy.Batch, []json.RawMessage) {
	var wb wireBatch
	if json.Unmarshal(raw, &wb) != nil { // not an object: nothing of it can be read
		wb = wireBatch{}
	}
	var b policy.Batch
	id, idOK := readString(wb.ID)
	whole := ""
	if !idOK || id == "" {
		sum := sha256.Sum256(raw)
		id = "(batch without a readable id " + hex.EncodeToString(sum[:6]) + ")"
		whole = "listed in a batch without a readable id"
	}
	b.ID = id
	b.CustomerRef, _ = readString(wb.CustomerRef)
	updated, updatedOK := readTime(wb.UpdatedAt)
	b.UpdatedAt = updated
	b.CreatedAt, _ = readTime(wb.CreatedAt)
	itemsDate := now.UTC()
	if updatedOK {
		itemsDate = updated
	}
	var items []json.RawMessage
	if len(wb.Items) > 0 && json.Unmarshal(wb.Items, &items) != nil {
		// "items" is not an array: what it is, is kept as one unreadable item.
		items = []json.RawMessage{wb.Items}
		if whole == "" {
			whole = "the batch's items are not an array"
		}
	}
	b.Items = make([]policy.Item, 0, len(items))
	for _, r := range items {
		it := itemFromWire(r, itemsDate)
		switch {
		case it.Status == policy.StatusInvalid:
		case whole != "":
			it = policy.MarkInvalid(it, whole)
		case it.BatchID != b.ID:
			// An item filed under another batch is a broken answer too.
			it = policy.MarkInvalid(it, "item listed under batch "+b.ID+" but names batch "+it.BatchID)
		}
		it.BatchID = b.ID
		if it.Status == policy.StatusInvalid && it.UpdatedAt.IsZero() {
			it.UpdatedAt = itemsDate // so that it replaces what the cache held of it
		}
		if it.Status == policy.StatusInvalid && it.Raw == "" {
			it.Raw = string(r)
		}
		b.Items = append(b.Items, it)
	}
	return b, items
}

// madeID is the console's id for an item the service gave no usable id:
// it names where the item was and why, and can never pass
// policy.IDProblem, so it is never sent to the service.
func madeID(batch string, index int, why string) string {
	return fmt.Sprintf("(item %d of batch %s: %s)", index+1, batch, why)
}

// itemFromWire reads and validates one item; it never fails. An item that
// cannot be read as a whole is invalid, with what of it can be read field
// by field, dated by its own updated_at if readable, else date.
func itemFromWire(raw json.RawMessage, date time.Time) policy.Item {
	var ri policy.RawItem
	err := json.Unmarshal(raw, &ri)
	if err == nil && isObject(raw) {
		it := policy.Validate(ri)
		if it.Status == policy.StatusInvalid {
			it.Raw = readText(ri)
		}
		return it
	}
	var fields map[string]json.RawMessage
	problem := "the item is not a JSON object"
	if json.Unmarshal(raw, &fields) == nil && fields != nil {
		problem = "the item could not be read: " + clip(err.Error())
	}
	it := policy.Item{UpdatedAt: date}
	it.ID, _ = readString(fields["id"])
	it.BatchID, _ = readString(fields["batch_id"])
	kind, _ := readString(fields["kind"])
	it.Kind = policy.Kind(kind)
	it.FileName, _ = readString(fields["file_name"])
	it.MediaType, _ = readString(fields["media_type"])
	it.ReportedCode, _ = readString(fields["error_code"])
	it.ErrorMessage, _ = readString(fields["error_message"])
	_ = json.Unmarshal(fields["size_bytes"], &it.SizeBytes)
	_ = json.Unmarshal(fields["attempt"], &it.Attempt)
	if t, ok := readTime(fields["updated_at"]); ok {
		it.UpdatedAt = t
	}
	it = policy.MarkInvalid(it, problem)
	it.Raw = string(raw)
	return it
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}

// readString reads a JSON string; absent, null or anything else is not one.
func readString(raw json.RawMessage) (string, bool) {
	var s *string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil || s == nil {
		return "", false
	}
	return *s, true
}

// readTime reads an RFC 3339 time, in UTC.
func readTime(raw json.RawMessage) (time.Time, bool) {
	var t *time.Time
	if len(raw) == 0 || json.Unmarshal(raw, &t) != nil || t == nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// clip keeps an error text short: a decoder's error quotes the value it
// could not read, which may be megabytes.
func clip(s string) string {
	const most = 300
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
