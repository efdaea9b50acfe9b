package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

// echoToken rewrites every answer of the service so that it echoes the
// caller's token in each string a person reads: error messages (of a 412
// too), the items and the item a 412 carries, notes, claims' reviewers,
// batches' customer references, GET /v1/me's display name. Ids and codes
// stay as they are, so the console still works.
func echoToken(t *testing.T, upstream string) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	poison := map[string]bool{"error_message": true, "customer_ref": true, "file_name": true, "text": true,
		"author": true, "display_name": true}
	var walk func(v any, tok string, inClaim bool) any
	walk = func(v any, tok string, inClaim bool) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (poison[k] || (inClaim && k == "reviewer")) {
					x[k] = s + " (Bearer " + tok + ")"
					continue
				}
				x[k] = walk(e, tok, k == "claim")
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e, tok, false)
			}
		}
		return v
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		tok := strings.TrimPrefix(resp.Request.Header.Get("Authorization"), "Bearer ")
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			b, _ = json.Marshal(walk(v, tok, false))
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Rule 7 against a service that echoes the token in everything it sends:
// after a sync, a 412, a note, me, item and a CSV export, neither the
// cache (its file, its WAL) nor any output nor the export holds it.
func TestATokenEchoedByTheServiceReachesNoCacheNoOutputNoExport(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(name, tok, api string) *harness {
		dir := t.TempDir()
		return &harness{t: t, srv: srv, dir: dir, env: map[string]string{
			"REVIEWER_API_URL": api, "REVIEWER_API_TOKEN": tok, "REVIEWER_DB": filepath.Join(dir, name+".db"),
			"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "15s",
		}}
	}
	ana := mk("ana", anaTok, echoToken(t, srv.URL()))
	ben := mk("ben", benTok, srv.URL()) // ben talks to the plain service
	ben.want(0, "sync")

	// Ben leaves a note and holds an item, so that ana's sync brings notes
	// and a claim (each echoed with her token).
	held := srv.FindCode("CLASSIFIER_TIMEOUT")
	ben.want(0, "note", held, "Customer called.")
	ben.want(0, "claim", held)

	var outputs []string
	keep := func(out, errs string) { outputs = append(outputs, out, errs) }
	keep(ana.want(0, "sync"))
	keep(ana.want(0, "me"))
	keep(ana.want(0, "me", "--json"))

	// A 412: ben re-analyses an item after ana's sync, then ana acts on
	// what she saw. The refusal's message and item echo her token.
	changed := srv.FindCode("INTERNAL_ERROR")
	ben.want(0, "resubmit", changed)
	keep(ana.want(6, "resubmit", changed))

	keep(ana.want(0, "note", changed, "Looked at it."))
	for _, id := range []string{held, changed} {
		keep(ana.want(0, "item", id))
		keep(ana.want(0, "item", id, "--json"))
	}
	keep(ana.want(0, "items", "--json"))
	csvPath := filepath.Join(ana.dir, "export.csv")
	keep(ana.want(0, "export", "--csv", csvPath))

	all := strings.Join(outputs, "\n")
	if strings.Contains(all, anaTok) {
		t.Errorf("an output holds the token:\n%s", all)
	}
	for _, want := range []string{"Ana Lima (Bearer [redacted])", "ITEM_CHANGED"} {
		if !strings.Contains(all, want) {
			t.Errorf("the outputs lack %q (the echo must arrive, redacted):\n%s", want, all)
		}
	}
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(csv, []byte(anaTok)) || !bytes.Contains(csv, []byte("(Bearer [redacted])")) {
		t.Errorf("the export holds the token, or no redacted echo:\n%s", csv)
	}
	db := ana.env["REVIEWER_DB"]
	seen := false
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(anaTok)) {
			t.Errorf("%s holds the token", filepath.Base(f))
		}
		seen = seen || bytes.Contains(b, []byte("(Bearer [redacted])"))
	}
	if !seen {
		t.Error("the cache holds no redacted echo: the service's strings did not arrive")
	}
}

// A token shorter than 16 characters stops the console at start (exit 2),
// in words that never repeat it; demo-api refuses to hand one out.
func TestAShortTokenIsRefusedAtStart(t *testing.T) {
	h := newHarness(t)
	h.env["REVIEWER_API_TOKEN"] = "short-tok-0123"
	_, errs := h.want(2, "sync")
	if !strings.Contains(errs, "REVIEWER_API_TOKEN holds a token of 14 characters; a token has at least 16") ||
		strings.Contains(errs, "short-tok-0123") {
		t.Fatalf("stderr: %q", errs)
	}
	if n := h.srv.Arrivals(screenapi.EPBatches); n != 0 {
		t.Fatalf("%d calls with a refused token", n)
	}
	_, errs = h.want(2, "demo-api", "--reviewer", "ana=tok-ana")
	if !strings.Contains(errs, "at least 16") || strings.Contains(errs, "tok-ana") {
		t.Fatalf("demo-api: %q", errs)
	}
}
