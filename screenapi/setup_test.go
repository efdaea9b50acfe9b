package screenapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/screenapi"
)

// The version 1.1 tests speak raw HTTP: the names and codes of the
// contract, spelled out in the tests rather than taken from the console's
// structs. start11 serves ana and ben on a clock the test moves.

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const anaTok, benTok = "tok-ana", "tok-ben"

func start11(t *testing.T, version string) (*screenapi.Server, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Now: clk.Now,
		Reviewers: []screenapi.Reviewer{{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, clk
}

type req struct {
	tok, method, path, key, ifMatch, body string
	// fresh: on a connection of its own, so that Go's transport, which
	// repeats a request with an Idempotency-Key when a kept-alive
	// connection fails, shows the failure.
	fresh bool
}

func call(t *testing.T, srv *screenapi.Server, r req) (int, map[string]any) {
	t.Helper()
	st, m, err := rawCall(srv, r)
	if err != nil {
		t.Fatal(err)
	}
	return st, m
}

// rawCall is call for a request whose connection may fail (a fault's
// reset): the transport's error is returned, not fatal.
func rawCall(srv *screenapi.Server, r req) (int, map[string]any, error) {
	hr, _ := http.NewRequest(r.method, srv.URL()+r.path, strings.NewReader(r.body))
	if r.tok != "" {
		hr.Header.Set("Authorization", "Bearer "+r.tok)
	}
	if r.key != "" {
		hr.Header.Set("Idempotency-Key", r.key)
	}
	if r.ifMatch != "" {
		hr.Header.Set("If-Match", r.ifMatch)
	}
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	cl := http.DefaultClient
	if r.fresh {
		cl = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	}
	resp, err := cl.Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m, nil
}
