package keptdocs_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
)

// document is a recognisable document: a run of text that would show in
// the folder if any of it were stored in the clear.
func document(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\xff\xd8\xff\xe0")
	for b.Len() < 64<<10 {
		b.WriteString("PASSPORT ANA LIMA P<PRTLIMA<<ANA<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<< ")
	}
	return b.Bytes()
}

func newStore(t *testing.T, service string) (*keptdocs.Store, string) {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "cache.db")
	return keptdocs.Open(cache, keyring.New(service)), cache
}

// folderHolds reports whether any file of dir holds run.
func folderHolds(t *testing.T, dir string, run []byte) bool {
	t.Helper()
	found := false
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found = found || bytes.Contains(b, run)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// The bytes on disk are not the document; its folder is 0700 and its file
// 0600; the document comes back whole, with its type.
func TestKeptDocumentIsEncryptedAtRest(t *testing.T) {
	keyring.MockInit()
	s, cache := newStore(t, "test.kept.encrypted")
	doc := document(t)
	n, err := s.Put("itm_0001_01", 1, "image/jpeg", doc)
	if err != nil || n <= int64(len(doc)) {
		t.Fatalf("Put: %d, %v", n, err)
	}
	dir := keptdocs.Dir(cache)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder: %v %v", fi, err)
	}
	des, _ := os.ReadDir(dir)
	if len(des) != 1 {
		t.Fatalf("the folder holds %d files", len(des))
	}
	if info, _ := des[0].Info(); info.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", info.Mode())
	}
	if strings.Contains(des[0].Name(), "itm_0001_01") {
		t.Fatalf("the file name is the item id in the clear: %s", des[0].Name())
	}
	for _, run := range [][]byte{doc[4:40], []byte("PASSPORT ANA LIMA"), []byte("LIMA<<ANA")} {
		if folderHolds(t, dir, run) {
			t.Fatalf("the folder holds %q in the clear", run)
		}
	}
	if folderHolds(t, filepath.Dir(cache), []byte("PASSPORT ANA LIMA")) {
		t.Fatal("a file beside the cache holds the document in the clear")
	}
	mt, got, err := s.Get("itm_0001_01", 1)
	if err != nil || mt != "image/jpeg" || !bytes.Equal(got, doc) {
		t.Fatalf("Get: %q, %d bytes, %v", mt, len(got), err)
	}
	// A new store on the same folder (the next run) reads it with the
	// keyring's key.
	again := keptdocs.Open(cache, keyring.New("test.kept.encrypted"))
	if _, got, err := again.Get("itm_0001_01", 1); err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("next run: %v", err)
	}
	if !strings.Contains(again.KeyPlace(), "system keyring") {
		t.Fatalf("KeyPlace: %q", again.KeyPlace())
	}
	if _, _, err := s.Get("itm_0001_01", 2); !keptdocs.IsNotKept(err) {
		t.Fatalf("a version never kept: %v", err)
	}
}

// Another key (the keyring's replaced, or lost) fails cleanly as "not
// kept", destroys nothing, and keeping it again works.
func TestWrongOrMissingKeyFailsCleanly(t *testing.T) {
	keyring.MockInit()
	const service = "test.kept.wrong-key"
	s, cache := newStore(t, service)
	doc := document(t)
	if _, err := s.Put("itm_1", 1, "image/png", doc); err != nil {
		t.Fatal(err)
	}
	dir := keptdocs.Dir(cache)
	des, _ := os.ReadDir(dir)
	path := filepath.Join(dir, des[0].Name())
	before, _ := os.ReadFile(path)

	other := make([]byte, 32)
	rand.Read(other)
	if err := keyring.New(service).Set(keptdocs.KeyName, base64.StdEncoding.EncodeToString(other)); err != nil {
		t.Fatal(err)
	}
	wrong := keptdocs.Open(cache, keyring.New(service))
	_, got, err := wrong.Get("itm_1", 1)
	if !keptdocs.IsNotKept(err) || got != nil {
		t.Fatalf("another key: %v, %d bytes", err, len(got))
	}
	if bytes.Contains([]byte(err.Error()), doc[4:20]) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("the error: %q", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a copy that did not open was changed")
	}
	if !wrong.Has("itm_1", 1) {
		t.Fatal("the copy is gone")
	}

	if err := keyring.New(service).Delete(keptdocs.KeyName); err != nil {
		t.Fatal(err)
	}
	missing := keptdocs.Open(cache, keyring.New(service))
	if _, _, err := missing.Get("itm_1", 1); !keptdocs.IsNotKept(err) || !strings.Contains(err.Error(), "no key") {
		t.Fatalf("no key: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a copy with no key was changed")
	}
	// Keeping again makes a key and replaces the copy.
	if _, err := missing.Put("itm_1", 1, "image/png", doc); err != nil {
		t.Fatal(err)
	}
	if _, got, err := missing.Get("itm_1", 1); err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("kept again: %v", err)
	}
}

