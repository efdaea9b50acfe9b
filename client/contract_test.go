package client_test

// Tests of the bytes on the wire against ../shared/screening-api.md as
// written. The service side here is a raw TCP listener parsed with net/http's
// request reader and answered with literal text from the contract, so that
// nothing is shared with the client's or the reference service's Go types: a
// renamed field, header, query parameter or multipart field fails here.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// seen is one request as it crossed the wire.
type seen struct {
	Method, Path, RawPath string
	Query                 url.Values
	Header                http.Header
	Body                  []byte
}

// wireService answers every request with one canned HTTP/1.1 answer and
// hands each parsed request to the test.
type wireService struct {
	ln   net.Listener
	reqs chan seen
}

func newWireService(t *testing.T, status int, body string) *wireService {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ws := &wireService{ln: ln, reqs: make(chan seen, 32)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go ws.serve(conn, status, body)
		}
	}()
	return ws
}

func (ws *wireService) serve(conn net.Conn, status int, body string) {
	defer conn.Close()
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	ws.reqs <- seen{Method: req.Method, Path: req.URL.Path, RawPath: req.URL.EscapedPath(), Query: req.URL.Query(), Header: req.Header, Body: b}
	_, _ = io.WriteString(conn, "HTTP/1.1 "+strconv.Itoa(status)+" "+http.StatusText(status)+"\r\n"+
		"Content-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
}

func (ws *wireService) client(t *testing.T) *client.Client {
	t.Helper()
	cfg := testConfig("http://" + ws.ln.Addr().String())
	cfg.Timeout = 20 * time.Second
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func (ws *wireService) next(t *testing.T) seen {
	t.Helper()
	select {
	case r := <-ws.reqs:
		return r
	case <-time.After(time.Minute):
		t.Fatal("no request reached the wire")
		return seen{}
	}
}

// The item of the contract's "Item" section, verbatim in its fields.
const contractItem = `{
  "id": "itm_01J9",
  "batch_id": "bat_01J9",
  "kind": "id_document",
  "file_name": "passport-front.jpg",
  "media_type": "image/jpeg",
  "size_bytes": 482113,
  "status": "scored",
  "risk_score": 73,
  "recommendation": "review",
  "layers": {"metadata": 0.12, "ela": 0.41, "ai_generation": 0.88, "face_match": 0.07},
  "error_code": null,
  "error_message": null,
  "attempt": 1,
  "updated_at": "2026-11-29T10:04:12Z"
}`

// checkCommon: every request carries the bearer token; a POST carries the
// Idempotency-Key it was given, byte for byte.
func checkCommon(t *testing.T, r seen, method, path, key string) {
	t.Helper()
	if r.Method != method || r.RawPath != path {
		t.Errorf("request line %s %s, want %s %s", r.Method, r.RawPath, method, path)
	}
	if got := r.Header.Values("Authorization"); len(got) != 1 || got[0] != "Bearer "+testToken {
		t.Errorf("Authorization %q, want one %q", got, "Bearer <token>")
	}
	if got := r.Header.Values("Idempotency-Key"); key == "" && len(got) != 0 || key != "" && (len(got) != 1 || got[0] != key) {
		t.Errorf("Idempotency-Key %q, want %q", got, key)
	}
}

func TestWireListBatches(t *testing.T) {
	ws := newWireService(t, 200, `{"batches": [{"id": "bat_01J9", "customer_ref": "CUST-7012", "created_at": "2026-11-28T16:00:00Z",
		"updated_at": "2026-11-29T10:04:12Z", "items": [`+contractItem+`]}], "next_cursor": "c2"}`)
	c := ws.client(t)
	since := time.Date(2026, 11, 29, 10, 4, 12, 0, time.UTC)
	page, _, err := c.ListBatches(context.Background(), since, "c1", 200)
	if err != nil {
		t.Fatal(err)
	}
	r := ws.next(t)
	checkCommon(t, r, "GET", "/v1/batches", "")
	keys := make([]string, 0, len(r.Query))
	for k := range r.Query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "cursor,limit,updated_since" {
		t.Fatalf("query parameters %v, want cursor, limit, updated_since", keys)
	}
	if got, err := time.Parse(time.RFC3339, r.Query.Get("updated_since")); err != nil || !got.Equal(since) {
		t.Errorf("updated_since=%q: not RFC 3339 for %v", r.Query.Get("updated_since"), since)
	}
	if r.Query.Get("cursor") != "c1" || r.Query.Get("limit") != "200" || len(r.Body) != 0 {
		t.Errorf("cursor=%q limit=%q body %q", r.Query.Get("cursor"), r.Query.Get("limit"), r.Body)
	}
	// The answer, read through the contract's field names.
	if page.NextCursor != "c2" || len(page.Batches) != 1 || page.Batches[0].CustomerRef != "CUST-7012" || len(page.Batches[0].Items) != 1 {
		t.Fatalf("page %+v", page)
	}
	checkContractItem(t, page.Batches[0].Items[0])

	// A first sync asks for everything: no updated_since, no cursor.
	if _, _, err := c.ListBatches(context.Background(), time.Time{}, "", 0); err != nil {
		t.Fatal(err)
	}
	if r := ws.next(t); len(r.Query) != 0 {
		t.Errorf("a first page sent %v", r.Query)
	}
}

func checkContractItem(t *testing.T, it policy.Item) {
	t.Helper()
	if it.ID != "itm_01J9" || it.BatchID != "bat_01J9" || it.Kind != policy.KindIDDocument || it.FileName != "passport-front.jpg" ||
		it.MediaType != "image/jpeg" || it.SizeBytes != 482113 || it.Status != policy.StatusScored || it.RiskScore == nil ||
		*it.RiskScore != 73 || it.Recommendation != policy.RecommendReview || it.Attempt != 1 ||
		!it.UpdatedAt.Equal(time.Date(2026, 11, 29, 10, 4, 12, 0, time.UTC)) || it.Problem != "" {
		t.Fatalf("the contract's item read as %+v", it)
	}
	want := map[string]float64{"metadata": 0.12, "ela": 0.41, "ai_generation": 0.88, "face_match": 0.07}
	for k, v := range want {
		if it.Layers[k] != v {
			t.Fatalf("layers %v, want %v", it.Layers, want)
		}
	}
}

func TestWireGetItem(t *testing.T) {
	ws := newWireService(t, 200, contractItem)
	it, _, err := ws.client(t).GetItem(context.Background(), "itm_01J9")
	if err != nil {
		t.Fatal(err)
	}
	r := ws.next(t)
	checkCommon(t, r, "GET", "/v1/items/itm_01J9", "")
	checkContractItem(t, it)
	// An id goes only as one safe path segment: one that a proxy could
	// read as two ("a/b", once unescaped), or as another path (".."), is
	// refused before any request (TestUnsafeItemIDsNeverReachTheService).
	if _, _, err := ws.client(t).GetItem(context.Background(), "a/b c"); !errors.Is(err, client.ErrUnsafeID) {
		t.Fatalf("an id with a slash: %v", err)
	}
}

func TestWireResubmit(t *testing.T) {
	ws := newWireService(t, 200, contractItem)
	key := "0f8fad5b-d9cb-469f-a165-70867728950e"
	if _, _, err := ws.client(t).Resubmit(context.Background(), "itm_01J9", key); err != nil {
		t.Fatal(err)
	}
	r := ws.next(t)
	checkCommon(t, r, "POST", "/v1/items/itm_01J9/resubmissions", key)
	if len(r.Body) != 0 {
		t.Errorf("a re-submission has no body, sent %q", r.Body)
	}
}

func TestWireFileRequest(t *testing.T) {
	ws := newWireService(t, 201, `{"id": "frq_01J9", "item_id": "itm_01J9", "status": "sent", "created_at": "2026-11-29T10:05:00Z"}`)
	fr, _, err := ws.client(t).RequestFile(context.Background(), "itm_01J9", "key-fr", policy.CodeDecodeFailed, "Please send a sharper photo.")
	if err != nil {
		t.Fatal(err)
	}
	r := ws.next(t)
	checkCommon(t, r, "POST", "/v1/items/itm_01J9/file-requests", "key-fr")
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("body %q: %v", r.Body, err)
	}
	if len(body) != 2 || body["reason"] != "DECODE_FAILED" || body["message"] != "Please send a sharper photo." {
		t.Errorf("body %s, want exactly {reason, message}", r.Body)
	}
	if fr.ID != "frq_01J9" || fr.ItemID != "itm_01J9" || fr.Status != "sent" || fr.CreatedAt.IsZero() {
		t.Errorf("answer read as %+v", fr)
	}
}

func TestWireReplacement(t *testing.T) {
	ws := newWireService(t, 200, contractItem)
	data := append([]byte("\xFF\xD8\xFF\xE0"), bytes.Repeat([]byte{7}, 5000)...)
	if _, _, err := ws.client(t).Replace(context.Background(), "itm_01J9", "key-up", "passport front.jpg", data); err != nil {
		t.Fatal(err)
	}
	r := ws.next(t)
	checkCommon(t, r, "POST", "/v1/items/itm_01J9/replacement", "key-up")
	ct, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	var parts []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(p)
		parts = append(parts, p.FormName())
		if p.FormName() == "file" && (p.FileName() != "passport front.jpg" || !bytes.Equal(got, data)) {
			t.Errorf("part file: name %q, %d bytes", p.FileName(), len(got))
		}
	}
	if len(parts) != 1 || parts[0] != "file" {
		t.Errorf("multipart fields %v, want the one field \"file\"", parts)
	}
}

