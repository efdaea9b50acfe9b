// Package keptdocs keeps customers' documents on disk for offline review,
// encrypted at rest. It knows nothing of items, batches or the service: it
// stores the bytes of (item id, file version) and gives them back.
//
// Each document is one file in a folder of its own, mode 0700, beside the
// cache (<cache>.documents/), written through internal/safefile (a new
// 0600 file renamed into place: never a partial file, and the temporary
// file holds only ciphertext). A file is
//
//	magic "TSKD", format 1, the time it was kept (8 bytes), a nonce (12 bytes), ciphertext
//
// sealed with AES-256-GCM under one key, a random nonce per file, and the
// item id and version (from the file's name) with the header as additional
// data: a file moved to another name, a changed header or another key fails
// to open, and says so as "not kept", never as damaged data. The plaintext
// is the media type and the bytes.
//
// The key (32 random bytes) is kept in the OS keyring (package keyring,
// secret KeyName). Where no keyring answers, it goes in a 0600 file beside
// the cache (<cache>.documents-key), and KeyPlace says exactly that. A key
// is made only when a document is kept; reading with no key is "not kept".
// Nothing here destroys a file it cannot open: keeping it again replaces it.
//
// No error of this package carries any byte of a document.
package keptdocs

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/keyring"
)

// KeyName names the key of kept documents among the console's secrets.
const KeyName = keyring.DocumentsKeyName

// MaxDocument is the largest document kept (the contract's file limit).
const MaxDocument = 10 << 20

const (
	magic      = "TSKD"
	format     = 1
	headerSize = 4 + 1 + 8 + 12
	suffix     = ".kept"
	keySize    = 32
)

// Dir is the folder of the kept documents of the cache at cachePath.
func Dir(cachePath string) string { return cachePath + ".documents" }

// KeyFile is where the key goes when no keyring answers.
func KeyFile(cachePath string) string { return cachePath + ".documents-key" }

// NotKeptError says why a kept copy cannot be read: there is none, no key,
// or it does not open with the key (another key, a moved or changed file).
// The file, if any, is left as it is.
type NotKeptError struct {
	Why string
}

func (e *NotKeptError) Error() string { return "not kept: " + e.Why }

// IsNotKept reports whether err says that no readable copy is kept.
func IsNotKept(err error) bool {
	var n *NotKeptError
	return errors.As(err, &n)
}

// Entry is one kept document, as its file says (read without the key).
type Entry struct {
	ItemID  string
	Version int
	Size    int64 // bytes on disk
	KeptAt  time.Time
}

// Store is the kept documents of one cache.
type Store struct {
	dir     string
	keyFile string
	secrets *keyring.Keyring
	now     func() time.Time
	// Notice, when set, is told in words when the key file is made (the
	// command line says it on stderr; never silently).
	Notice func(string)

	mu     sync.Mutex
	key    []byte
	origin KeyOrigin
	// beforeLock and beforeMake, when set, are called after a first look
	// found no key, and just before a new key is made (tests: they hold
	// two stores at those moments).
	beforeLock, beforeMake func()
}

// KeyOrigin is where the key is kept.
type KeyOrigin int

const (
	KeyNone      KeyOrigin = iota // no key yet: nothing was kept
	KeyInKeyring                  // the OS keyring
	KeyInFile                     // the file beside the cache, as no keyring answered
)

// Open returns the kept documents of the cache at cachePath, their key
// kept in secrets (the file beside the cache where it does not answer).
// Nothing is created until a document is kept.
func Open(cachePath string, secrets *keyring.Keyring) *Store {
	return &Store{dir: Dir(cachePath), keyFile: KeyFile(cachePath), secrets: secrets, now: time.Now}
}

// SetClock sets the clock that stamps a kept document (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Folder is where the kept documents are.
func (s *Store) Folder() string { return s.dir }

