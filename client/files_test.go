package client_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// patient is ana's client with time for 11 MiB under -race on a loaded
// machine (testConfig gives 2 s).
func patient(t *testing.T, srv *screenapi.Server) *client.Client {
	t.Helper()
	cfg := testConfig(srv.URL())
	cfg.Token = client.Secret(anaToken)
	cfg.Timeout = time.Minute
	c, err := client.New(cfg, client.WithSleep((&sleeper{}).sleep))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func mustDamaged(t *testing.T, err error, problem client.FileProblem) *client.DamagedFileError {
	t.Helper()
	e := mustClientErr(t, err, client.ClassBadAnswer, policy.CodeInvalidResponse)
	d, ok := client.AsDamagedFile(err)
	if !ok || d.Problem != problem {
		t.Fatalf("%v: want a damaged file (%s)", err, problem)
	}
	if len(e.Attempts) != 1 || e.Attempts[0].Class != client.ClassBadAnswer {
		t.Fatalf("attempts %+v: want one, a bad answer", e.Attempts)
	}
	return d
}

// A file version's bytes come whole, of the type they say, through the one
// client; every way the answer can be bad is refused, never cut to size.
func TestFileFetchAndItsRefusals(t *testing.T) {
	srv, _, _ := setupTeam(t, "")
	ana := patient(t, srv)
	ctx := context.Background()
	const id = "itm_0001_01"
	want, mt, _ := srv.File(id, 1)

	doc, attempts, err := ana.File(ctx, id, 1)
	if err != nil || !bytes.Equal(doc.Data, want) || doc.MediaType != mt || doc.ETag == "" || len(attempts) != 1 {
		t.Fatalf("fetch: %v, %s, %d bytes", err, doc.MediaType, len(doc.Data))
	}

	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1})
	doc, _, err = ana.File(ctx, id, 1)
	d := mustDamaged(t, err, client.FileTypeMismatch)
	if d.Actual != mt || d.Declared == mt || doc.Data != nil {
		t.Fatalf("mismatch: %+v, %d bytes", d, len(doc.Data))
	}

	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultTruncated, Endpoint: screenapi.EPFile, Times: 1})
	doc, _, err = ana.File(ctx, id, 1)
	mustDamaged(t, err, client.FileTruncated)
	if doc.Data != nil {
		t.Fatal("a truncated body gave bytes")
	}

	for _, announce := range []bool{true, false} {
		srv.SetFault(screenapi.Fault{Kind: screenapi.FaultOversized, Endpoint: screenapi.EPFile, Times: 1, Announce: announce})
		doc, _, err = ana.File(ctx, id, 1)
		mustDamaged(t, err, client.FileTooLarge)
		if doc.Data != nil {
			t.Fatalf("an oversized body (announced %v) gave bytes", announce)
		}
	}

	if _, _, err = ana.File(ctx, id, 2); err == nil {
		t.Fatal("a version the item does not have")
	} else {
		mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotFound)
	}
	if _, _, err = ana.File(ctx, id, 0); err == nil {
		t.Fatal("version 0 was asked for")
	}
	if n := srv.Arrivals(screenapi.EPFile); n != 6 {
		t.Fatalf("%d requests for files, want 6 (none for version 0)", n)
	}
}

// A refusal's message names what was wrong, never any of the bytes, even
// when the bytes are text that a message could carry.
func TestADamagedFileMessageCarriesNoContent(t *testing.T) {
	srv, _, _ := setupTeam(t, "")
	ana := patient(t, srv)
	ctx := context.Background()
	id := srv.FindCode("DECODE_FAILED")
	secret := "%PDF-1.7\nPassport of Jane Q. Customer, number X1234567"
	if _, _, err := ana.Replace(ctx, id, "k-pdf", "p.pdf", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1})
	_, attempts, err := ana.File(ctx, id, 2)
	mustDamaged(t, err, client.FileTypeMismatch)
	all := err.Error()
	for _, a := range attempts {
		all += a.Detail
	}
	for _, leak := range []string{"Jane", "X1234567", anaToken} {
		if strings.Contains(all, leak) {
			t.Fatalf("the error or its evidence carries %q: %s", leak, all)
		}
	}
}

// A file bigger than the client's REVIEWER_MAX_BODY (8 MiB by default) but
// within the contract's 10 MiB is read whole.
func TestAFileOverMaxBodyButWithin10MiB(t *testing.T) {
	srv, _, _ := setupTeam(t, "")
	ana := patient(t, srv)
	ctx := context.Background()
	id := srv.FindCode("DECODE_FAILED")
	big := make([]byte, 9<<20)
	copy(big, "\x89PNG\r\n\x1a\n")
	if _, _, err := ana.Replace(ctx, id, "k-big", "big.png", big); err != nil {
		t.Fatal(err)
	}
	doc, _, err := ana.File(ctx, id, 2)
	if err != nil || len(doc.Data) != len(big) || doc.MediaType != "image/png" {
		t.Fatalf("%v, %d bytes", err, len(doc.Data))
	}
}

// A 1.0 service lists no file versions: a distinct NOT_OFFERED.
func TestFileVersionsFromA10Service(t *testing.T) {
	srv, ana, _ := setupTeam(t, screenapi.Version10)
	_, _, err := ana.FileVersions(context.Background(), "itm_0001_01")
	mustClientErr(t, err, client.ClassAnsweredNo, policy.CodeNotOffered)
	if !client.IsNotOffered(err) || !strings.Contains(err.Error(), "does not offer documents") {
		t.Fatal(err)
	}
	srv11, ana11, _ := setupTeam(t, "")
	it, _, err := ana11.FileVersions(context.Background(), "itm_0001_01")
	if err != nil || !it.FilesOffered || len(it.Files) != 1 || it.Files[0].Version != 1 {
		t.Fatalf("1.1: %+v %v", it.Files, err)
	}
	_, _ = srv, srv11
}
