package review

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// The documents themselves (contract 1.1): an item's file versions, each
// with the result the console recorded for it, and their bytes.
//
// The bytes are a customer's identity document. They live only in memory,
// in a cache bounded in bytes (REVIEWER_DOCUMENT_CACHE, 128 MiB), least
// recently used out first; they never reach the SQLite cache, a temporary
// file, a log, an error message or the audit. Two asks for the same version
// at once make one request. Where a document comes from when memory lacks
// it is a chain: memory, then a kept copy (kept.go: a batch kept for
// offline review, encrypted at rest), then the service.

// DefaultDocumentCache is the default bound of the memory cache of
// documents, in bytes (REVIEWER_DOCUMENT_CACHE).
const DefaultDocumentCache = 128 << 20

// DocumentAPI is what the documents need of the API (contract 1.1).
type DocumentAPI interface {
	File(ctx context.Context, id string, version int) (client.Document, []policy.Attempt, error)
	FileVersions(ctx context.Context, id string) (policy.Item, []policy.Attempt, error)
}

// Document is one version of an item's file. Data is shared with the
// memory cache: read it, never change it.
type Document struct {
	ItemID    string
	Version   int
	MediaType string
	Data      []byte
}

// DocumentResult is the result the console recorded for a file version:
// its status, then its score (scored only) or its code, and when. A zero
// Status: no result was recorded for it.
type DocumentResult struct {
	Status       policy.Status
	Score        *int
	Band         policy.Band // the score's band; "" unless scored with a score
	Code         policy.Code
	ReportedCode string
	When         time.Time
}

// DocumentVersion is one version of an item's file as the cache lists it.
type DocumentVersion struct {
	Version   int
	FileName  string
	MediaType string
	SizeBytes int64
	When      time.Time // uploaded
	Recorded  DocumentResult
}

// DocumentProblem is why a document cannot be shown.
type DocumentProblem string

const (
	DocNotOffered    DocumentProblem = "not_offered" // the service offers no documents (contract 1.0)
	DocDamaged       DocumentProblem = "damaged"     // a type that lies, over 10 MiB, cut short
	DocOffline       DocumentProblem = "offline"     // the service cannot be reached and no copy is kept
	DocNoSuchVersion DocumentProblem = "no_such_version"
)

// DocumentError says in one plain line why a document cannot be shown. It
// never carries any of the document, nor text from the service.
type DocumentError struct {
	Problem DocumentProblem
	ItemID  string
	Version int
	Err     error // the cause: a *client.Error, a *client.DamagedFileError
}

func (e *DocumentError) Error() string {
	switch e.Problem {
	case DocNotOffered:
		return "the service does not offer documents"
	case DocDamaged:
		if d, ok := client.AsDamagedFile(e.Err); ok {
			return d.Error()
		}
		return "the file is damaged"
	case DocOffline:
		return "it is offline and not kept"
	case DocNoSuchVersion:
		return fmt.Sprintf("the service has no version %d of this file", e.Version)
	}
	return "the document cannot be shown"
}

func (e *DocumentError) Unwrap() error { return e.Err }

// ConsoleCode lets policy.ErrorCode (and the command line's exit status)
// read a code: NOT_OFFERED, INVALID_RESPONSE, NOT_FOUND, or the offline
// cause's (API_UNREACHABLE, CIRCUIT_OPEN).
func (e *DocumentError) ConsoleCode() policy.Code {
	switch e.Problem {
	case DocNotOffered:
		return policy.CodeNotOffered
	case DocDamaged:
		return policy.CodeInvalidResponse
	case DocNoSuchVersion:
		return policy.CodeNotFound
	}
	if c := policy.ErrorCode(e.Err); c != policy.CodeInternal && e.Err != nil {
		return c
	}
	return policy.CodeAPIUnreachable
}

// AsDocumentError returns the *DocumentError in err's chain, if any.
func AsDocumentError(err error) (*DocumentError, bool) {
	var d *DocumentError
	ok := errors.As(err, &d)
	return d, ok
}

// keptDocuments is where kept copies come from when memory lacks a
// document (nil: none are kept).
type keptDocuments interface {
	Load(ctx context.Context, itemID string, version int) (Document, bool, error)
}

// DocumentCacheUse is how many bytes of documents memory holds, and its bound.
func (s *DocumentService) DocumentCacheUse() (used, limit int64) { return s.docs.use() }

// ForgetDocuments drops every document from memory.
func (s *DocumentService) ForgetDocuments() { s.docs.clear() }

// DocumentVersions lists an item's file versions, oldest first, with the
// result the console recorded for each. When the cache knows none (an item
// synced before the cache kept them), the service is asked once and its
// answer kept; a 1.0 service offers none.
func (s *DocumentService) DocumentVersions(ctx context.Context, itemID string) ([]DocumentVersion, error) {
	return s.documentVersions(ctx, itemID)
}

