package review

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// waiters is how many askers share the fetch of a version now.
func (c *docCache) waiters(k docKey) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.flights[k]; f != nil {
		return f.waiters
	}
	return 0
}

// until waits for cond, yielding (no timer decides the outcome); it fails
// the test after a generous time for -race on two loaded cores.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// docService is a workflow synced from the reference service on loopback.
func docService(t *testing.T) (*Service, *screenapi.Server) {
	t.Helper()
	const tok = "tok-documents-0123456789"
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	db, err := store.Open(filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := client.DefaultConfig()
	cfg.BaseURL, cfg.Token, cfg.Timeout, cfg.Reserve = srv.URL(), tok, 20*time.Second, 20*time.Millisecond
	api, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	svc, err := New(db, api, Config{Budget: cfg.Budget(), Reviewer: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Sync.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return svc, srv
}

// Two asks for the same version at once make one request, and both get
// the bytes; one asker giving up does not stop the other's.
func TestTwoAsksForOneDocumentMakeOneRequest(t *testing.T) {
	svc, srv := docService(t)
	ctx := context.Background()
	const id = "itm_0001_03"
	want, _, _ := srv.File(id, 1)
	release := srv.HoldFile(id)
	defer release()

	quitter, quit := context.WithCancel(ctx)
	var wg sync.WaitGroup
	got := make([]Document, 2)
	errs := make([]error, 3)
	for i, c := range []context.Context{ctx, ctx, quitter} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := svc.Documents.Document(c, id, 1)
			if i < 2 {
				got[i] = d
			}
			errs[i] = err
		}()
	}
	key := docKey{item: id, version: 1}
	until(t, "three askers on one fetch", func() bool { return svc.docs.waiters(key) == 3 })
	quit()
	until(t, "the request at the service", func() bool { return srv.Arrivals(screenapi.EPFile) == 1 })
	release()
	wg.Wait()
	for i := 0; i < 2; i++ {
		if errs[i] != nil || !bytes.Equal(got[i].Data, want) {
			t.Fatalf("asker %d: %v", i, errs[i])
		}
	}
	if errs[2] != context.Canceled {
		t.Fatalf("the asker who gave up: %v", errs[2])
	}
	if n := srv.Arrivals(screenapi.EPFile); n != 1 {
		t.Fatalf("%d requests for one version asked three times at once", n)
	}
}

// A fetch outlives the asker who gave up, not the service: Close cancels
// it and returns once it has ended, and nothing it brought is kept; a
// fetch asked for after Close ends at once, with no request.
func TestCloseEndsTheFetchesUnderWay(t *testing.T) {
	svc, srv := docService(t)
	const id = "itm_0001_03"
	release := srv.HoldFile(id)
	defer release()
	asker, quit := context.WithCancel(context.Background())
	asked := make(chan error, 1)
	go func() {
		_, err := svc.Documents.Document(asker, id, 1)
		asked <- err
	}()
	until(t, "the request at the service", func() bool { return srv.Arrivals(screenapi.EPFile) == 1 })
	quit()
	if err := <-asked; err != context.Canceled {
		t.Fatalf("the asker who gave up: %v", err)
	}
	key := docKey{item: id, version: 1}
	if svc.docs.waiters(key) == 0 {
		t.Fatal("the fetch ended with its asker")
	}
	closed := make(chan struct{})
	go func() {
		svc.Close()
		close(closed)
	}()
	until(t, "Close, with the service still holding the file", func() bool {
		select {
		case <-closed:
			return true
		default:
			return false
		}
	})
	if svc.docs.waiters(key) != 0 {
		t.Fatal("Close returned with the fetch under way")
	}
	if _, ok := svc.docs.get(key); ok {
		t.Fatal("the cancelled fetch was kept")
	}
	if _, err := svc.Documents.Document(context.Background(), id, 1); err == nil {
		t.Fatal("a fetch after Close brought the file")
	}
	if n := srv.Arrivals(screenapi.EPFile); n != 1 {
		t.Fatalf("%d requests for the file; a fetch after Close made one", n)
	}
}

// The cache's bound holds through any order of puts and gets; the least
// recently used goes first; a document larger than the bound is not kept.
func TestDocCacheBound(t *testing.T) {
	var c docCache
	c.setLimit(1000)
	doc := func(item string, n int) Document { return Document{ItemID: item, Version: 1, Data: make([]byte, n)} }
	c.put(doc("a", 400))
	c.put(doc("b", 400))
	if _, ok := c.get(docKey{"a", 1}); !ok {
		t.Fatal("a")
	}
	c.put(doc("c", 400)) // b is the least recently used
	if _, ok := c.get(docKey{"b", 1}); ok {
		t.Fatal("b stayed")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(docKey{k, 1}); !ok {
			t.Fatalf("%s went", k)
		}
	}
	c.put(doc("huge", 1001))
	if _, ok := c.get(docKey{"huge", 1}); ok {
		t.Fatal("a document over the bound was kept")
	}
	for i := 0; i < 200; i++ {
		c.put(doc(string(rune('A'+i%50)), 1+(i*37)%500))
		if used, bound := c.use(); used > bound {
			t.Fatalf("%d bytes over a bound of %d", used, bound)
		}
	}
	c.setLimit(100)
	if used, _ := c.use(); used > 100 {
		t.Fatalf("a lower bound left %d bytes", used)
	}
}
