// Package review is the reviewer's workflow: syncing the cache, taking
// actions on items, the outbox and its reconciliation, and the audit trail.
// It is the one place where client (HTTP) and store (SQLite) meet, so that
// the window and the command line behave exactly the same.
//
// Every action follows one life: the reviewer acts; the action is written
// with a new Idempotency-Key before any call; it is taken under a lease
// and sent; its outcome is recorded with the evidence of every attempt. The
// states and every move between them are policy's action machine
// (policy.Transition); this package only says which event a call met
// (event). A first send that reached nothing goes back to the queue. An
// action that may have reached the service is unknown until the service
// answers for its key: it is sent again later with the same key (the
// service replays its stored answer), never cancelled, never repeated with
// a new key. A sender whose lease ran out is fenced; an outcome that could
// not be recorded after a call is reported as unknown, with the key.
package review

import (
	"context"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// API is what the workflow needs of the screening API (a *client.Client).
type API interface {
	ListBatches(ctx context.Context, since time.Time, cursor string, limit int) (client.Page, []policy.Attempt, error)
	GetItem(ctx context.Context, id string) (policy.Item, []policy.Attempt, error)
	Resubmit(ctx context.Context, id, key string, opts ...client.CallOption) (policy.Item, []policy.Attempt, error)
	RequestFile(ctx context.Context, id, key string, reason policy.Code, message string, opts ...client.CallOption) (client.FileRequest, []policy.Attempt, error)
	Replace(ctx context.Context, id, key, fileName string, data []byte, opts ...client.CallOption) (policy.Item, []policy.Attempt, error)
	Health() client.Health
	// Probe asks whether the API answers, past the breaker (an answer
	// closes it).
	Probe(ctx context.Context) ([]policy.Attempt, error)
	TeamAPI
	DocumentAPI // documents.go
	DecisionAPI // decisions.go
}

// TeamAPI is what working as a team needs of the API (contract 1.1).
type TeamAPI interface {
	Me(ctx context.Context) (policy.Identity, []policy.Attempt, error)
	Claim(ctx context.Context, id string, ttl time.Duration) (policy.Item, []policy.Attempt, error)
	Release(ctx context.Context, id string) (policy.Item, []policy.Attempt, error)
	AddNote(ctx context.Context, id, key, text string, opts ...client.CallOption) (policy.Note, []policy.Attempt, error)
}

// Service runs the workflow for one reviewer: one service per noun, each
// a few methods, all sharing one core (the cache, the API, the clock, the
// keys, the connection's state, the settings given at New and the test
// hooks). A caller takes the service it uses: svc.Actions.Resubmit,
// svc.Team.Claim, svc.Runs.Confirm. Settings are given at New (Config),
// none is set afterwards.
type Service struct {
	*core
	Sync      *SyncService      // syncing, the connection and its probe, the cache's version
	Actions   *ActionService    // an item's actions, the outbox: flush, cancel, queue again; the files of failed replacements
	Team      *TeamService      // who the reviewer is, claims, next, notes
	Triage    *TriageService    // items and batches as listed, their ageing, snoozes, saved views, the CSV
	Documents *DocumentService  // an item's documents, in memory
	Kept      *KeptService      // documents kept for offline review
	Runs      *RunService       // bulk plans and runs
	Retention *RetentionService // the cache forgetting on time
	Decisions *Decisions        // decisions and confirmations, the reason codes (decisions.go; contract 1.2)
}

// The services: each is the core under the name of its noun.
type (
	SyncService      struct{ *core }
	ActionService    struct{ *core }
	TeamService      struct{ *core }
	TriageService    struct{ *core }
	DocumentService  struct{ *core }
	KeptService      struct{ *core }
	RunService       struct{ *core }
	RetentionService struct{ *core }
)

// core is what every service shares.
type core struct {
	cfg      Config // as given to New, with its defaults
	db       *store.DB
	api      API
	budget   policy.Budget
	reviewer string
	now      func() time.Time
	pageSize int
	// syncPages is the most pages one sync reads (0: the default; sync.go).
	syncPages int
	// newsLimit is how many rows of what needs action a sync's news check
	// reads (0: the default; sync.go).
	newsLimit int
	newKey    func() string

	mu   sync.Mutex
	conn Connection

	afterIntent func(store.Action) // tests: runs between writing an action and sending it
	afterCall   func(store.Action) // tests: runs between a call's answer and recording it
	// beforeSummary runs when a bulk run has sent what it could, before its
	// summary is read from the cache (tests: to make that read fail).
	beforeSummary func()

	claimedBy func(r store.ItemRow, me string, now time.Time) string // who else holds an item (tests; nil: the cache's claim)
	bulkMax   int                                                    // the largest run confirmed without its count (bulk.go; 0: DefaultBulkMax)
	team      teamState                                              // identity.go: who the reviewer is, how long a claim lasts
	triage    TriageSettings                                         // bands and ageing (ageing.go)
	files     fileSettings                                           // files of failed replacements (files.go)
	docs      docCache                                               // documents in memory (documents.go)
	kept      keptDocuments                                          // kept copies of documents (documents.go; nil: none)
	news      noticed                                                // items answers outside a sync made need the reviewer (news.go)
}

// Config is every setting of the workflow, given at New; none changes
// afterwards. A zero field takes its default.
type Config struct {
	// Budget is the deadlines of every call (client.Config.Budget).
	Budget policy.Budget
	// Reviewer is who acts, until the service says who she is (GET
	// /v1/me, identity.go).
	Reviewer string
	// ClaimTTL is how long a claim lasts (REVIEWER_CLAIM_TTL; 0:
	// policy.DefaultClaimTTL).
	ClaimTTL time.Duration
	// ClaimAway is how long the reviewer gives the window none of her
	// input (or leaves it out of the foreground) before a claim held only
	// because she looks at an item is let go (REVIEWER_CLAIM_AWAY; 0:
	// policy.DefaultClaimAway).
	ClaimAway time.Duration
	// Triage is the risk bands and the ageing thresholds (zero:
	// DefaultTriageSettings); invalid ones are refused by New.
	Triage TriageSettings
	// BulkMax is the largest bulk run confirmed without its count
	// (REVIEWER_BULK_MAX, --bulk-max; 0: DefaultBulkMax); below 0 is
	// refused by New.
	BulkMax int
	// Retention is how long the cache keeps a batch nobody touched
	// (REVIEWER_RETENTION; 0: policy.DefaultRetention).
	Retention time.Duration
	// KeptFileRetention is how long the file of a failed replacement is
	// kept (REVIEWER_KEPT_FILE_RETENTION; 0: policy.DefaultKeptFileRetention).
	KeptFileRetention time.Duration
	// DocumentCache bounds the memory cache of documents, in bytes
	// (REVIEWER_DOCUMENT_CACHE; 0: DefaultDocumentCache).
	DocumentCache int64
	// DocumentLimits bound the check of an upload as the viewer bounds a
	// document, so that a file she could not be shown is not paid for
	// (REVIEWER_MAX_MEGAPIXELS, the PDF renderer's time and memory; zero:
	// document.DefaultLimits).
	DocumentLimits document.Limits
	// KeptDocuments is where documents are kept for offline review (nil:
	// none are kept, and Service.Kept is nil).
	KeptDocuments *keptdocs.Store
	// KeptDocumentRetention is how long a kept document stays
	// (REVIEWER_KEPT_DOCUMENT_RETENTION; 0: DefaultKeptDocumentRetention).
	KeptDocumentRetention time.Duration
	// MaxSyncPages is the most pages one sync reads
	// (REVIEWER_SYNC_MAX_PAGES; 0: policy.DefaultMaxSyncPages).
	MaxSyncPages int
	// PageSize is how many batches a sync asks for at a time (0: 100).
	PageSize int
	// Now is the workflow's clock (nil: time.Now).
	Now func() time.Time
}

// New builds the workflow with its settings. Settings it cannot work
// with (invalid bands or ageing, a negative bulk limit) are refused with
// CodeInvalidInput.
func New(db *store.DB, api API, cfg Config) (*Service, error) {
	if cfg.BulkMax < 0 {
		return nil, policy.Errorf(policy.CodeInvalidInput, "the bulk limit %d: want at least 1", cfg.BulkMax)
	}
	if cfg.Triage == (TriageSettings{}) {
		cfg.Triage = DefaultTriageSettings()
	}
	if err := cfg.Triage.Bands.Check(); err != nil {
		return nil, err
	}
	if err := cfg.Triage.Ageing.Check(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 100
	}
	s := &core{cfg: cfg, db: db, api: api, budget: cfg.Budget, reviewer: cfg.Reviewer, now: cfg.Now, pageSize: cfg.PageSize,
		newKey: newKey, conn: Connection{State: ConnUnknown},
		syncPages: cfg.MaxSyncPages, bulkMax: cfg.BulkMax, triage: cfg.Triage}
	s.team.claimTTL, s.team.claimAway = cfg.ClaimTTL, cfg.ClaimAway
	s.files.retention, s.files.batchRetention, s.files.docLimits = cfg.KeptFileRetention, cfg.Retention, cfg.DocumentLimits
	s.docs.limit = cfg.DocumentCache
	if cfg.KeptDocuments != nil {
		s.kept = &keptShelf{store: cfg.KeptDocuments, retention: cfg.KeptDocumentRetention, now: func() time.Time { return s.now() }}
	}
	s.loadIdentity()
	return &Service{core: s, Sync: &SyncService{s}, Actions: &ActionService{s}, Team: &TeamService{s},
		Triage: &TriageService{s}, Documents: &DocumentService{s}, Kept: &KeptService{s}, Runs: &RunService{s},
		Retention: &RetentionService{s}, Decisions: &Decisions{s}}, nil
}

// Close ends the work the service runs on its own, the documents being
// fetched (an asker who still waits gets the cancellation), and waits for
// it: whoever closes the cache and the client calls it first. It closes
// neither; a document asked for afterwards is not fetched.
func (s *Service) Close() { s.docs.close() }

// Now is the workflow's clock: what claims, ages and budgets are judged
// against, here and by the command line and the window that show them.
func (s *Service) Now() time.Time { return s.now() }

// Reviewer is who acts. It reads under the lock that setReviewer takes:
// a sync's identification sets the reviewer from its own goroutine while
// the window reads it.
func (s *TeamService) Reviewer() string { return s.who() }

// setReviewer changes who acts: the service said who she is (identity.go).
func (s *core) setReviewer(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reviewer = name
}

func (s *core) who() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reviewer
}

