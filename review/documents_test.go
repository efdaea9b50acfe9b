package review_test

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

func docErr(t *testing.T, err error, want review.DocumentProblem) *review.DocumentError {
	t.Helper()
	d, ok := review.AsDocumentError(err)
	if !ok || d.Problem != want {
		t.Fatalf("%v (%T): want a document error %s", err, err, want)
	}
	if strings.Contains(err.Error(), "\n") || len(err.Error()) > 120 {
		t.Fatalf("not one plain line: %q", err.Error())
	}
	return d
}

// A document is fetched (the newest by default), and after a replacement
// the first file and the new one are both there, each with the result the
// console recorded for it.
func TestDocumentsAndTheirRecordedResults(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	id := e.srv.FindCode("DECODE_FAILED")
	first, _, _ := e.srv.File(id, 1)

	vs, err := e.svc.Documents.DocumentVersions(ctx, id)
	if err != nil || len(vs) != 1 || vs[0].Recorded.Status != policy.StatusError || vs[0].Recorded.Code != policy.CodeDecodeFailed || vs[0].Recorded.Score != nil {
		t.Fatalf("versions before: %+v %v", vs, err)
	}
	doc, err := e.svc.Documents.Document(ctx, id, 0)
	if err != nil || doc.Version != 1 || !bytes.Equal(doc.Data, first) || doc.MediaType != policy.SniffMediaType(first) {
		t.Fatalf("newest before: %v, version %d", err, doc.Version)
	}

	upload, _, _ := e.srv.File("itm_0001_01", 1)
	if _, err := e.svc.Actions.Replace(ctx, id, "rescan.jpg", upload, review.ReplaceOptions{}); err != nil {
		t.Fatal(err)
	}
	vs, err = e.svc.Documents.DocumentVersions(ctx, id)
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions after: %+v %v", vs, err)
	}
	if r := vs[0].Recorded; r.Status != policy.StatusError || r.Code != policy.CodeDecodeFailed || r.When.IsZero() {
		t.Fatalf("the first file's result: %+v", r)
	}
	if r := vs[1].Recorded; r.Status != policy.StatusScored || r.Score == nil || r.Code != "" || r.When.IsZero() || vs[1].FileName != "rescan.jpg" {
		t.Fatalf("the replacement's result: %+v", vs[1])
	}
	// Its band, as the triage settings place its score; the error has none.
	if r := vs[1].Recorded; r.Band != policy.DefaultBands().OfScore(*r.Score) || r.Band == "" || vs[0].Recorded.Band != "" {
		t.Fatalf("bands: %q (score %d), first %q", r.Band, *r.Score, vs[0].Recorded.Band)
	}
	doc, err = e.svc.Documents.Document(ctx, id, 0)
	if err != nil || doc.Version != 2 || !bytes.Equal(doc.Data, upload) {
		t.Fatalf("newest after: %v, version %d", err, doc.Version)
	}
	if doc, err = e.svc.Documents.Document(ctx, id, 1); err != nil || !bytes.Equal(doc.Data, first) {
		t.Fatalf("version 1 after: %v", err)
	}
	docErr(t, func() error { _, err := e.svc.Documents.Document(ctx, id, 3); return err }(), review.DocNoSuchVersion)
	// From memory now: no new request.
	n := e.srv.Arrivals(screenapi.EPFile)
	if _, err := e.svc.Documents.Document(ctx, id, 1); err != nil || e.srv.Arrivals(screenapi.EPFile) != n {
		t.Fatalf("a cached document was asked for again: %v", err)
	}
}

