package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

// batchOfItem reads an item's batch from the harness's cache.
func batchOfItem(t *testing.T, h *harness, id string) string {
	t.Helper()
	db, err := store.Open(h.env["REVIEWER_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	it, err := db.Items.Item(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return it.BatchID
}

// `reviewer keep BATCH` keeps the batch's documents (a progress line on a
// terminal), `file` answers from them offline, `unkeep` removes them.
func TestKeepFileOfflineUnkeep(t *testing.T) {
	keyring.MockInit()
	h := newHarness(t)
	h.want(0, "sync")
	const id = "itm_0001_01"
	batch := batchOfItem(t, h, id)
	other := ""
	for _, it := range []string{"itm_0002_01", "itm_0003_01", "itm_0004_01"} {
		if b := batchOfItem(t, h, it); b != batch {
			other = it
			break
		}
	}

	// On a terminal: a progress line on stderr, rewritten in place.
	var out, errb bytes.Buffer
	code := cli.Run([]string{"keep", batch}, cli.Env{Stdout: &out, Stderr: &errb, Interactive: func() bool { return true },
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok }})
	if code != 0 {
		t.Fatalf("keep: exit %d: %s %s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "\rkeeping "+batch) && !strings.Contains(errb.String(), "keeping "+batch+": 1 of") {
		t.Fatalf("no progress line: %q", errb.String())
	}
	m := regexp.MustCompile(`kept (\d+) documents? of (\d+) items? of `).FindStringSubmatch(out.String())
	if m == nil || m[1] == "0" || !strings.Contains(out.String(), "system keyring") {
		t.Fatalf("keep said %q", out.String())
	}
	kept, _ := strconv.Atoi(m[1])
	dir := keptdocs.Dir(h.env["REVIEWER_DB"])
	if ents, _ := os.ReadDir(dir); len(ents) != kept {
		t.Fatalf("%d files in %s, %d kept", len(ents), dir, kept)
	}
	// Not on a terminal: no progress line.
	if o, errs := h.want(0, "keep", batch); errs != "" || !strings.Contains(o, "kept "+m[1]+" document") {
		t.Fatalf("keep again: %q %q", o, errs)
	}

	h.srv.Refuse()
	t.Cleanup(func() { _ = h.srv.Accept() })
	want, _, _ := h.srv.File(id, 1)
	outFile := filepath.Join(t.TempDir(), "doc.jpg")
	h.want(0, "file", id, "--out", outFile)
	if got, err := os.ReadFile(outFile); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("offline from the kept copy: %v", err)
	}
	if _, errs := h.want(7, "file", other, "--out", filepath.Join(t.TempDir(), "x")); !strings.Contains(errs, "offline and not kept") {
		t.Fatalf("another batch offline: %q", errs)
	}

	if o, _ := h.want(0, "unkeep", batch); !strings.Contains(o, "removed "+m[1]+" kept document") {
		t.Fatalf("unkeep: %q", o)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d files after unkeep", len(ents))
	}
	if _, errs := h.want(7, "file", id, "--out", filepath.Join(t.TempDir(), "y")); !strings.Contains(errs, "offline and not kept") {
		t.Fatalf("after unkeep, offline: %q", errs)
	}
	if _, errs := h.want(2, "keep", "no-such-batch"); !strings.Contains(errs, "no batch no-such-batch") {
		t.Fatalf("unknown batch: %q", errs)
	}
	h.want(2, "keep")
}

// Where no keyring answers, keep puts the key in a 0600 file beside the
// cache and says so on stderr; a damaged file is named and the rest kept.
func TestKeepWithoutAKeyring(t *testing.T) {
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	h := newHarness(t)
	h.want(0, "sync")
	batch := batchOfItem(t, h, "itm_0001_01")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultWrongType, Endpoint: screenapi.EPFile, Times: 1})
	code, o, errs := h.run("keep", batch)
	if code != 7 {
		t.Fatalf("exit %d: %q %q", code, o, errs)
	}
	keyFile := keptdocs.KeyFile(h.env["REVIEWER_DB"])
	if !strings.Contains(errs, "no keyring answers") || !strings.Contains(errs, keyFile) {
		t.Fatalf("stderr %q", errs)
	}
	if !strings.Contains(o, "not kept: version 1 of ") || !strings.Contains(o, "the file is damaged") {
		t.Fatalf("stdout %q", o)
	}
	fi, err := os.Stat(keyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if o, errs := h.want(0, "keep", batch); strings.Contains(errs, "no keyring answers") || !strings.Contains(o, "in the file "+keyFile) {
		t.Fatalf("again: %q %q", o, errs)
	}
}

// Against a 1.0 service, keep says that the service offers no documents.
func TestKeepFromA10Service(t *testing.T) {
	keyring.MockInit()
	srv, ana, _ := teamHarnesses(t, screenapi.Version10)
	batch := batchOfItem(t, ana, "itm_0001_01")
	if _, errs := ana.want(3, "keep", batch); !strings.Contains(errs, "does not offer documents") {
		t.Fatalf("1.0: %q", errs)
	}
	if n := srv.Arrivals(screenapi.EPFile); n != 0 {
		t.Fatalf("%d file requests", n)
	}
}

// A bad REVIEWER_KEPT_DOCUMENT_RETENTION is refused at start.
func TestBadKeptRetentionIsRefused(t *testing.T) {
	h := newHarness(t)
	for _, v := range []string{"soon", "0s", "30m", "9000h"} {
		h.env["REVIEWER_KEPT_DOCUMENT_RETENTION"] = v
		if _, errs := h.want(2, "items"); !strings.Contains(errs, "REVIEWER_KEPT_DOCUMENT_RETENTION") {
			t.Fatalf("%s: %q", v, errs)
		}
	}
}

// The demo's throwaway cache keeps its documents under a key that lives
// and dies with it: it neither takes the system keyring's key (real
// use's) nor leaves one there.
func TestTheDemoKeepsItsDocumentsKeyInMemory(t *testing.T) {
	keyring.MockInit()
	system := keyring.New(keyring.AppID)
	const realKey = "real-use-key-that-the-demo-must-not-take="
	if err := system.Set(keyring.DocumentsKeyName, realKey); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	var place string
	var keepErr error
	var out, errb bytes.Buffer
	code := cli.Run([]string{"--demo"}, cli.Env{Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		OpenWindow: func(w cli.Window) error {
			ctx := context.Background()
			if _, err := w.Service.Sync.Sync(ctx, nil); err != nil {
				return err
			}
			batches, err := w.Service.Triage.Batches(ctx, "", 1)
			if err != nil || len(batches) == 0 {
				return errors.New("no demo batches")
			}
			_, keepErr = w.Service.Kept.KeepBatch(ctx, batches[0].ID, nil)
			use, err := w.Service.Kept.KeptDocumentsUse()
			place = use.KeyPlace
			if err == nil && use.Count == 0 {
				err = errors.New("nothing kept")
			}
			return err
		}})
	if code != 0 || keepErr != nil {
		t.Fatalf("demo: exit %d, keep %v: %s", code, keepErr, errb.String())
	}
	if !strings.Contains(place, "memory only") {
		t.Fatalf("the demo's key place: %q", place)
	}
	if v, err := system.Get(keyring.DocumentsKeyName); err != nil || v != realKey {
		t.Fatalf("the system keyring's key after the demo: %q, %v", v, err)
	}
	if _, err := keyring.New(keyring.AppID + ".demo").Get(keyring.DocumentsKeyName); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("the demo left a key in the system keyring: %v", err)
	}
}
