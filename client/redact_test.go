package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
)

// echoingService is a service that writes the caller's token into every
// string it sends back: error bodies, items (and the item of a 412),
// notes, claims, decisions, reason codes, batches' customer references,
// GET /v1/me.
func echoingService(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		echo := func(s string) string { return s + " (Bearer " + tok + ")" }
		now := time.Now().UTC()
		item := map[string]any{
			"id": "itm_1", "batch_id": "bat_1", "kind": "id_document", "file_name": echo("scan.jpg"), "media_type": "image/jpeg",
			"size_bytes": 10, "status": "error", "risk_score": nil, "recommendation": nil, "layers": nil,
			"error_code": "CLASSIFIER_TIMEOUT", "error_message": echo("the classifier timed out"), "attempt": 1,
			"updated_at": now, "revision": 2, "status_since": now,
			"claim": map[string]any{"reviewer": echo("ben"), "expires_at": now.Add(time.Hour)},
			"notes": []map[string]any{{"id": "n1", "author": echo("ben"), "text": echo("called the customer"), "created_at": now}},
			"decisions": []map[string]any{{"id": "dec_1", "outcome": "reject", "reason_code": echo("DOC_TAMPERED"), "comment": echo("edited"),
				"by": echo("ana"), "at": now, "state": "final", "confirmation": map[string]any{"by": echo("ben"), "at": now, "agree": true, "comment": echo("seen")}}},
		}
		w.Header().Set("Content-Type", "application/json")
		var body any
		switch {
		case r.URL.Path == "/v1/me":
			body = map[string]any{"reviewer": "ana", "display_name": echo("Ana Lima")}
		case r.URL.Path == "/v1/batches":
			body = map[string]any{"batches": []map[string]any{{"id": "bat_1", "customer_ref": echo("ACME-7"),
				"created_at": now, "updated_at": now, "items": []any{item}}}, "next_cursor": nil}
		case strings.HasSuffix(r.URL.Path, "/resubmissions"):
			w.WriteHeader(http.StatusPreconditionFailed)
			body = map[string]any{"error_code": "ITEM_CHANGED", "error_message": echo("revision 1 is not current"), "item": item}
		case strings.HasSuffix(r.URL.Path, "/notes"):
			w.WriteHeader(http.StatusCreated)
			body = map[string]any{"id": "n2", "author": echo("ana"), "text": echo("a note"), "created_at": now}
		case r.URL.Path == "/v1/reason-codes":
			body = map[string]any{"reason_codes": []map[string]any{{"code": "DOC_TAMPERED", "label": echo("Signs of editing"), "outcomes": []string{"reject"}}}}
		case strings.HasSuffix(r.URL.Path, "/decisions"):
			w.WriteHeader(http.StatusCreated)
			body = item
		case strings.HasSuffix(r.URL.Path, "/claim"):
			body = item
		case strings.HasSuffix(r.URL.Path, "/file-requests"):
			w.WriteHeader(http.StatusForbidden)
			body = map[string]any{"error_code": "FORBIDDEN " + tok, "error_message": tok + ": not for you"}
		default:
			body = item
		}
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func echoClient(t *testing.T, url, tok string) *client.Client {
	t.Helper()
	cfg := testConfig(url)
	cfg.Token = client.Secret(tok)
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Every string of every answer loses the token before the client returns
// it: nothing above the client (cache, export, screen) ever holds it.
func TestAServiceThatEchoesTheTokenNeverGetsItPastTheClient(t *testing.T) {
	const tok = "tok-echo-0123456789abcdef"
	srv := echoingService(t)
	c := echoClient(t, srv.URL, tok)
	ctx := context.Background()
	var got []any
	leak := func(what string, v any, err error) {
		t.Helper()
		b, _ := json.Marshal(v)
		s := fmt.Sprintf("%s %+v %v", b, v, err)
		if strings.Contains(s, tok) {
			t.Errorf("%s carries the token: %s", what, s)
		}
		if !strings.Contains(s, "[redacted]") {
			t.Errorf("%s: the echo did not arrive as [redacted]: %s", what, s)
		}
		got = append(got, v)
	}
	id, _, err := c.Me(ctx)
	leak("me", id, err)
	page, _, err := c.ListBatches(ctx, time.Time{}, "", 0)
	leak("a page", page, err)
	it, _, err := c.GetItem(ctx, "itm_1")
	leak("an item", it, err)
	it, _, err = c.Claim(ctx, "itm_1", 15*time.Minute)
	leak("a claim", it, err)
	n, _, err := c.AddNote(ctx, "itm_1", "k-note", "a note")
	leak("a note", n, err)
	codes, _, err := c.ReasonCodes(ctx)
	leak("the reason codes", codes, err)
	it, _, err = c.Decide(ctx, "itm_1", "k-dec", policy.OutcomeReject, "DOC_TAMPERED", "edited")
	leak("a decision", it, err)
	if d := it.CurrentDecision(); d == nil || d.Confirmation == nil {
		t.Fatalf("the decision did not arrive: %+v", it)
	}
	_, attempts, err := c.Resubmit(ctx, "itm_1", "k-1", client.IfMatch(1))
	e, ok := client.AsError(err)
	if !ok || e.Code != policy.CodeItemChanged || e.Item == nil || e.Item.Claim == nil || len(e.Item.Notes) != 1 {
		t.Fatalf("412: %+v", err)
	}
	leak("a 412", e, err)
	leak("a 412's item", e.Item, nil)
	leak("the attempts of a 412", attempts, nil)
	_, attempts, err = c.RequestFile(ctx, "itm_1", "k-2", "DECODE_FAILED", "please send a new scan")
	leak("a 403", err, err)
	leak("the attempts of a 403", attempts, nil)
	if e, _ := client.AsError(err); e == nil || e.Code != "FORBIDDEN [redacted]" || e.ReportedCode != "FORBIDDEN [redacted]" {
		t.Fatalf("403: %+v", err)
	}
}

// The token is matched as a whole word, not a substring: a short token
// (only a client built by hand can have one: the configuration refuses
// it) must not eat into the words around it.
func TestTheTokenIsRedactedAsAWholeWord(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error_code":"FORBIDDEN","error_message":"x509: token x (\"x\", x.) refused; xx x509x axb x"}`)
	}))
	t.Cleanup(srv.Close)
	c := echoClient(t, srv.URL, "x")
	_, _, err := c.GetItem(context.Background(), "itm_1")
	e, ok := client.AsError(err)
	want := `x509: token [redacted] ("[redacted]", [redacted].) refused; xx x509x axb [redacted]`
	if !ok || e.Message != want {
		t.Fatalf("message %q\nwant    %q", e.Message, want)
	}
}

// A token of the length the console accepts is redacted wherever it
// stands, glued to letters and digits too: a service that echoes
// "x<token>0" must not get it past the client.
func TestALongTokenIsRedactedEvenGluedToAWord(t *testing.T) {
	const tok = "tok-secret-abcdef-123456"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error_code":"FORBIDDEN","error_message":"x`+tok+`0 and `+tok+`x509 and `+tok+`"}`)
	}))
	t.Cleanup(srv.Close)
	c := echoClient(t, srv.URL, tok)
	_, _, err := c.GetItem(context.Background(), "itm_1")
	e, ok := client.AsError(err)
	want := `x[redacted]0 and [redacted]x509 and [redacted]`
	if !ok || e.Message != want {
		t.Fatalf("message %q\nwant    %q", e.Message, want)
	}
}
