//go:build unix

package keptdocs

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/keyring"
)

// Two consoles on one cache keeping their first documents at once end
// with one key: the second waits for the first's, finds it, and every
// copy either kept reads in both.
func TestTwoStoresMakingTheFirstKeyAtOnceShareIt(t *testing.T) {
	keyring.MockInit()
	cache := filepath.Join(t.TempDir(), "cache.db")
	secrets := keyring.New("test.kept.first-key-race")
	a, b := Open(cache, secrets), Open(cache, secrets)
	aMaking, release, bMissed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a.beforeMake = func() { close(aMaking); <-release }
	b.beforeLock = func() { close(bMissed) }
	bMade := false
	b.beforeMake = func() { bMade = true }

	aDoc, bDoc := []byte("the first console's document"), []byte("the second console's document")
	aErr := make(chan error, 1)
	go func() { _, err := a.Put("itm_0001_01", 1, "image/png", aDoc); aErr <- err }()
	<-aMaking // a holds the lock, about to make the key
	bErr := make(chan error, 1)
	go func() { _, err := b.Put("itm_0002_01", 1, "image/png", bDoc); bErr <- err }()
	select {
	case <-bMissed: // b looked, found nothing, and goes for the lock
	case <-time.After(30 * time.Second):
		t.Fatal("the second store never looked for the key")
	}
	close(release)
	for _, ch := range []chan error{aErr, bErr} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a Put never ended")
		}
	}
	if bMade {
		t.Fatal("the second store made a key of its own")
	}
	for _, s := range []*Store{a, b, Open(cache, secrets)} {
		for id, want := range map[string][]byte{"itm_0001_01": aDoc, "itm_0002_01": bDoc} {
			if _, got, err := s.Get(id, 1); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %v", id, err)
			}
		}
	}
}