// documentVersions is DocumentVersions, shared by the services that need it.
func (s *core) documentVersions(ctx context.Context, itemID string) ([]DocumentVersion, error) {
	if _, err := s.db.Items.Item(ctx, itemID); err != nil {
		return nil, err
	}
	vs, err := s.db.Files.FileVersions(ctx, itemID)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		if vs, err = s.readVersions(ctx, itemID); err != nil {
			return nil, err
		}
	}
	bands := s.triageSettings().Bands
	out := make([]DocumentVersion, 0, len(vs))
	for _, v := range vs {
		r := DocumentResult{Status: v.Result.Status, Score: v.Result.RiskScore, Code: v.Result.ErrorCode,
			ReportedCode: v.Result.ReportedCode, When: v.Result.RecordedAt}
		r.Band = bands.OfRecorded(r.Status, r.Score)
		out = append(out, DocumentVersion{Version: v.Version, FileName: v.FileName, MediaType: v.MediaType,
			SizeBytes: v.SizeBytes, When: v.UploadedAt, Recorded: r})
	}
	return out, nil
}

// readVersions asks the service for an item's versions and keeps them.
func (s *core) readVersions(ctx context.Context, itemID string) ([]store.FileVersion, error) {
	if s.apiVersion() == "1.0" {
		return nil, &DocumentError{Problem: DocNotOffered, ItemID: itemID}
	}
	if err := sendable(itemID); err != nil {
		return nil, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	it, _, err := s.api.FileVersions(opCtx, itemID)
	s.observe(err)
	if err != nil {
		return nil, s.documentError(itemID, 0, err)
	}
	if err := s.applyAnswered(ctx, it, s.who(), "", ""); err != nil {
		return nil, err
	}
	return s.db.Files.FileVersions(ctx, itemID)
}

// documentError turns a call's error into what the window says.
func (s *core) documentError(itemID string, version int, err error) error {
	if d, ok := client.AsDamagedFile(err); ok {
		// Only the damage: the call's own message says the same again.
		return &DocumentError{Problem: DocDamaged, ItemID: itemID, Version: version, Err: d}
	}
	e, ok := client.AsError(err)
	switch {
	case !ok:
		return err
	case e.Code == policy.CodeNotOffered:
		return &DocumentError{Problem: DocNotOffered, ItemID: itemID, Err: err}
	case e.Class == client.ClassNotConnected || e.Code == policy.CodeCircuitOpen:
		return &DocumentError{Problem: DocOffline, ItemID: itemID, Version: version, Err: err}
	case e.Code == policy.CodeNotFound && e.Class == client.ClassAnsweredNo && version > 0:
		return &DocumentError{Problem: DocNoSuchVersion, ItemID: itemID, Version: version, Err: err}
	}
	return err
}

// Document returns the bytes of version (0: the newest) of an item's file:
// from memory, else a kept copy, else the service. A type that the bytes
// contradict (the service's header, or the version's listed type), a body
// over 10 MiB or cut short is refused as damaged; the service out of reach
// with no copy kept is "offline and not kept".
func (s *DocumentService) Document(ctx context.Context, itemID string, version int) (Document, error) {
	return s.document(ctx, itemID, version)
}

// document is Document, shared by the services that need it.
func (s *core) document(ctx context.Context, itemID string, version int) (Document, error) {
	if version < 0 {
		return Document{}, policy.Errorf(policy.CodeInvalidInput, "file version %d: the first is 1 (0: the newest)", version)
	}
	vs, err := s.documentVersions(ctx, itemID)
	if err != nil {
		return Document{}, err
	}
	if len(vs) == 0 {
		return Document{}, &DocumentError{Problem: DocNotOffered, ItemID: itemID}
	}
	listed := vs[len(vs)-1]
	if version == 0 {
		version = listed.Version
	} else {
		listed = DocumentVersion{}
		for _, v := range vs {
			if v.Version == version {
				listed = v
			}
		}
	}
	key := docKey{item: itemID, version: version}
	if d, ok := s.docs.get(key); ok {
		return d, nil
	}
	return s.docs.fetch(ctx, key, func(ctx context.Context) (Document, error) {
		return s.loadDocument(ctx, itemID, version, listed.MediaType)
	})
}

// loadDocument reads a document that memory lacks: a kept copy, else the
// service. Its context is not the asker's (a fetch is shared): it ends with
// the budget of one call.
func (s *core) loadDocument(ctx context.Context, itemID string, version int, listedType string) (Document, error) {
	if s.kept != nil {
		// A copy that does not open (another key, none, a moved file) is
		// not kept: online the service is asked, offline it is "offline
		// and not kept". One whose type is not the listed one is not used.
		if d, ok, err := s.kept.Load(ctx, itemID, version); err == nil && ok && (listedType == "" || d.MediaType == listedType) {
			return d, nil
		}
	}
	if s.apiVersion() == "1.0" {
		return Document{}, &DocumentError{Problem: DocNotOffered, ItemID: itemID}
	}
	if err := sendable(itemID); err != nil {
		return Document{}, err
	}
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	doc, _, err := s.api.File(opCtx, itemID, version)
	s.observe(err)
	if err != nil {
		return Document{}, s.documentError(itemID, version, err)
	}
	if listedType != "" && doc.MediaType != listedType {
		// The answer agrees with itself but not with what the item says
		// the file is: one of the two lies.
		return Document{}, &DocumentError{Problem: DocDamaged, ItemID: itemID, Version: version,
			Err: &client.DamagedFileError{Problem: client.FileTypeMismatch, Declared: knownType(listedType), Actual: doc.MediaType}}
	}
	return Document{ItemID: itemID, Version: version, MediaType: doc.MediaType, Data: doc.Data}, nil
}

func knownType(mt string) string {
	for _, t := range policy.DocumentTypes {
		if mt == t {
			return t
		}
	}
	return ""
}

// docKey names one version of one item's file.
type docKey struct {
	item    string
	version int
}

// docCache is the memory cache of documents: bounded in bytes, least
// recently used out first, one fetch at a time per version.
type docCache struct {
	mu      sync.Mutex
	limit   int64 // 0: DefaultDocumentCache
	size    int64
	order   *list.List // of *docEntry, most recently used first
	entries map[docKey]*list.Element
	flights map[docKey]*docFlight
	// life is the flights' context: a flight outlives its asker (another
	// may want it), not the service (close).
	life context.Context
	end  context.CancelFunc
}

type docEntry struct {
	key docKey
	doc Document
}

type docFlight struct {
	waiters int // askers sharing it (tests)
	done    chan struct{}
	doc     Document
	err     error
}

func (c *docCache) init() {
	if c.entries == nil {
		c.order, c.entries, c.flights = list.New(), map[docKey]*list.Element{}, map[docKey]*docFlight{}
		c.life, c.end = context.WithCancel(context.Background())
	}
}

// close cancels the fetches under way and waits for them to end; a fetch
// asked for afterwards ends at once with the cancellation.
func (c *docCache) close() {
	c.mu.Lock()
	c.init()
	c.end()
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var f *docFlight
		for _, f = range c.flights {
			break
		}
		c.mu.Unlock()
		if f == nil {
			return
		}
		<-f.done
	}
}