// The error body of the contract: its code is kept, whatever the status.
func TestWireErrorBody(t *testing.T) {
	ws := newWireService(t, 422, `{"error_code": "NOT_RETRYABLE", "error_message": "DECODE_FAILED cannot be helped by a re-run"}`)
	_, _, err := ws.client(t).Resubmit(context.Background(), "itm_01J9", "key-nr")
	e := mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotRetryable)
	if e.HTTPStatus != 422 {
		t.Errorf("status %d", e.HTTPStatus)
	}
	ws.next(t)
}

// Contract 1.1 on the wire: If-Match carries the revision the reviewer saw,
// quoted, on every POST on an item, and only when there is one; claims,
// notes and /v1/me by their own methods, paths and bodies; and 1.2's
// reason codes, decisions and confirmations.
func TestWireTeam(t *testing.T) {
	ws := newWireService(t, 200, `{"id":"itm_1","batch_id":"b","status":"pending","revision":4,"reviewer":"ana","author":"ana","text":"t"}`)
	c := ws.client(t)
	ctx := context.Background()
	type want struct {
		method, path, ifMatch, key string
		body                       map[string]any
	}
	for _, tc := range []struct {
		call func()
		want want
	}{
		{func() { c.Resubmit(ctx, "itm_1", "k1", client.IfMatch(3)) }, want{"POST", "/v1/items/itm_1/resubmissions", `"3"`, "k1", nil}},
		{func() { c.Resubmit(ctx, "itm_1", "k2") }, want{"POST", "/v1/items/itm_1/resubmissions", "", "k2", nil}},
		{func() { c.Resubmit(ctx, "itm_1", "k3", client.IfMatch(0)) }, want{"POST", "/v1/items/itm_1/resubmissions", "", "k3", nil}},
		{func() { c.RequestFile(ctx, "itm_1", "k4", policy.CodeDecodeFailed, "m", client.IfMatch(12)) },
			want{"POST", "/v1/items/itm_1/file-requests", `"12"`, "k4", map[string]any{"reason": "DECODE_FAILED", "message": "m"}}},
		{func() { c.Replace(ctx, "itm_1", "k5", "a.png", []byte("\x89PNG"), client.IfMatch(7)) }, want{"POST", "/v1/items/itm_1/replacement", `"7"`, "k5", nil}},
		{func() { c.AddNote(ctx, "itm_1", "k6", "hello", client.IfMatch(8)) }, want{"POST", "/v1/items/itm_1/notes", `"8"`, "k6", map[string]any{"text": "hello"}}},
		{func() { c.Claim(ctx, "itm_1", 15*time.Minute) }, want{"PUT", "/v1/items/itm_1/claim", "", "", map[string]any{"ttl_seconds": 900.0}}},
		{func() { c.Release(ctx, "itm_1") }, want{"DELETE", "/v1/items/itm_1/claim", "", "", nil}},
		{func() { c.Me(ctx) }, want{"GET", "/v1/me", "", "", nil}},
		// Contract 1.2.
		{func() { c.ReasonCodes(ctx) }, want{"GET", "/v1/reason-codes", "", "", nil}},
		{func() {
			c.Decide(ctx, "itm_1", "k7", policy.OutcomeReject, "DOC_TAMPERED", "MRZ differs", client.IfMatch(9))
		},
			want{"POST", "/v1/items/itm_1/decisions", `"9"`, "k7", map[string]any{"outcome": "reject", "reason_code": "DOC_TAMPERED", "comment": "MRZ differs"}}},
		{func() { c.Decide(ctx, "itm_1", "k8", policy.OutcomeClear, "DOC_GENUINE", "") },
			want{"POST", "/v1/items/itm_1/decisions", "", "k8", map[string]any{"outcome": "clear", "reason_code": "DOC_GENUINE"}}},
		{func() { c.Confirm(ctx, "itm_1", "dec_1", "k9", false, "photo is fine", client.IfMatch(10)) },
			want{"POST", "/v1/items/itm_1/decisions/dec_1/confirmation", `"10"`, "k9", map[string]any{"agree": false, "comment": "photo is fine"}}},
		{func() { c.Confirm(ctx, "itm_1", "dec_1", "k10", true, "") },
			want{"POST", "/v1/items/itm_1/decisions/dec_1/confirmation", "", "k10", map[string]any{"agree": true}}},
	} {
		tc.call()
		r, w := ws.next(t), tc.want
		checkCommon(t, r, w.method, w.path, w.key)
		if got := r.Header.Values("If-Match"); w.ifMatch == "" && len(got) != 0 || w.ifMatch != "" && (len(got) != 1 || got[0] != w.ifMatch) {
			t.Errorf("%s %s: If-Match %q, want %q", w.method, w.path, got, w.ifMatch)
		}
		if w.body == nil {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body) != len(w.body) {
			t.Errorf("%s %s: body %q, want %v", w.method, w.path, r.Body, w.body)
		}
		for k, v := range w.body {
			if body[k] != v {
				t.Errorf("%s %s: body %v, want %s=%v", w.method, w.path, body, k, v)
			}
		}
	}
}
