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

// Service runs the workflow for one reviewer.
type Service struct {
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

	// Decisions is the workflow of decisions and confirmations (decisions.go).
	Decisions *Decisions
}

// New builds the workflow.
func New(db *store.DB, api API, budget policy.Budget, reviewer string) *Service {
	s := &Service{db: db, api: api, budget: budget, reviewer: reviewer, now: time.Now, pageSize: 100,
		newKey: newKey, conn: Connection{State: ConnUnknown}}
	s.Decisions = &Decisions{s: s}
	s.loadIdentity()
	return s
}

// Close ends the work the service runs on its own, the documents being
// fetched (an asker who still waits gets the cancellation), and waits for
// it: whoever closes the cache and the client calls it first. It closes
// neither; a document asked for afterwards is not fetched.
func (s *Service) Close() { s.docs.close() }

// Reviewer is who acts. It reads under the lock that SetReviewer takes:
// a sync's identification sets the reviewer from its own goroutine while
// the window reads it.
func (s *Service) Reviewer() string { return s.who() }

// Now is the workflow's clock: what claims, ages and budgets are judged
// against, here and by the command line and the window that show them.
func (s *Service) Now() time.Time { return s.now() }

// SetReviewer changes who acts (preferences).
func (s *Service) SetReviewer(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reviewer = name
}

func (s *Service) who() string {
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
func (s *Service) Connectivity(ctx context.Context) (Connectivity, error) {
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
func (s *Service) observe(err error) {
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

func (s *Service) setConn(state ConnState, code policy.Code) {
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
