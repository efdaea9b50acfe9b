package screenapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// These tests speak raw HTTP, so the reference service is checked against
// the contract independently of the console's client.

func do(t *testing.T, srv *screenapi.Server, method, path, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer t")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

func start(t *testing.T) *screenapi.Server {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func TestContractRules(t *testing.T) {
	srv := start(t)
	retry := srv.FindCode("CLASSIFIER_TIMEOUT")
	fixed := srv.FindCode("DECODE_FAILED")

	if st, m := do(t, srv, "POST", "/v1/items/"+retry+"/resubmissions", "", ""); st != 422 || m["error_code"] != "VALIDATION_FAILED" {
		t.Fatalf("no key: %d %v", st, m)
	}
	st, first := do(t, srv, "POST", "/v1/items/"+retry+"/resubmissions", "k1", "")
	if st != 200 || first["status"] != "scored" {
		t.Fatalf("resubmit: %d %v", st, first)
	}
	if st, again := do(t, srv, "POST", "/v1/items/"+retry+"/resubmissions", "k1", ""); st != 200 || again["risk_score"] != first["risk_score"] {
		t.Fatalf("replay: %d %v", st, again)
	}
	if srv.Analyses(retry) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(retry))
	}
	if st, m := do(t, srv, "POST", "/v1/items/"+fixed+"/resubmissions", "k1", ""); st != 422 || m["error_code"] != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("reused: %d %v", st, m)
	}
	if st, m := do(t, srv, "POST", "/v1/items/"+fixed+"/resubmissions", "k2", ""); st != 422 || m["error_code"] != "NOT_RETRYABLE" {
		t.Fatalf("not retryable: %d %v", st, m)
	}
	if st, m := do(t, srv, "POST", "/v1/items/"+fixed+"/file-requests", "k3", `{"reason":"DECODE_FAILED","message":"new one please"}`); st != 201 || m["status"] != "sent" {
		t.Fatalf("file request: %d %v", st, m)
	}
	if _, m := do(t, srv, "GET", "/v1/items/"+fixed, "", ""); m["status"] != "awaiting_file" || m["error_code"] != nil {
		t.Fatalf("after file request: %v", m)
	}
	if st, m := do(t, srv, "GET", "/v1/items/nope", "", ""); st != 404 || m["error_code"] != "NOT_FOUND" {
		t.Fatalf("404: %d %v", st, m)
	}
}

