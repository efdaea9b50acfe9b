package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// pageCounter is a loopback proxy in front of the service that counts the
// pages, batches and items it passes on to one console: what that console
// received. before, when set, runs before the n-th page is asked of the
// service (from 1).
type pageCounter struct {
	url    string
	mu     sync.Mutex
	asked  int
	pages  int
	counts struct{ batches, items int }
}

func newPageCounter(t *testing.T, upstream string, before func(n int)) *pageCounter {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	pc := &pageCounter{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.URL.Path != "/v1/batches" || resp.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var page struct {
			Batches []struct {
				Items []json.RawMessage `json:"items"`
			} `json:"batches"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		pc.mu.Lock()
		defer pc.mu.Unlock()
		pc.pages++
		for _, b := range page.Batches {
			pc.counts.batches++
			pc.counts.items += len(b.Items)
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/batches" && before != nil {
			pc.mu.Lock()
			pc.asked++
			n := pc.asked
			pc.mu.Unlock()
			before(n)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	pc.url = srv.URL
	return pc
}

func (pc *pageCounter) received() (pages, batches, items int) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.pages, pc.counts.batches, pc.counts.items
}

var syncedLine = regexp.MustCompile(`^synced (\d+) pages: (\d+) batches, (\d+) items \((\d+) changed, (\d+) invalid answers stored as invalid(?:; (\d+) batch(?:es)? already written by another sync of this cache running at the same time)?\)\n`)

// Two 'reviewer sync' at once on one fresh cache: each says what it took
// in from the service, counted at the service's door, even where the other
// wrote it first; what each wrote adds up to the cache. The second sync
// used to say it took in only the batches it wrote itself: on the first
// page, here, "1 pages: 100 batches" of the 300 it received.
func TestTwoSyncsAtOnceEachSayWhatItReceived(t *testing.T) {
	const batches, perBatch = 300, 10 // three pages of 100
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: token, Batches: batches, ItemsPerBatch: perBatch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	console := func(api string) *harness {
		return &harness{t: t, srv: srv, dir: dir, env: map[string]string{
			"REVIEWER_API_URL": api, "REVIEWER_API_TOKEN": token, "REVIEWER_DB": filepath.Join(dir, "cache.db"),
			"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "30s", "REVIEWER_NAME": "ana",
		}}
	}

	// The second sync has its first page; while it asks for the second,
	// the first sync runs from start to end.
	asking, firstDone := make(chan struct{}), make(chan struct{})
	second := newPageCounter(t, srv.URL(), func(n int) {
		if n == 2 {
			close(asking)
			<-firstDone
		}
	})
	first := newPageCounter(t, srv.URL(), nil)
	type result struct {
		code      int
		out, errs string
	}
	ended := make(chan result, 1)
	go func() {
		code, out, errs := console(second.url).run("sync")
		ended <- result{code, out, errs}
	}()
	select {
	case <-asking:
	case r := <-ended:
		close(firstDone)
		t.Fatalf("the second sync ended before its second page: exit %d\n%s%s", r.code, r.out, r.errs)
	}
	outFirst, _ := console(first.url).want(0, "sync")
	close(firstDone)
	r := <-ended
	if r.code != 0 {
		t.Fatalf("the second sync: exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errs)
	}

	changed, invalid := 0, map[string]bool{}
	for _, c := range []struct {
		name, out string
		pc        *pageCounter
	}{{"first", outFirst, first}, {"second", r.out, second}} {
		m := syncedLine.FindStringSubmatch(c.out)
		if m == nil {
			t.Fatalf("the %s sync's summary: %q", c.name, c.out)
		}
		pages, got, items := c.pc.received()
		if got != batches || items != batches*perBatch {
			t.Fatalf("the %s sync received %d batches, %d items; the service holds %d, %d", c.name, got, items, batches, batches*perBatch)
		}
		if m[1] != strconv.Itoa(pages) || m[2] != strconv.Itoa(got) || m[3] != strconv.Itoa(items) {
			t.Errorf("the %s sync says %q; it received %d pages: %d batches, %d items", c.name, strings.TrimSpace(c.out), pages, got, items)
		}
		n, _ := strconv.Atoi(m[4])
		changed += n
		invalid[m[5]] = true // the same answers, judged the same
		if c.name == "second" {
			// Its second and third pages were all written by the first.
			if others, _ := strconv.Atoi(m[6]); others < batches-100 || others > batches {
				t.Errorf("the second sync says %q: want at least %d batches written by the other", strings.TrimSpace(c.out), batches-100)
			}
		}
	}
	if len(invalid) != 1 {
		t.Errorf("the two syncs counted different invalid answers: %v", invalid)
	}
	if changed != batches*perBatch {
		t.Errorf("the two syncs wrote %d items between them; the service holds %d", changed, batches*perBatch)
	}
	db, err := store.Open(filepath.Join(dir, "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if nb, ni, err := db.Items.Counts(context.Background()); err != nil || nb != batches || ni != batches*perBatch {
		t.Fatalf("the cache holds %d batches, %d items (%v)", nb, ni, err)
	}
}