// KeyPlace says in one line where the key of kept documents is.
func (s *Store) KeyPlace() string {
	_, origin, err := s.loadKey(false)
	switch {
	case origin == KeyInKeyring && s.secrets.InProcess():
		return "their key is in this program's memory only, and goes when it ends"
	case origin == KeyInKeyring:
		return "their key is in the system keyring (" + s.secrets.Service() + ", " + KeyName + ")"
	case origin == KeyInFile:
		return "their key is in the file " + s.keyFile + " (only you can read it), as no keyring answers"
	case err != nil && keyring.IsUnavailable(err):
		return "no key yet; as no keyring answers, keeping a document puts its key in the file " + s.keyFile + " (only you can read it)"
	}
	if s.secrets.InProcess() {
		return "no key yet: keeping a document puts one in this program's memory only"
	}
	return "no key yet: keeping a document puts one in the system keyring"
}

// loadKey finds the key: the keyring's, else the file's. With create, a
// missing key is made (in the keyring, or the file where no keyring
// answers).
func (s *Store) loadKey(create bool) ([]byte, KeyOrigin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != nil {
		return s.key, s.origin, nil
	}
	k, origin, unavailable, err := s.findKey()
	if err != nil || k != nil {
		return k, origin, err
	}
	if !create {
		if unavailable != nil {
			return nil, KeyNone, unavailable
		}
		return nil, KeyNone, errNoKey
	}
	// The first key is made under the folder's lock, and looked for again
	// under it: two consoles on one cache keeping their first documents at
	// once would otherwise each make one, and the copies kept under the
	// key the other replaced would read "not kept".
	if err := s.folder(); err != nil {
		return nil, KeyNone, err
	}
	if s.beforeLock != nil {
		s.beforeLock()
	}
	unlock, err := lockFolder(s.dir)
	if err != nil {
		return nil, KeyNone, fmt.Errorf("the folder of kept documents could not be locked: %w", err)
	}
	defer unlock()
	if k, origin, unavailable, err = s.findKey(); err != nil || k != nil {
		return k, origin, err
	}
	if s.beforeMake != nil {
		s.beforeMake()
	}
	k = make([]byte, keySize)
	if _, err := rand.Read(k); err != nil {
		return nil, KeyNone, err
	}
	if unavailable == nil {
		if err := s.secrets.Set(KeyName, base64.StdEncoding.EncodeToString(k)); err == nil {
			s.key, s.origin = k, KeyInKeyring
			return k, KeyInKeyring, nil
		} else if !keyring.IsUnavailable(err) {
			return nil, KeyNone, err
		}
	}
	if err := safefile.WriteNew(s.keyFile, false, func(w io.Writer) error {
		_, err := io.WriteString(w, base64.StdEncoding.EncodeToString(k)+"\n")
		return err
	}); err != nil {
		return nil, KeyNone, fmt.Errorf("no keyring answers, and the key file %s could not be written: %w", s.keyFile, err)
	}
	if s.Notice != nil {
		s.Notice("no keyring answers: the key of kept documents is in the file " + s.keyFile + " (mode 0600, only you can read it)")
	}
	s.key, s.origin = k, KeyInFile
	return k, KeyInFile, nil
}

// findKey looks for the key, the keyring's first, then the file's (under
// s.mu). A key found is remembered. Neither there: nil, and unavailable
// says whether that was because no keyring answered.
func (s *Store) findKey() (key []byte, origin KeyOrigin, unavailable, err error) {
	v, err := s.secrets.Get(KeyName)
	switch {
	case err == nil:
		k, derr := base64.StdEncoding.DecodeString(v)
		if derr != nil || len(k) != keySize {
			// Not a key this console made: refuse it rather than replace
			// it (what it opened stays readable by whoever made it).
			return nil, KeyNone, nil, fmt.Errorf("the keyring's %s is not a key of %d bytes", KeyName, keySize)
		}
		s.key, s.origin = k, KeyInKeyring
		return k, KeyInKeyring, nil, nil
	case keyring.IsUnavailable(err):
		unavailable = err
	case !errors.Is(err, keyring.ErrNotFound):
		return nil, KeyNone, nil, err
	}
	if k, ferr := s.readKeyFile(); ferr == nil {
		s.key, s.origin = k, KeyInFile
		return k, KeyInFile, nil, nil
	} else if !errors.Is(ferr, fs.ErrNotExist) {
		return nil, KeyNone, nil, ferr
	}
	return nil, KeyNone, unavailable, nil
}