func (c *docCache) bound() int64 {
	if c.limit <= 0 {
		return DefaultDocumentCache
	}
	return c.limit
}

// setLimit changes the bound; what is over it goes at once (a test's
// lower bound: the service's is given at New).
func (c *docCache) setLimit(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	c.limit = n
	c.evict()
}

func (c *docCache) use() (int64, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, c.bound()
}

func (c *docCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	c.order.Init()
	clear(c.entries)
	c.size = 0
}

func (c *docCache) get(k docKey) (Document, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	e, ok := c.entries[k]
	if !ok {
		return Document{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*docEntry).doc, true
}

// put keeps a document, then lets the least recently used go until the
// cache is within its bound. A document larger than the bound is not kept.
func (c *docCache) put(d Document) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	k := docKey{item: d.ItemID, version: d.Version}
	if int64(len(d.Data)) > c.bound() {
		return
	}
	if e, ok := c.entries[k]; ok {
		c.size -= int64(len(e.Value.(*docEntry).doc.Data))
		c.order.Remove(e)
	}
	c.entries[k] = c.order.PushFront(&docEntry{key: k, doc: d})
	c.size += int64(len(d.Data))
	c.evict()
}

func (c *docCache) evict() {
	for c.size > c.bound() {
		e := c.order.Back()
		ent := e.Value.(*docEntry)
		c.order.Remove(e)
		delete(c.entries, ent.key)
		c.size -= int64(len(ent.doc.Data))
	}
}

// fetch runs load once for every asker of the same version at the same
// time; each asker waits for it or for its own context. The load runs
// under the cache's own context, which no single asker's cancel ends (its
// own budget bounds it) and Service.Close does; what it brings is kept.
func (c *docCache) fetch(ctx context.Context, k docKey, load func(context.Context) (Document, error)) (Document, error) {
	c.mu.Lock()
	c.init()
	f, running := c.flights[k]
	if !running {
		f = &docFlight{done: make(chan struct{})}
		c.flights[k] = f
		go func() {
			d, err := load(c.life)
			if err == nil {
				c.put(d)
			}
			c.mu.Lock()
			f.doc, f.err = d, err
			delete(c.flights, k)
			c.mu.Unlock()
			close(f.done)
		}()
	}
	f.waiters++
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.doc, f.err
	case <-ctx.Done():
		return Document{}, ctx.Err()
	}
}