// Damaged files are refused with a plain line, never kept, never partial;
// the next ask fetches again.
func TestDamagedDocuments(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	const id = "itm_0001_01"
	audit := func() int {
		d, err := e.svc.Triage.Item(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return len(d.Audit)
	}
	before := audit()
	for _, f := range []screenapi.Fault{
		{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1},
		{Kind: screenapi.FaultTruncated, Endpoint: screenapi.EPFile, Times: 1},
		{Kind: screenapi.FaultOversized, Endpoint: screenapi.EPFile, Times: 1, Announce: true},
		{Kind: screenapi.FaultOversized, Endpoint: screenapi.EPFile, Times: 1},
	} {
		e.srv.SetFault(f)
		doc, err := e.svc.Documents.Document(ctx, id, 1)
		docErr(t, err, review.DocDamaged)
		if doc.Data != nil || !strings.HasPrefix(err.Error(), "the file is damaged") || policy.ErrorCode(err) != policy.CodeInvalidResponse {
			t.Fatalf("%s: %v", f.Kind, err)
		}
		if used, _ := e.svc.Documents.DocumentCacheUse(); used != 0 {
			t.Fatalf("%s: %d bytes kept", f.Kind, used)
		}
	}
	want, _, _ := e.srv.File(id, 1)
	if doc, err := e.svc.Documents.Document(ctx, id, 1); err != nil || !bytes.Equal(doc.Data, want) {
		t.Fatalf("after the faults: %v", err)
	}
	if audit() != before {
		t.Fatal("fetching documents wrote to the audit")
	}
}

// Offline, a document not in memory is "offline and not kept"; one in
// memory is still shown.
func TestDocumentsOffline(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	if _, err := e.svc.Documents.Document(ctx, "itm_0001_01", 0); err != nil {
		t.Fatal(err)
	}
	e.srv.Refuse()
	e.api.Close() // its idle keep-alive connection would still reach the service
	t.Cleanup(func() { _ = e.srv.Accept() })
	_, err := e.svc.Documents.Document(ctx, "itm_0001_02", 0)
	d := docErr(t, err, review.DocOffline)
	if d.Error() != "it is offline and not kept" || policy.ErrorCode(err) != policy.CodeAPIUnreachable {
		t.Fatalf("%v / %s", err, policy.ErrorCode(err))
	}
	if _, err := e.svc.Documents.Document(ctx, "itm_0001_01", 0); err != nil {
		t.Fatalf("a document in memory, offline: %v", err)
	}
}

// Against a 1.0 service the console says the service offers no documents.
func TestDocumentsFromA10Service(t *testing.T) {
	e := setupVersion(t, screenapi.Version10)
	e.sync(t)
	ctx := context.Background()
	_, err := e.svc.Documents.DocumentVersions(ctx, "itm_0001_01")
	docErr(t, err, review.DocNotOffered)
	_, err = e.svc.Documents.Document(ctx, "itm_0001_01", 0)
	d := docErr(t, err, review.DocNotOffered)
	if d.Error() != "the service does not offer documents" || policy.ErrorCode(err) != policy.CodeNotOffered {
		t.Fatal(err)
	}
	if n := e.srv.Arrivals(screenapi.EPFile); n != 0 {
		t.Fatalf("%d requests for files of a 1.0 service", n)
	}
}

// The memory cache stays within its bound, least recently used out first.
func TestDocumentCacheStaysWithinItsBound(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	ids := []string{"itm_0001_01", "itm_0001_02", "itm_0001_03", "itm_0001_04", "itm_0001_05", "itm_0001_06"}
	var sizes []int
	for _, id := range ids {
		b, _, _ := e.srv.File(id, 1)
		sizes = append(sizes, len(b))
	}
	limit := int64(sizes[0] + sizes[1] + sizes[2]) // room for about three
	e.with(t, func(c *review.Config) { c.DocumentCache = limit })
	for i, id := range ids {
		if _, err := e.svc.Documents.Document(ctx, id, 1); err != nil {
			t.Fatal(err)
		}
		if i == 3 { // the first, used again, becomes the most recent
			if _, err := e.svc.Documents.Document(ctx, ids[0], 1); err != nil {
				t.Fatal(err)
			}
		}
		used, bound := e.svc.Documents.DocumentCacheUse()
		if used > bound || bound != limit {
			t.Fatalf("after %s: %d bytes kept, bound %d", id, used, bound)
		}
	}
	n := e.srv.Arrivals(screenapi.EPFile)
	if _, err := e.svc.Documents.Document(ctx, ids[5], 1); err != nil || e.srv.Arrivals(screenapi.EPFile) != n {
		t.Fatal("the most recent document was not in memory")
	}
	if _, err := e.svc.Documents.Document(ctx, ids[1], 1); err != nil || e.srv.Arrivals(screenapi.EPFile) != n+1 {
		t.Fatal("the least recently used document was not let go")
	}
	e.svc.Documents.ForgetDocuments()
	if used, _ := e.svc.Documents.DocumentCacheUse(); used != 0 {
		t.Fatalf("%d bytes after forgetting", used)
	}
}

// An item cached before the cache kept file versions has none: the first
// look at its documents reads the item once and keeps what it lists.
func TestVersionsOfAnItemCachedBeforeTheyWereKept(t *testing.T) {
	e := setup(t)
	e.sync(t)
	ctx := context.Background()
	const id = "itm_0002_01"
	raw, err := sql.Open("sqlite3", "file:"+e.path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM file_versions`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	n := e.srv.Arrivals(screenapi.EPItem)
	vs, err := e.svc.Documents.DocumentVersions(ctx, id)
	if err != nil || len(vs) != 1 || vs[0].Version != 1 || vs[0].Recorded.Status == "" || e.srv.Arrivals(screenapi.EPItem) != n+1 {
		t.Fatalf("%+v %v, %d reads", vs, err, e.srv.Arrivals(screenapi.EPItem)-n)
	}
	if _, err := e.svc.Documents.DocumentVersions(ctx, id); err != nil || e.srv.Arrivals(screenapi.EPItem) != n+1 {
		t.Fatalf("read again: %v", err)
	}
	if d, err := e.svc.Documents.Document(ctx, id, 0); err != nil || d.Version != 1 {
		t.Fatalf("%v", err)
	}
}