var errNoKey = errors.New("no key: nothing was kept with this console's key")

func (s *Store) readKeyFile() ([]byte, error) {
	fi, err := os.Lstat(s.keyFile)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the key file %s is %s, not a regular file", s.keyFile, safefile.Kind(fi.Mode()))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the key file %s can be read by other users (mode %04o): make it 0600", s.keyFile, fi.Mode().Perm())
	}
	data, err := safefile.ReadFile(s.keyFile, 1024)
	if err != nil {
		return nil, err
	}
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(k) != keySize {
		return nil, fmt.Errorf("the key file %s does not hold a key of %d bytes", s.keyFile, keySize)
	}
	return k, nil
}

// name is the file name of a document: the item id in URL-safe base64
// (an id is text from the service), then the version.
func name(itemID string, version int) (string, error) {
	if itemID == "" || version < 1 {
		return "", fmt.Errorf("no file name for version %d of an item", version)
	}
	n := base64.RawURLEncoding.EncodeToString([]byte(itemID)) + ".v" + strconv.Itoa(version) + suffix
	if len(n) > 240 {
		return "", errors.New("an item id too long to name a file after")
	}
	return n, nil
}

// parseName is name's inverse.
func parseName(n string) (string, int, bool) {
	base, ok := strings.CutSuffix(n, suffix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndex(base, ".v")
	if i <= 0 {
		return "", 0, false
	}
	v, err := strconv.Atoi(base[i+2:])
	if err != nil || v < 1 {
		return "", 0, false
	}
	id, err := base64.RawURLEncoding.DecodeString(base[:i])
	if err != nil || len(id) == 0 {
		return "", 0, false
	}
	return string(id), v, true
}

// aad binds a sealed document to its item, its version and its header.
func aad(itemID string, version int, header []byte) []byte {
	var b bytes.Buffer
	b.WriteString("trustscreen kept document\x00")
	b.WriteString(itemID)
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(version))
	b.WriteByte(0)
	b.Write(header)
	return b.Bytes()
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// folder makes the folder (0700) and checks that it is one.
func (s *Store) folder() error {
	if err := os.Mkdir(s.dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(s.dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is %s, not a folder", s.dir, safefile.Kind(fi.Mode()))
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(s.dir, 0o700)
	}
	return nil
}

// Put keeps a document, replacing any copy of the same version (one kept
// with another key too). It returns the bytes written.
func (s *Store) Put(itemID string, version int, mediaType string, data []byte) (int64, error) {
	n, err := name(itemID, version)
	if err != nil {
		return 0, err
	}
	if len(data) > MaxDocument || len(mediaType) > 255 {
		return 0, errors.New("a document over the size a kept copy may have")
	}
	key, _, err := s.loadKey(true)
	if err != nil {
		return 0, err
	}
	aead, err := gcm(key)
	if err != nil {
		return 0, err
	}
	if err := s.folder(); err != nil {
		return 0, err
	}
	header := make([]byte, headerSize)
	copy(header, magic)
	header[4] = format
	binary.BigEndian.PutUint64(header[5:13], uint64(s.now().Unix()))
	if _, err := rand.Read(header[13:]); err != nil {
		return 0, err
	}
	plain := make([]byte, 0, 1+len(mediaType)+len(data))
	plain = append(plain, byte(len(mediaType)))
	plain = append(plain, mediaType...)
	plain = append(plain, data...)
	sealed := aead.Seal(header, header[13:], plain, aad(itemID, version, header))
	clear(plain)
	err = safefile.WriteNew(filepath.Join(s.dir, n), true, func(w io.Writer) error {
		_, err := w.Write(sealed)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("keeping a document in %s: %w", s.dir, err)
	}
	return int64(len(sealed)), nil
}

// Get reads a kept document: a *NotKeptError when none is kept, no key is
// found, or it does not open with the key. It destroys nothing.
func (s *Store) Get(itemID string, version int) (mediaType string, data []byte, err error) {
	n, err := name(itemID, version)
	if err != nil {
		return "", nil, &NotKeptError{Why: "no such document"}
	}
	sealed, err := safefile.ReadFile(filepath.Join(s.dir, n), headerSize+MaxDocument+1+255+16)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, &NotKeptError{Why: "no copy is kept"}
		}
		return "", nil, &NotKeptError{Why: "the kept copy cannot be read"}
	}
	if len(sealed) < headerSize || string(sealed[:4]) != magic || sealed[4] != format {
		return "", nil, &NotKeptError{Why: "the kept copy is not one this console wrote"}
	}
	key, _, err := s.loadKey(false)
	if err != nil {
		return "", nil, &NotKeptError{Why: "no key to open it (" + keyWords(err) + ")"}
	}
	aead, err := gcm(key)
	if err != nil {
		return "", nil, &NotKeptError{Why: "no key to open it"}
	}
	header := sealed[:headerSize]
	plain, err := aead.Open(nil, header[13:], sealed[headerSize:], aad(itemID, version, header))
	if err != nil {
		return "", nil, &NotKeptError{Why: "the kept copy does not open with this key (another key, or a moved or changed file); keep it again"}
	}
	if len(plain) < 1 || len(plain) < 1+int(plain[0]) {
		return "", nil, &NotKeptError{Why: "the kept copy is not one this console wrote"}
	}
	mt := string(plain[1 : 1+int(plain[0])])
	return mt, plain[1+int(plain[0]):], nil
}

func keyWords(err error) string {
	if errors.Is(err, errNoKey) {
		return "none is kept"
	}
	if keyring.IsUnavailable(err) {
		return "no keyring answers and there is no key file"
	}
	return err.Error()
}

// Has reports whether a copy of the version is kept (readable or not).
func (s *Store) Has(itemID string, version int) bool {
	n, err := name(itemID, version)
	if err != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(s.dir, n))
	return err == nil && fi.Mode().IsRegular()
}