func TestPagingAndAuth(t *testing.T) {
	srv := start(t)
	seen, cursor, pages := map[string]bool{}, "", 0
	for {
		_, m := do(t, srv, "GET", "/v1/batches?limit=7&cursor="+cursor, "", "")
		pages++
		for _, b := range m["batches"].([]any) {
			id := b.(map[string]any)["id"].(string)
			if seen[id] {
				t.Fatalf("batch %s twice", id)
			}
			seen[id] = true
		}
		next, _ := m["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(seen) != 48 || pages != 7 {
		t.Fatalf("%d batches in %d pages", len(seen), pages)
	}
	if _, m := do(t, srv, "GET", "/v1/batches?limit=500", "", ""); len(m["batches"].([]any)) != 48 {
		t.Fatal("limit is capped at 200, all 48 fit")
	}
	req, _ := http.NewRequest("GET", srv.URL()+"/v1/batches", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 401 {
		t.Fatalf("no token: %v %v", resp, err)
	}
	resp.Body.Close()
}

// cut sends a POST whose body stops half-way (the connection is closed for
// writing), as a proxy that cuts a request in transit does, and returns
// the answer's status line.
func cut(t *testing.T, srv *screenapi.Server, path, key, contentType string, body []byte) string {
	t.Helper()
	c, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer t\r\nIdempotency-Key: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		path, srv.Addr(), key, contentType, len(body))
	c.Write(body[:len(body)/2])
	c.(*net.TCPConn).CloseWrite()
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// A request whose body was cut in transit was never received: nothing is
// decided and its key is not kept, so the console's repeat with the same key
// (it reconciles an unknown outcome so) is carried out, not refused with a
// stored VALIDATION_FAILED.
func TestACutBodyIsNoVerdict(t *testing.T) {
	srv := start(t)
	ids := map[string]bool{}
	fixed, _ := srv.Find(func(it policy.RawItem) bool {
		return it.Status == "error" && it.ErrorCode != nil && *it.ErrorCode == "DECODE_FAILED" && it.RiskScore == nil && !ids[it.ID]
	})
	ids[fixed] = true
	other, _ := srv.Find(func(it policy.RawItem) bool {
		return it.Status == "error" && it.ErrorCode != nil && *it.ErrorCode == "DECODE_FAILED" && it.RiskScore == nil && !ids[it.ID]
	})

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "scan.pdf")
	fw.Write(append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 8<<10)...))
	mw.Close()
	path := "/v1/items/" + fixed + "/replacement"
	if line := cut(t, srv, path, "k-up", mw.FormDataContentType(), form.Bytes()); !strings.Contains(line, "400") {
		t.Fatalf("cut upload: %q", line)
	}
	req, _ := http.NewRequest("POST", srv.URL()+path, bytes.NewReader(form.Bytes()))
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("Idempotency-Key", "k-up")
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || srv.Analyses(fixed) != 1 || len(srv.Uploads(fixed)) != 1 {
		t.Fatalf("the upload repeated with its key: %d, %d analyses, %d uploads", resp.StatusCode, srv.Analyses(fixed), len(srv.Uploads(fixed)))
	}

	body := `{"reason":"DECODE_FAILED","message":"a new photo, please"}`
	path = "/v1/items/" + other + "/file-requests"
	if line := cut(t, srv, path, "k-fr", "application/json", []byte(body)); !strings.Contains(line, "400") {
		t.Fatalf("cut file request: %q", line)
	}
	if st, m := do(t, srv, "POST", path, "k-fr", body); st != 201 || srv.FileRequests(other) != 1 {
		t.Fatalf("the file request repeated with its key: %d %v, %d requests", st, m, srv.FileRequests(other))
	}
}

// waitFor waits until cond holds, as the service's counters move.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestShuttingDownAnswers503OnlyBeforeAnythingRan: a request cut by the
// service's shutdown gets 503 SERVICE_UNAVAILABLE, and then no analysis was
// counted (nothing ran, so the key is free again); never an analysis paid
// for behind a 503, nor an empty 200.
func TestShuttingDownAnswers503OnlyBeforeAnythingRan(t *testing.T) {
	for _, c := range []struct {
		name string
		opts screenapi.Options
		hold bool
	}{
		{"during the analysis", screenapi.Options{Token: "t"}, true},
		{"during the request's latency", screenapi.Options{Token: "t", Latency: time.Hour}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, err := screenapi.Start("127.0.0.1:0", c.opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			id := srv.FindCode("CLASSIFIER_TIMEOUT")
			if c.hold {
				defer srv.Hold(id)()
			}
			type result struct {
				status int
				body   map[string]any
			}
			got := make(chan result, 1)
			go func() {
				req, _ := http.NewRequest("POST", srv.URL()+"/v1/items/"+id+"/resubmissions", nil)
				req.Header.Set("Authorization", "Bearer t")
				req.Header.Set("Idempotency-Key", "k-shutdown")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					got <- result{status: -1}
					return
				}
				defer resp.Body.Close()
				var m map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&m)
				got <- result{resp.StatusCode, m}
			}()
			waitFor(t, "the request to arrive", func() bool { return srv.Arrivals(screenapi.EPResubmit) == 1 })
			srv.Close()
			r := <-got
			if r.status != 503 || r.body["error_code"] != "SERVICE_UNAVAILABLE" {
				t.Fatalf("answer while shutting down: %d %v", r.status, r.body)
			}
			if n := srv.Analyses(id); n != 0 {
				t.Fatalf("503 after %d analyses were counted: the answer of a paid analysis was lost", n)
			}
		})
	}
}