// ConnState is what the console knows of the API's reachability.
type ConnState string

const (
	ConnUnknown     ConnState = "unknown" // no call made yet
	ConnOnline      ConnState = "online"
	ConnOffline     ConnState = "offline"
	ConnCircuitOpen ConnState = "circuit_open"
)

// Connection is the last known reachability of the API.
type Connection struct {
	State   ConnState
	Since   time.Time
	RetryAt time.Time // circuit open: when a probe is let through
	Code    policy.Code
}

// Connectivity is what the connection strip shows: the API's reachability,
// the last sync and any rate-limit wait. (An item's status is
// policy.Status; this is not one.)
type Connectivity struct {
	Conn             Connection
	LastSync         time.Time
	RateLimitedUntil time.Time
	Outbox           store.OutboxCount // what waits to go out, shown at all times
	Empty            bool              // the cache holds nothing: no cached data to speak of
}

// Connectivity reports the connection, the last sync and any rate-limit
// wait.
func (s *SyncService) Connectivity(ctx context.Context) (Connectivity, error) {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	switch h := s.api.Health(); {
	case h.CircuitOpen:
		c = Connection{State: ConnCircuitOpen, Since: c.Since, RetryAt: h.RetryAt, Code: policy.CodeCircuitOpen}
	case c.State == ConnCircuitOpen:
		// The breaker's pause is over (it lets a call through now, or
		// closed): the last word of a call it refused no longer holds,
		// and has no retry time to show. Until a call answers, the API
		// is as good as offline.
		c.State, c.RetryAt = ConnOffline, time.Time{}
	}
	last, err := s.db.Sync.LastSync(ctx)
	if err != nil {
		return Connectivity{Conn: c}, err
	}
	until, err := s.db.Sync.RateLimitedUntil(ctx)
	if err != nil {
		return Connectivity{Conn: c, LastSync: last}, err
	}
	out, err := s.db.Outbox.CountOutbox(ctx)
	if err != nil {
		return Connectivity{Conn: c, LastSync: last, RateLimitedUntil: until}, err
	}
	empty, err := s.db.Items.Empty(ctx)
	return Connectivity{Conn: c, LastSync: last, RateLimitedUntil: until, Outbox: out, Empty: empty}, err
}

// observe updates the connection from a call's outcome.
func (s *core) observe(err error) {
	state, code := ConnOnline, policy.Code("")
	if e, ok := client.AsError(err); ok {
		code = e.Code
		switch {
		case e.Code == policy.CodeCircuitOpen:
			state = ConnCircuitOpen
		case e.Class == client.ClassNotConnected:
			state = ConnOffline
		case e.Class == client.ClassNotStarted || e.Class == client.ClassUnknown:
			// Nothing was learnt about the API as a whole: one call that
			// went out and got no answer is that item's unknown outcome,
			// not the connection's (an idle probe tells).
			return
		}
	} else if err != nil {
		return
	}
	s.setConn(state, code)
}

func (s *core) setConn(state ConnState, code policy.Code) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn.State != state {
		s.conn.Since = s.now()
	}
	s.conn.State, s.conn.Code = state, code
}

// recordCtx is for writing an outcome after the call's own context ended:
// the reserve of the budget exists for this.
func recordCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}
