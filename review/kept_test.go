package review_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// keptClock is a clock that a test moves.
type keptClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *keptClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *keptClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// setupKept is setup with a place for kept documents (their key in the
// mock keyring under a service of the test's own).
func setupKept(t *testing.T) (*env, *keptdocs.Store, *keptClock) {
	t.Helper()
	keyring.MockInit()
	e := setup(t)
	e.sync(t)
	clk := &keptClock{t: time.Now()}
	k := keptdocs.Open(e.path, keyring.New("test.review."+t.Name()))
	k.SetClock(clk.Now)
	e.with(t, func(c *review.Config) { c.KeptDocuments = k })
	return e, k, clk
}

func batchOf(t *testing.T, e *env, itemID string) string {
	t.Helper()
	it, err := e.db.Items.Item(context.Background(), itemID)
	if err != nil {
		t.Fatal(err)
	}
	return it.BatchID
}

// offline cuts the service off: nothing reaches it, not even on an idle
// connection.
func offline(t *testing.T, e *env) {
	e.srv.Refuse()
	e.api.Close()
	t.Cleanup(func() { _ = e.srv.Accept() })
}

// Keeping a batch keeps every version of its items' documents, with a
// progress report per item; offline, the documents come from the kept
// copies (memory forgotten), and an item of another batch is "offline and
// not kept".
func TestKeepBatchThenReadOffline(t *testing.T) {
	e, k, _ := setupKept(t)
	ctx := context.Background()
	id := e.srv.FindCode("DECODE_FAILED")
	upload, _, _ := e.srv.File("itm_0001_01", 1)
	if _, err := e.svc.Actions.Replace(ctx, id, "rescan.jpg", upload, review.ReplaceOptions{}); err != nil {
		t.Fatal(err)
	}
	batch := batchOf(t, e, id)
	items, _ := e.svc.Triage.Items(ctx, store.ItemFilter{BatchID: batch})
	var seen []review.KeepProgress
	rep, err := e.svc.Kept.KeepBatch(ctx, batch, func(p review.KeepProgress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != len(items) || rep.ItemsDone != len(items) || rep.Kept != len(items)+1 || rep.Failed != 0 || len(seen) != len(items) {
		t.Fatalf("report %+v, %d progress reports, %d items", rep, len(seen), len(items))
	}
	if kb, err := e.svc.Kept.BatchKept(ctx, batch); err != nil || kb.ItemsKept != len(items) || kb.Documents != len(items)+1 {
		t.Fatalf("BatchKept %+v %v", kb, err)
	}
	// Again: nothing is fetched, everything is already kept.
	n := e.srv.Arrivals(screenapi.EPFile)
	e.svc.Documents.ForgetDocuments()
	if rep, err := e.svc.Kept.KeepBatch(ctx, batch, nil); err != nil || rep.Kept != len(items)+1 || rep.Bytes != 0 || e.srv.Arrivals(screenapi.EPFile) != n {
		t.Fatalf("again: %+v %v, %d requests", rep, err, e.srv.Arrivals(screenapi.EPFile)-n)
	}

	offline(t, e)
	e.svc.Documents.ForgetDocuments()
	first, _, _ := e.srv.File(id, 1)
	for v, want := range map[int][]byte{0: upload, 1: first, 2: upload} {
		doc, err := e.svc.Documents.Document(ctx, id, v)
		if err != nil || !bytes.Equal(doc.Data, want) {
			t.Fatalf("offline, version %d: %v", v, err)
		}
	}
	var other string
	for _, it := range []string{"itm_0002_01", "itm_0003_01", "itm_0004_01"} {
		if batchOf(t, e, it) != batch {
			other = it
			break
		}
	}
	_, err = e.svc.Documents.Document(ctx, other, 0)
	if d := docErr(t, err, review.DocOffline); d.Error() != "it is offline and not kept" {
		t.Fatal(d)
	}
	if use, _ := e.svc.Kept.KeptDocumentsUse(); use.Count != len(items)+1 || use.Bytes <= 0 {
		t.Fatalf("use %+v", use)
	}
	_ = k
}

// A kept copy that does not open (another key) is "offline and not kept"
// offline, destroys nothing, and keeping the batch again (online) replaces
// it.
func TestKeptWithAnotherKey(t *testing.T) {
	e, k, _ := setupKept(t)
	ctx := context.Background()
	id := "itm_0001_01"
	batch := batchOf(t, e, id)
	if _, err := e.svc.Kept.KeepBatch(ctx, batch, nil); err != nil {
		t.Fatal(err)
	}
	other := make([]byte, 32)
	rand.Read(other)
	secrets := keyring.New("test.review." + t.Name())
	if err := secrets.Set(keptdocs.KeyName, base64.StdEncoding.EncodeToString(other)); err != nil {
		t.Fatal(err)
	}
	fresh := keptdocs.Open(e.path, secrets) // the next run reads the new key
	e.with(t, func(c *review.Config) { c.KeptDocuments = fresh })
	e.svc.Documents.ForgetDocuments()
	before, _ := os.ReadDir(keptdocs.Dir(e.path))

	e.srv.Refuse()
	e.api.Close()
	_, err := e.svc.Documents.Document(ctx, id, 0)
	docErr(t, err, review.DocOffline)
	if after, _ := os.ReadDir(keptdocs.Dir(e.path)); len(after) != len(before) || !k.Has(id, 1) {
		t.Fatalf("a copy that did not open was removed: %d then %d files", len(before), len(after))
	}
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	rep, err := e.svc.Kept.KeepBatch(ctx, batch, nil)
	if err != nil || rep.Bytes == 0 {
		t.Fatalf("keep again: %+v %v", rep, err)
	}
	offline(t, e)
	e.svc.Documents.ForgetDocuments()
	want, _, _ := e.srv.File(id, 1)
	if doc, err := e.svc.Documents.Document(ctx, id, 0); err != nil || !bytes.Equal(doc.Data, want) {
		t.Fatalf("after keeping again: %v", err)
	}
}

// Unkeep removes the batch's kept documents, and only those.
func TestUnkeepBatch(t *testing.T) {
	e, k, _ := setupKept(t)
	ctx := context.Background()
	a, b := batchOf(t, e, "itm_0001_01"), ""
	for _, it := range []string{"itm_0002_01", "itm_0003_01", "itm_0004_01"} {
		if batchOf(t, e, it) != a {
			b = batchOf(t, e, it)
			break
		}
	}
	ra, err := e.svc.Kept.KeepBatch(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := e.svc.Kept.KeepBatch(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.svc.Kept.UnkeepBatch(ctx, a)
	if err != nil || rep.Count() != ra.Kept || rep.Bytes != ra.Bytes {
		t.Fatalf("unkeep: %d removed, %d bytes (kept %d, %d bytes): %v", rep.Count(), rep.Bytes, ra.Kept, ra.Bytes, err)
	}
	for _, r := range rep.Removed {
		if r.BatchID != a || r.Why != review.KeptUnkept {
			t.Fatalf("removed %+v", r)
		}
	}
	if n, _, _ := k.Usage(); n != rb.Kept {
		t.Fatalf("%d kept after unkeep, want batch b's %d", n, rb.Kept)
	}
	if kb, _ := e.svc.Kept.BatchKept(ctx, a); kb.Documents != 0 {
		t.Fatalf("batch a still kept: %+v", kb)
	}
	if _, err := e.svc.Kept.UnkeepBatch(ctx, "no-such-batch"); err == nil {
		t.Fatal("unkeep of a batch the cache does not hold")
	}
}

// Retention on an injected clock: a batch that no longer needs the
// reviewer loses its kept documents at once; one that does keeps them
// until the retention period ends, and offline an expired copy is not
// shown even before it is removed.
func TestKeptRetention(t *testing.T) {
	e, k, clk := setupKept(t)
	e.svc.SetClock(clk.Now)
	ctx := context.Background()
	bs, err := e.svc.Triage.Batches(ctx, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var needs, done string
	for _, b := range bs {
		vs, _ := e.svc.Triage.Items(ctx, store.ItemFilter{BatchID: b.ID})
		any := false
		for _, v := range vs {
			any = any || v.NeedsReviewer()
		}
		if any && needs == "" {
			needs = b.ID
		}
		if !any && done == "" {
			done = b.ID
		}
	}
	if needs == "" || done == "" {
		t.Fatalf("the demo data lacks a batch that needs the reviewer (%q) or one that does not (%q)", needs, done)
	}
	rn, err := e.svc.Kept.KeepBatch(ctx, needs, nil)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := e.svc.Kept.KeepBatch(ctx, done, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.with(t, func(c *review.Config) { c.KeptDocumentRetention = 48 * time.Hour })

	due, err := e.svc.Kept.KeptDocumentsDue(ctx, clk.Now(), e.svc.Kept.KeptDocumentRetention())
	if err != nil || len(due) != rd.Kept {
		t.Fatalf("due: %d, %v; want batch %s's %d", len(due), err, done, rd.Kept)
	}
	if n, _, _ := k.Usage(); n != rn.Kept+rd.Kept {
		t.Fatal("the dry run removed something")
	}
	rep, err := e.svc.Kept.ApplyKeptDocumentRetention(ctx)
	if err != nil || rep.Count() != rd.Kept {
		t.Fatalf("purge: %d, %v", rep.Count(), err)
	}
	for _, r := range rep.Removed {
		if r.BatchID != done || r.Why != review.KeptBatchDone {
			t.Fatalf("removed %+v", r)
		}
	}
	clk.Add(47 * time.Hour)
	if rep, _ := e.svc.Kept.ApplyKeptDocumentRetention(ctx); rep.Count() != 0 {
		t.Fatalf("removed %d before the retention ended", rep.Count())
	}
	// Past the retention, offline: not shown, though not yet removed.
	clk.Add(time.Hour)
	items, _ := e.svc.Triage.Items(ctx, store.ItemFilter{BatchID: needs})
	e.srv.Refuse()
	e.api.Close()
	e.svc.Documents.ForgetDocuments()
	_, err = e.svc.Documents.Document(ctx, items[0].ID, 0)
	docErr(t, err, review.DocOffline)
	if err := e.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	rep, err = e.svc.Kept.ApplyKeptDocumentRetention(ctx)
	if err != nil || rep.Count() != rn.Kept {
		t.Fatalf("purge at the retention: %d, %v", rep.Count(), err)
	}
	for _, r := range rep.Removed {
		if r.Why != review.KeptExpired {
			t.Fatalf("removed %+v", r)
		}
	}
	if n, b, _ := k.Usage(); n != 0 || b != 0 {
		t.Fatalf("%d kept, %d bytes", n, b)
	}
	// Remove all: everything, whatever its age.
	if _, err := e.svc.Kept.KeepBatch(ctx, needs, nil); err != nil {
		t.Fatal(err)
	}
	if rep, err := e.svc.Kept.RemoveAllKeptDocuments(ctx); err != nil || rep.Count() != rn.Kept {
		t.Fatalf("remove all: %d %v", rep.Count(), err)
	}
}

// Keeping against a 1.0 service says that it offers no documents.
func TestKeepFromA10Service(t *testing.T) {
	keyring.MockInit()
	e := setupVersion(t, screenapi.Version10)
	e.sync(t)
	e.with(t, func(c *review.Config) { c.KeptDocuments = keptdocs.Open(e.path, keyring.New("test.review.kept10")) })
	_, err := e.svc.Kept.KeepBatch(context.Background(), batchOf(t, e, "itm_0001_01"), nil)
	docErr(t, err, review.DocNotOffered)
}

// Keeping and reading kept documents writes nothing of them anywhere but
// their encrypted files: not the audit, not the cache file, not a
// temporary file (the folder holds only the kept files when it is done),
// and the errors say nothing of them.
func TestKeptDocumentsLeaveNothingBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	e, _, _ := setupKept(t)
	ctx := context.Background()
	id := e.srv.FindCode("DECODE_FAILED")
	batch := batchOf(t, e, id)
	items, _ := e.svc.Triage.Items(ctx, store.ItemFilter{BatchID: batch})
	auditOf := func() int {
		n := 0
		for _, it := range items {
			d, err := e.svc.Triage.Item(ctx, it.ID)
			if err != nil {
				t.Fatal(err)
			}
			n += len(d.Audit)
		}
		return n
	}
	before := auditOf()
	// A damaged answer on the way: its error names no byte of it.
	e.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1})
	rep, err := e.svc.Kept.KeepBatch(ctx, batch, nil)
	if err != nil || rep.Failed != 1 || len(rep.Problems) != 1 {
		t.Fatalf("keep: %+v %v", rep, err)
	}
	if _, err := e.svc.Kept.KeepBatch(ctx, batch, nil); err != nil {
		t.Fatal(err)
	}
	if auditOf() != before {
		t.Fatal("keeping documents wrote to the audit")
	}
	doc, _, _ := e.srv.File(id, 1)
	run := doc[len(doc)/2 : len(doc)/2+32]
	if bytes.Contains([]byte(rep.Problems[0].Why), run) {
		t.Fatal("a problem's words carry the document")
	}
	ents, _ := os.ReadDir(keptdocs.Dir(e.path))
	for _, de := range ents {
		if !bytes.HasSuffix([]byte(de.Name()), []byte(".kept")) {
			t.Fatalf("left in the folder: %s", de.Name())
		}
		b, _ := os.ReadFile(keptdocs.Dir(e.path) + "/" + de.Name())
		if bytes.Contains(b, run) {
			t.Fatalf("%s holds the document in the clear", de.Name())
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in the temporary folder: %v", left)
	}
	e.db.Close()
	for _, suffix := range []string{"", "-wal"} {
		if b, err := os.ReadFile(e.path + suffix); err == nil && bytes.Contains(b, run) {
			t.Fatalf("the cache file%s holds the document", suffix)
		}
	}
}