// A file moved to another item's or version's name does not open.
func TestMovedFileFails(t *testing.T) {
	keyring.MockInit()
	s, cache := newStore(t, "test.kept.moved")
	doc := document(t)
	if _, err := s.Put("itm_a", 1, "image/jpeg", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("itm_b", 1, "image/jpeg", []byte("\xff\xd8\xff another")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("itm_a", 2, "image/jpeg", []byte("\xff\xd8\xff version 2")); err != nil {
		t.Fatal(err)
	}
	dir := keptdocs.Dir(cache)
	nameOf := func(id string, v int) string {
		return filepath.Join(dir, base64.RawURLEncoding.EncodeToString([]byte(id))+".v"+string(rune('0'+v))+".kept")
	}
	for _, p := range []string{nameOf("itm_a", 1), nameOf("itm_b", 1), nameOf("itm_a", 2)} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the names are not as this test expects: %v", err)
		}
	}
	// itm_a v1 over itm_b v1, and over itm_a v2.
	a1, _ := os.ReadFile(nameOf("itm_a", 1))
	for _, target := range []struct {
		id string
		v  int
	}{{"itm_b", 1}, {"itm_a", 2}} {
		if err := os.WriteFile(nameOf(target.id, target.v), a1, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, got, err := s.Get(target.id, target.v); !keptdocs.IsNotKept(err) || got != nil {
			t.Fatalf("moved to %s v%d: %v", target.id, target.v, err)
		}
	}
	// A changed header (the time it was kept) fails too.
	b := append([]byte(nil), a1...)
	b[10] ^= 1
	os.WriteFile(nameOf("itm_a", 1), b, 0o600)
	if _, _, err := s.Get("itm_a", 1); !keptdocs.IsNotKept(err) {
		t.Fatalf("a changed header: %v", err)
	}
}

// Where no keyring answers, the key goes in a 0600 file beside the cache,
// and the store says so (Notice, KeyPlace); a later run reads it.
func TestNoKeyringKeyFile(t *testing.T) {
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	s, cache := newStore(t, "test.kept.no-keyring")
	if p := s.KeyPlace(); !strings.Contains(p, "no keyring answers") || !strings.Contains(p, keptdocs.KeyFile(cache)) {
		t.Fatalf("KeyPlace before: %q", p)
	}
	var said []string
	s.Notice = func(m string) { said = append(said, m) }
	doc := document(t)
	if _, err := s.Put("itm_1", 1, "application/pdf", doc); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(keptdocs.KeyFile(cache))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	if len(said) != 1 || !strings.Contains(said[0], keptdocs.KeyFile(cache)) {
		t.Fatalf("said: %q", said)
	}
	if p := s.KeyPlace(); !strings.Contains(p, "in the file "+keptdocs.KeyFile(cache)) || !strings.Contains(p, "no keyring answers") {
		t.Fatalf("KeyPlace: %q", p)
	}
	next := keptdocs.Open(cache, keyring.New("test.kept.no-keyring"))
	if _, got, err := next.Get("itm_1", 1); err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("next run: %v", err)
	}
	// A key file others can read is refused, and nothing is destroyed.
	os.Chmod(keptdocs.KeyFile(cache), 0o644)
	loose := keptdocs.Open(cache, keyring.New("test.kept.no-keyring"))
	if _, _, err := loose.Get("itm_1", 1); !keptdocs.IsNotKept(err) || !strings.Contains(err.Error(), "0600") {
		t.Fatalf("a loose key file: %v", err)
	}
	if !loose.Has("itm_1", 1) {
		t.Fatal("the copy is gone")
	}
}

// List, Usage and Remove, from the names and headers alone.
func TestListUsageRemove(t *testing.T) {
	keyring.MockInit()
	s, cache := newStore(t, "test.kept.list")
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return at })
	n1, _ := s.Put("itm/1 ünïcode", 1, "image/jpeg", []byte("\xff\xd8\xff one"))
	at = at.Add(time.Hour)
	n2, _ := s.Put("itm/1 ünïcode", 2, "image/jpeg", []byte("\xff\xd8\xff two"))
	os.WriteFile(filepath.Join(keptdocs.Dir(cache), ".leftover.1.tmp"), []byte("x"), 0o600)
	es, err := s.List()
	if err != nil || len(es) != 2 {
		t.Fatalf("List: %+v %v", es, err)
	}
	for _, e := range es {
		want := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(e.Version-1) * time.Hour)
		if e.ItemID != "itm/1 ünïcode" || !e.KeptAt.Equal(want) {
			t.Fatalf("entry %+v", e)
		}
	}
	if c, b, _ := s.Usage(); c != 2 || b != n1+n2 {
		t.Fatalf("Usage %d %d", c, b)
	}
	if ok, size, err := s.Remove("itm/1 ünïcode", 1); !ok || size != n1 || err != nil {
		t.Fatalf("Remove: %v %d %v", ok, size, err)
	}
	if ok, _, err := s.Remove("itm/1 ünïcode", 1); ok || err != nil {
		t.Fatalf("Remove again: %v %v", ok, err)
	}
	s.Sweep(time.Now().Add(2*time.Hour), time.Hour)
	if _, err := os.Stat(filepath.Join(keptdocs.Dir(cache), ".leftover.1.tmp")); err == nil {
		t.Fatal("Sweep left a temporary file")
	}
}
