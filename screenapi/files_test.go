package screenapi_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "golang.org/x/image/webp"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// getFile asks for a file version over raw HTTP and reads all of its body.
func getFile(t *testing.T, srv *screenapi.Server, id string, version int) (*http.Response, []byte, error) {
	t.Helper()
	hr, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/items/%s/files/%d", srv.URL(), id, version), nil)
	hr.Header.Set("Authorization", "Bearer "+anaTok)
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(hr)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// fileVersions reads an item's file_versions from GET /v1/items/{id}.
func fileVersions(t *testing.T, srv *screenapi.Server, id string) []map[string]any {
	t.Helper()
	st, it := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/" + id})
	if st != 200 {
		t.Fatalf("item %s: %d", id, st)
	}
	var out []map[string]any
	for _, v := range it["file_versions"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

// Every seeded kind of document is served as real bytes of its declared
// type, distinct per item: the JPEG and PNG cards and faces and the WebP
// face decode, the PDF has two pages and a cross-reference table whose
// offsets point at its objects.
func TestSeededDocumentsAreRealAndDistinct(t *testing.T) {
	srv, _ := start11(t, "")
	seen := map[string]string{}
	kinds := map[string]int{}
	for b := 1; b <= 3; b++ {
		for i := 1; i <= 10; i++ {
			id := fmt.Sprintf("itm_%04d_%02d", b, i)
			fv := fileVersions(t, srv, id)
			if len(fv) != 1 || fv[0]["version"].(float64) != 1 {
				t.Fatalf("%s: versions %v", id, fv)
			}
			resp, body, err := getFile(t, srv, id, 1)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s: %v %v", id, resp, err)
			}
			mt := fv[0]["media_type"].(string)
			if got := policy.SniffMediaType(body); got != mt || resp.Header.Get("Content-Type") != mt {
				t.Fatalf("%s: declared %s, served as %s, bytes are %q", id, mt, resp.Header.Get("Content-Type"), got)
			}
			if resp.Header.Get("ETag") == "" || resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Fatalf("%s: headers %v", id, resp.Header)
			}
			if other, dup := seen[string(body)]; dup {
				t.Fatalf("%s serves the same bytes as %s", id, other)
			}
			seen[string(body)] = id
			kinds[mt]++
			if mt == "application/pdf" {
				checkPDF(t, id, body)
				continue
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(body))
			if err != nil || cfg.Width < 200 || cfg.Height < 200 {
				t.Fatalf("%s (%s): %v %+v", id, mt, err, cfg)
			}
			if _, _, err := image.Decode(bytes.NewReader(body)); err != nil {
				t.Fatalf("%s (%s, %s) does not decode: %v", id, mt, format, err)
			}
		}
	}
	for _, mt := range []string{"image/jpeg", "image/png", "image/webp", "application/pdf"} {
		if kinds[mt] == 0 {
			t.Fatalf("no %s among the first 30 items: %v", mt, kinds)
		}
	}
	// Among the seeded items: a card, a face and a bill page as images.
	names := map[string]bool{}
	srv.Find(func(it policy.RawItem) bool { names[it.FileName] = true; return false })
	for _, n := range []string{"passport-front.jpg", "selfie.jpg", "utility-bill.png", "utility-bill.pdf"} {
		if !names[n] {
			t.Fatalf("no seeded %s", n)
		}
	}
	// Asking again serves the same bytes (the ETag too).
	r1, b1, _ := getFile(t, srv, "itm_0001_01", 1)
	r2, b2, _ := getFile(t, srv, "itm_0001_01", 1)
	if !bytes.Equal(b1, b2) || r1.Header.Get("ETag") != r2.Header.Get("ETag") {
		t.Fatal("the same version served different bytes")
	}
}

func checkPDF(t *testing.T, id string, body []byte) {
	t.Helper()
	s := string(body)
	if !strings.HasPrefix(s, "%PDF-1.") || !strings.Contains(s, "/Count 2") || !strings.HasSuffix(s, "%%EOF\n") ||
		strings.Count(s, "/Type /Page ") != 2 || strings.Count(s, " re S") != 2 || strings.Count(s, "Tj ET") < 4 {
		t.Fatalf("%s: not a PDF of two pages with a box and text each", id)
	}
	m := regexp.MustCompile(`startxref\n(\d+)\n`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s: no startxref", id)
	}
	xref, _ := strconv.Atoi(m[1])
	if !strings.HasPrefix(s[xref:], "xref\n0 8\n") {
		t.Fatalf("%s: startxref does not point at the table", id)
	}
	rows := strings.Split(s[xref:], "\n")[3:10]
	for i, row := range rows {
		off, _ := strconv.Atoi(row[:10])
		if !strings.HasPrefix(s[off:], fmt.Sprintf("%d 0 obj\n", i+1)) {
			t.Fatalf("%s: object %d is not at offset %d", id, i+1, off)
		}
	}
}

// A replacement adds a version whose bytes are the upload's.
func TestAReplacementAddsAVersionWithItsBytes(t *testing.T) {
	srv, _ := start11(t, "")
	id := srv.FindCode("DECODE_FAILED")
	upload, _, _ := srv.File("itm_0001_01", 1) // some real image
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "new-scan.bin")
	fw.Write(upload)
	mw.Close()
	hr, _ := http.NewRequest("POST", srv.URL()+"/v1/items/"+id+"/replacement", &body)
	hr.Header.Set("Authorization", "Bearer "+anaTok)
	hr.Header.Set("Idempotency-Key", "k-replace-1")
	hr.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(hr)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("replacement: %v %v", resp, err)
	}
	resp.Body.Close()
	fv := fileVersions(t, srv, id)
	if len(fv) != 2 || fv[1]["version"].(float64) != 2 || fv[1]["media_type"] != policy.SniffMediaType(upload) || fv[1]["file_name"] != "new-scan.bin" {
		t.Fatalf("versions after a replacement: %v", fv)
	}
	first, _, _ := getFile(t, srv, id, 1)
	r2, got, err := getFile(t, srv, id, 2)
	if err != nil || r2.StatusCode != 200 || !bytes.Equal(got, upload) || r2.Header.Get("Content-Type") != policy.SniffMediaType(upload) {
		t.Fatalf("version 2: %v, %d bytes, equal %v", err, len(got), bytes.Equal(got, upload))
	}
	if first.StatusCode != 200 {
		t.Fatalf("version 1 after a replacement: %d", first.StatusCode)
	}
	if r, _, _ := getFile(t, srv, id, 3); r.StatusCode != 404 {
		t.Fatalf("a version the item does not have: %d", r.StatusCode)
	}
	if r, _, _ := getFile(t, srv, "itm_9999_99", 1); r.StatusCode != 404 {
		t.Fatalf("an item the service does not have: %d", r.StatusCode)
	}
}