// KeptAt is when the kept copy of a version was kept (ok false: none).
func (s *Store) KeptAt(itemID string, version int) (time.Time, bool) {
	n, err := name(itemID, version)
	if err != nil || !s.Has(itemID, version) {
		return time.Time{}, false
	}
	return s.keptAt(filepath.Join(s.dir, n)), true
}

// Remove removes the kept copy of a version; none is not an error. It
// reports whether there was one, and its size.
func (s *Store) Remove(itemID string, version int) (bool, int64, error) {
	n, err := name(itemID, version)
	if err != nil {
		return false, 0, nil
	}
	p := filepath.Join(s.dir, n)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, 0, err
	}
	return true, fi.Size(), nil
}

// List lists the kept documents, from their names and headers (no key
// needed). A file that is not one (a temporary file a crash left) is
// skipped; Sweep removes those.
func (s *Store) List() ([]Entry, error) {
	des, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		id, v, ok := parseName(de.Name())
		if !ok || !de.Type().IsRegular() {
			continue
		}
		e := Entry{ItemID: id, Version: v}
		if fi, err := de.Info(); err == nil {
			e.Size = fi.Size()
		}
		e.KeptAt = s.keptAt(filepath.Join(s.dir, de.Name()))
		out = append(out, e)
	}
	return out, nil
}

// keptAt reads the time in a file's header; zero when it has none.
func (s *Store) keptAt(p string) time.Time {
	f, err := os.Open(p)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	h := make([]byte, headerSize)
	if _, err := io.ReadFull(f, h); err != nil || string(h[:4]) != magic {
		return time.Time{}
	}
	return time.Unix(int64(binary.BigEndian.Uint64(h[5:13])), 0)
}

// Usage is how many documents are kept and their bytes on disk.
func (s *Store) Usage() (count int, bytes int64, err error) {
	es, err := s.List()
	for _, e := range es {
		count++
		bytes += e.Size
	}
	return count, bytes, err
}

// Sweep removes what a crash left in the folder: temporary files of a
// keep older than olderThan (a keep under way in another process is
// younger). They hold only ciphertext.
func (s *Store) Sweep(now time.Time, olderThan time.Duration) error {
	des, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), ".") || !strings.HasSuffix(de.Name(), ".tmp") {
			continue
		}
		if fi, err := de.Info(); err == nil && now.Sub(fi.ModTime()) >= olderThan {
			_ = os.Remove(filepath.Join(s.dir, de.Name()))
		}
	}
	return nil
}