// A 1.0 service has no files endpoint, and lists no file versions.
func TestA10ServiceOffersNoFiles(t *testing.T) {
	srv, _ := start11(t, screenapi.Version10)
	r, _, err := getFile(t, srv, "itm_0001_01", 1)
	if err != nil || r.StatusCode != 404 {
		t.Fatalf("1.0 files endpoint: %v %v", r, err)
	}
	_, it := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/itm_0001_01"})
	if _, ok := it["file_versions"]; ok {
		t.Fatal("a 1.0 item lists file versions")
	}
}

// The fault switches act on the files endpoint, and three act on the
// file's own bytes.
func TestFileFaults(t *testing.T) {
	srv, _ := start11(t, "")
	const id = "itm_0001_01"
	want, mt, _ := srv.File(id, 1)

	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultTruncated, Endpoint: screenapi.EPFile, Times: 1})
	resp, body, err := getFile(t, srv, id, 1)
	if !errors.Is(err, io.ErrUnexpectedEOF) || resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) || len(body) != len(want)/2 {
		t.Fatalf("truncated: %v, %d of %d bytes", err, len(body), len(want))
	}

	for _, announce := range []bool{true, false} {
		srv.SetFault(screenapi.Fault{Kind: screenapi.FaultOversized, Endpoint: screenapi.EPFile, Times: 1, Announce: announce})
		resp, body, err = getFile(t, srv, id, 1)
		if err != nil || len(body) <= screenapi.MaxFileSize || !bytes.HasPrefix(body, want) || resp.Header.Get("Content-Type") != mt ||
			(resp.ContentLength == int64(len(body))) != announce {
			t.Fatalf("oversized (announced %v): %v, %d bytes, length %d", announce, err, len(body), resp.ContentLength)
		}
	}

	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1})
	resp, body, err = getFile(t, srv, id, 1)
	if err != nil || !bytes.Equal(body, want) || resp.Header.Get("Content-Type") == policy.SniffMediaType(body) {
		t.Fatalf("wrong type: %v, declared %s for %s", err, resp.Header.Get("Content-Type"), policy.SniffMediaType(body))
	}

	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultReset, Endpoint: screenapi.EPFile, Times: 1})
	if _, _, err = getFile(t, srv, id, 1); err == nil {
		t.Fatal("reset: an answer came")
	}

	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPFile, Times: 1})
	if resp, _, _ = getFile(t, srv, id, 1); resp.StatusCode != 503 {
		t.Fatalf("503_json: %d", resp.StatusCode)
	}

	// Every fault is used up: the file comes whole again.
	if resp, body, err = getFile(t, srv, id, 1); err != nil || !bytes.Equal(body, want) || resp.Header.Get("Content-Type") != mt {
		t.Fatalf("after the faults: %v", err)
	}
	if n := srv.Arrivals(screenapi.EPFile); n != 7 {
		t.Fatalf("%d arrivals at the files endpoint, want 7", n)
	}
}

// The service's latency applies to the files endpoint too.
func TestFileLatency(t *testing.T) {
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Latency: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	start := time.Now()
	hr, _ := http.NewRequest("GET", srv.URL()+"/v1/items/itm_0001_01/files/1", nil)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("%d after %v", resp.StatusCode, time.Since(start))
	}
}
