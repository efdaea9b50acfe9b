// Package screenapi is the reference screening service: the whole contract
// of ../shared/screening-api.md, in-process, on loopback. The tests run the
// console against it over real sockets, and `reviewer demo-api` and
// `reviewer --demo` serve it to people. It exists as its own package because
// it is a second program (a server), not a part of the console: of the
// console's packages only cli imports it, to serve `demo-api` and `--demo`;
// the workflow, the client, the cache and the window never do.
//
// It keeps deterministic seeded data, idempotency keys with the contract's
// replay / 409 / 422 rules, a count of paid analyses per item and of
// arrivals per endpoint, simulated latency, and switchable faults. It
// serves a real document for every item, drawn when first asked for
// (documents.go, files.go), and a replacement's bytes as a new version.
package screenapi

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Endpoint names, as counted in Arrivals.
const (
	EPBatches     = "batches"
	EPItem        = "item"
	EPResubmit    = "resubmit"
	EPFileRequest = "file_request"
	EPReplacement = "replacement"
	EPMe          = "me"      // version 1.1
	EPClaim       = "claim"   // version 1.1
	EPRelease     = "release" // version 1.1
	EPNote        = "note"    // version 1.1
	EPFile        = "file"    // version 1.1: GET /v1/items/{id}/files/{version}
)

// Options configure a Server.
type Options struct {
	Seed             int64         // seeded data (default 1)
	Batches          int           // how many batches to seed (default 48)
	ItemsPerBatch    int           // items in each seeded batch, 1 to 10 (default: 1 to 10 at random)
	Token            string        // when set, requests must carry it as a Bearer token (reviewer "reviewer")
	Reviewers        []Reviewer    // each with a token of their own; see identity.go
	APIVersion       string        // "1.1" (default), "1.2" (decisions) or "1.0": no 1.1 fields, 404 on 1.1 endpoints
	Latency          time.Duration // added to every request
	AnalysisLatency  time.Duration // how long the classifier takes
	ClassifierBudget time.Duration // the classifier's budget (default 10s)
	Now              func() time.Time
}

// Server is a running reference service.
type Server struct {
	opts Options

	mu        sync.Mutex
	batches   map[string]*batch
	items     map[string]*policy.RawItem
	keys      map[string]*idem
	analyses  map[string]int
	running   map[string]int // analyses under way, per item
	arrivals  map[string]int
	faults    []*Fault
	scripts   map[string][]Outcome
	latencies map[string]time.Duration
	holds     map[string]chan struct{} // analyses that wait for a test to release them
	uploads   map[string][]Upload
	requests  map[string]int // file requests per item
	seq       int
	sorted    []*batch             // batches, oldest change first; nil when a change made it stale
	tokens    map[string]Reviewer  // by token; empty: no authentication
	team      map[string]*itemTeam // the 1.1 state of each item
	reasons   []ReasonCode         // the 1.2 list of reason codes
	itemLocks map[string]*sync.Mutex

	http    *http.Server
	ln      net.Listener
	addr    string
	tlsConf *tls.Config
	closing chan struct{}
}

type batch struct {
	ID          string
	CustomerRef string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ItemIDs     []string
}

type idem struct {
	itemID   string
	endpoint string
	running  bool
	status   int
	body     []byte
}

// Outcome scripts the result of the next analysis of an item.
type Outcome struct {
	Code  string // "" for scored
	Score int
}

// Upload is what arrived in a replacement.
type Upload struct {
	Size   int
	SHA256 string
}

// New builds a server with seeded data; Start or Serve runs it.
func New(opts Options) *Server {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Batches == 0 {
		opts.Batches = 48
	}
	if opts.ClassifierBudget == 0 {
		opts.ClassifierBudget = classifierBudget
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.APIVersion == "" {
		opts.APIVersion = Version11
	}
	s := &Server{
		opts: opts, batches: map[string]*batch{}, items: map[string]*policy.RawItem{},
		keys: map[string]*idem{}, analyses: map[string]int{}, running: map[string]int{}, arrivals: map[string]int{},
		scripts: map[string][]Outcome{}, latencies: map[string]time.Duration{}, holds: map[string]chan struct{}{}, uploads: map[string][]Upload{},
		requests: map[string]int{}, closing: make(chan struct{}),
		tokens: map[string]Reviewer{}, team: map[string]*itemTeam{}, itemLocks: map[string]*sync.Mutex{},
		reasons: DemoReasonCodes(),
	}
	if opts.Token != "" {
		s.tokens[opts.Token] = Reviewer{Name: "reviewer", DisplayName: "Reviewer", Token: opts.Token}
	}
	for _, r := range opts.Reviewers {
		s.tokens[r.Token] = r
	}
	s.seed()
	return s
}

// Start listens on addr ("127.0.0.1:0" for a free port) and serves plain HTTP.
func Start(addr string, opts Options) (*Server, error) {
	s := New(opts)
	return s, s.listen(addr, nil)
}

// StartTLS serves HTTPS with the given certificate.
func StartTLS(addr string, opts Options, cert tls.Certificate) (*Server, error) {
	s := New(opts)
	return s, s.listen(addr, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
}

func (s *Server) listen(addr string, tc *tls.Config) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.tlsConf = tc
	s.addr = ln.Addr().String()
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: nil, TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	s.serve(ln)
	return nil
}

func (s *Server) serve(ln net.Listener) {
	if s.tlsConf != nil {
		ln = tls.NewListener(ln, s.tlsConf)
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	go func() { _ = s.http.Serve(ln) }()
}

// URL is the base URL of the running server.
func (s *Server) URL() string {
	if s.tlsConf != nil {
		return "https://" + s.addr
	}
	return "http://" + s.addr
}

// Addr is the listening address.
func (s *Server) Addr() string { return s.addr }

// Refuse stops listening, so that connections are refused; Accept listens
// again on the same address.
func (s *Server) Refuse() {
	s.mu.Lock()
	ln := s.ln
	s.ln = nil
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
}

// Accept listens again after Refuse.
func (s *Server) Accept() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.serve(ln)
	return nil
}

// Close stops the server and ends every hanging request.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closing:
	default:
		close(s.closing)
	}
	s.mu.Unlock()
	if s.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.http.Shutdown(ctx)
		_ = s.http.Close()
	}
}

// Running is how many analyses of an item are under way (not yet counted
// by Analyses, which counts them when they end).
func (s *Server) Running(itemID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[itemID]
}

// Analyses is how many paid analyses ran for an item.
func (s *Server) Analyses(itemID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.analyses[itemID]
}

// TotalAnalyses is how many paid analyses ran in all.
func (s *Server) TotalAnalyses() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.analyses {
		n += v
	}
	return n
}

// Arrivals is how many requests reached an endpoint.
func (s *Server) Arrivals(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.arrivals[endpoint]
}

// FileRequests is how many file requests were recorded for an item.
func (s *Server) FileRequests(itemID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[itemID]
}

// Uploads lists the replacements received for an item.
func (s *Server) Uploads(itemID string) []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Upload(nil), s.uploads[itemID]...)
}

// Script sets the outcomes of the next analyses of an item, in order.
func (s *Server) Script(itemID string, outcomes ...Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[itemID] = append(s.scripts[itemID], outcomes...)
}

// SetAnalysisLatency sets how long the classifier takes on one item.
func (s *Server) SetAnalysisLatency(itemID string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencies[itemID] = d
}

// Hold makes every analysis of the item wait, after its latency, until the
// returned release is called (or the server closes): a test can keep a
// request in flight for exactly as long as it needs, with no timer.
func (s *Server) Hold(itemID string) (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.holds[itemID] = ch
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.holds[itemID] == ch {
				delete(s.holds, itemID)
			}
			s.mu.Unlock()
			close(ch)
		})
	}
}

// Item returns a copy of an item as the service holds it.
func (s *Server) Item(id string) (policy.RawItem, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[id]
	if !ok {
		return policy.RawItem{}, false
	}
	return *it, true
}

// Find returns the id of the first item (in batch order) matching pred.
func (s *Server) Find(pred func(policy.RawItem) bool) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.sortedBatches() {
		for _, id := range b.ItemIDs {
			if pred(*s.items[id]) {
				return id, true
			}
		}
	}
	return "", false
}

// FindCode returns the first item in error with the reported code.
func (s *Server) FindCode(code string) string {
	id, _ := s.Find(func(it policy.RawItem) bool {
		return it.Status == "error" && it.ErrorCode != nil && *it.ErrorCode == code && it.RiskScore == nil
	})
	return id
}

// Touch marks an item changed now, as if the service had re-analysed it.
func (s *Server) Touch(itemID string, mutate func(*policy.RawItem)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[itemID]
	mutate(it)
	s.touch(it)
}

func (s *Server) touch(it *policy.RawItem) {
	now := s.moved(it)
	s.changed(it, now)
}

// moved marks an item (and its batch) updated now without changing what a
// reviewer decides on (s.mu held): a claim taken, renewed or released moves
// updated_at, so that a sync brings it, and leaves the revision alone
// (contract 1.1).
func (s *Server) moved(it *policy.RawItem) time.Time {
	now := s.opts.Now().UTC().Truncate(time.Millisecond)
	it.UpdatedAt = now
	if b := s.batches[it.BatchID]; b != nil && now.After(b.UpdatedAt) {
		b.UpdatedAt = now
		s.sorted = nil
	}
	return now
}

// sortedBatches is the batches, oldest change first. The order is kept
// until a batch changes, so that a page costs its own size, not a sort of
// every batch (a sync of 100,000 batches asks for 1,000 pages).
func (s *Server) sortedBatches() []*batch {
	if s.sorted != nil {
		return s.sorted
	}
	out := make([]*batch, 0, len(s.batches))
	for _, b := range s.batches {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.Before(out[j].UpdatedAt)
		}
		return out[i].ID < out[j].ID
	})
	s.sorted = out
	return out
}

// Handler is the service's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/batches", s.wrap(EPBatches, s.listBatches))
	mux.HandleFunc("GET /v1/items/{id}", s.wrap(EPItem, s.getItem))
	mux.HandleFunc("POST /v1/items/{id}/resubmissions", s.wrap(EPResubmit, s.idempotent(EPResubmit, s.resubmit)))
	mux.HandleFunc("POST /v1/items/{id}/file-requests", s.wrap(EPFileRequest, s.idempotent(EPFileRequest, s.fileRequest)))
	mux.HandleFunc("POST /v1/items/{id}/replacement", s.wrap(EPReplacement, s.idempotent(EPReplacement, s.replacement)))
	s.teamRoutes(mux)
	s.fileRoutes(mux)
	s.decisionRoutes(mux)
	return mux
}

// answer is a handler's result, written by wrap unless a fault intervenes.
type answer struct {
	status int
	header http.Header
	body   []byte
	// forget: the request never arrived whole (its body was cut in
	// transit), so nothing was decided and its key is not kept: a repeat
	// with the same key is a first request.
	forget bool
}

func jsonAnswer(status int, v any) answer {
	b, _ := json.Marshal(v)
	return answer{status: status, body: b}
}

func errAnswer(status int, code policy.Code, msg string) answer {
	return jsonAnswer(status, map[string]string{"error_code": string(code), "error_message": msg})
}

type handler func(r *http.Request) answer

func (s *Server) wrap(ep string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.arrivals[ep]++
		s.mu.Unlock()
		r, ok := s.authenticate(r)
		if !ok {
			writeAnswer(w, errAnswer(http.StatusUnauthorized, policy.CodeUnauthenticated, "missing or wrong token"))
			return
		}
		if !s.wait(r.Context(), s.opts.Latency) {
			// The caller hung up (nobody to answer), or the service is
			// shutting down before anything ran: say so, never an empty 200.
			if r.Context().Err() == nil {
				writeAnswer(w, shuttingDown())
			}
			return
		}
		f := s.takeFault(ep, false)
		onBody := f != nil && ep == EPFile && f.Kind.onFileBody()
		if f != nil && !onBody {
			if s.applyFault(w, r, f) {
				return
			}
		}
		a := h(r)
		if onBody && a.status == http.StatusOK {
			fileFault(w, a, f)
			return
		}
		if f := s.takeFault(ep, true); f != nil && s.applyFault(w, r, f) {
			return
		}
		writeAnswer(w, a)
	}
}

func writeAnswer(w http.ResponseWriter, a answer) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// held waits for a test's release of a held analysis; false when the server closes.
func (s *Server) held(hold chan struct{}) bool {
	if hold == nil {
		return true
	}
	select {
	case <-hold:
		return true
	case <-s.closing:
		return false
	}
}

// wait sleeps d unless the request or the server ends first.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closing:
		return false
	}
}

func (s *Server) listBatches(r *http.Request) answer {
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("updated_since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return errAnswer(422, policy.CodeValidationFailed, "updated_since is not RFC 3339")
		}
		since = t
	}
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errAnswer(422, policy.CodeValidationFailed, "limit must be a positive integer")
		}
		limit = min(n, 200)
	}
	offset := 0
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errAnswer(422, policy.CodeValidationFailed, "bad cursor")
		}
		offset = n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.sortedBatches()
	// The batches changed at or after since are the tail of the order.
	changed := all[sort.Search(len(all), func(i int) bool { return !all[i].UpdatedAt.Before(since) }):]
	type wireBatch struct {
		ID          string    `json:"id"`
		CustomerRef string    `json:"customer_ref"`
		CreatedAt   time.Time `json:"created_at"`
		UpdatedAt   time.Time `json:"updated_at"`
		Items       []any     `json:"items"`
	}
	page := struct {
		Batches    []wireBatch `json:"batches"`
		NextCursor *string     `json:"next_cursor"`
	}{Batches: []wireBatch{}}
	end := min(offset+limit, len(changed))
	for i := offset; i < end; i++ {
		b := changed[i]
		wb := wireBatch{ID: b.ID, CustomerRef: b.CustomerRef, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
		for _, id := range b.ItemIDs {
			wb.Items = append(wb.Items, s.wire(s.items[id]))
		}
		page.Batches = append(page.Batches, wb)
	}
	if end < len(changed) {
		c := strconv.Itoa(end)
		page.NextCursor = &c
	}
	return jsonAnswer(200, page)
}

func (s *Server) getItem(r *http.Request) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[r.PathValue("id")]
	if !ok {
		return errAnswer(404, policy.CodeNotFound, "no such item")
	}
	return jsonAnswer(200, s.wire(it))
}

// idempotent applies the contract's key rules around an action.
func (s *Server) idempotent(ep string, h handler) handler {
	return func(r *http.Request) answer {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			return errAnswer(422, policy.CodeValidationFailed, "Idempotency-Key is required")
		}
		itemID := r.PathValue("id")
		s.mu.Lock()
		if _, ok := s.items[itemID]; !ok {
			s.mu.Unlock()
			return errAnswer(404, policy.CodeNotFound, "no such item")
		}
		if rec, ok := s.keys[key]; ok {
			s.mu.Unlock()
			return rec.replay(itemID, ep)
		}
		s.mu.Unlock()
		// One POST at a time on an item, so that two reviewers acting at the
		// same moment on the revision they both saw meet If-Match one after
		// the other: the second finds the item changed and nothing runs.
		lock := s.itemLock(itemID)
		lock.Lock()
		defer lock.Unlock()
		s.mu.Lock()
		if rec, ok := s.keys[key]; ok { // the same key arrived while this one waited
			s.mu.Unlock()
			return rec.replay(itemID, ep)
		}
		if a, refused := s.guard(r, itemID, ep); refused {
			s.mu.Unlock()
			return a
		}
		rec := &idem{itemID: itemID, endpoint: ep, running: true}
		s.keys[key] = rec
		s.mu.Unlock()

		a := h(r)

		s.mu.Lock()
		defer s.mu.Unlock()
		if a.status >= 500 || a.status == 0 || a.forget {
			delete(s.keys, key) // nothing was done: the key may be used again
			return a
		}
		rec.running, rec.status, rec.body = false, a.status, a.body
		return a
	}
}

func (s *Server) itemLock(id string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.itemLocks[id]
	if l == nil {
		l = &sync.Mutex{}
		s.itemLocks[id] = l
	}
	return l
}

// replay answers a request whose key the service already knows.
func (rec *idem) replay(itemID, ep string) answer {
	switch {
	case rec.itemID != itemID || rec.endpoint != ep:
		return errAnswer(422, policy.CodeIdempotencyKeyReused, "this key was used for another item or action")
	case rec.running:
		return errAnswer(409, policy.CodeIdempotencyKeyInUse, "a request with this key is still running")
	}
	return answer{status: rec.status, body: rec.body}
}

func (s *Server) resubmit(r *http.Request) answer {
	id := r.PathValue("id")
	s.mu.Lock()
	it := s.items[id]
	if it.Status != "error" || it.ErrorCode == nil {
		s.mu.Unlock()
		return errAnswer(422, policy.CodeNotRetryable, "the item is not in error")
	}
	if code := *it.ErrorCode; rerunCannotHelp(code) {
		s.mu.Unlock()
		return errAnswer(422, policy.CodeNotRetryable, code+" cannot be helped by a re-run; a new file is needed")
	}
	s.mu.Unlock()
	return s.analyze(r.Context(), id)
}

func (s *Server) fileRequest(r *http.Request) answer {
	id := r.PathValue("id")
	var body struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&body)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		a := errAnswer(400, policy.CodeValidationFailed, "the request body ended before its end")
		a.forget = true
		return a
	}
	if err != nil || body.Reason == "" || body.Message == "" {
		return errAnswer(422, policy.CodeValidationFailed, "reason and message are required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[id]
	if it.Status != "error" {
		return errAnswer(422, policy.CodeValidationFailed, "a new file is requested only for an item in error")
	}
	s.seq++
	s.requests[id]++
	it.Status, it.ErrorCode, it.ErrorMessage = "awaiting_file", nil, nil
	s.touch(it)
	return jsonAnswer(201, map[string]any{"id": fmt.Sprintf("frq_%06d", s.seq), "item_id": id, "status": "sent", "created_at": it.UpdatedAt})
}

func (s *Server) replacement(r *http.Request) answer {
	id := r.PathValue("id")
	r.Body = http.MaxBytesReader(nil, r.Body, MaxFileSize+1<<20)
	f, hdr, err := r.FormFile("file")
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return s.fileVerdict(id, policy.CodePayloadTooLarge)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			a := errAnswer(400, policy.CodeValidationFailed, "the request body ended before its end")
			a.forget = true
			return a
		}
		return errAnswer(422, policy.CodeValidationFailed, "a multipart field named file is required")
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, "could not read the file")
	}
	sum := sha256.Sum256(data)
	s.mu.Lock()
	s.uploads[id] = append(s.uploads[id], Upload{Size: len(data), SHA256: hex.EncodeToString(sum[:])})
	it := s.items[id]
	it.FileName = hdr.Filename
	it.SizeBytes = int64(len(data))
	s.addVersion(it, mediaType(data), data)
	s.mu.Unlock()
	if len(data) > MaxFileSize {
		return s.fileVerdict(id, policy.CodePayloadTooLarge)
	}
	mt := mediaType(data)
	if mt == "" {
		return s.fileVerdict(id, policy.CodeUnsupportedMediaType)
	}
	s.mu.Lock()
	it.MediaType = mt
	s.mu.Unlock()
	return s.analyze(r.Context(), id)
}

// fileVerdict records a replacement refused before analysis.
func (s *Server) fileVerdict(id string, code policy.Code) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[id]
	setError(it, string(code))
	s.touch(it)
	return jsonAnswer(200, s.wire(it))
}

// shuttingDown is the answer to a request the service's shutdown cut before
// anything of it ran: nothing was counted and its key is not kept.
func shuttingDown() answer {
	return answer{status: 503, body: []byte(`{"error_code":"SERVICE_UNAVAILABLE","error_message":"shutting down"}`)}
}

// analyze runs one paid analysis of an item. It is counted, and its outcome
// taken, only when it ends: a shutdown while it runs answers 503 with
// nothing counted, so that a 503 (whose key the service forgets) never
// stands for an analysis that was paid for. Once counted, its answer is
// the key's (idempotent keeps it) and goes out, or a repeat returns it.
func (s *Server) analyze(ctx context.Context, id string) answer {
	s.mu.Lock()
	latency, ok := s.latencies[id]
	if !ok {
		latency = s.opts.AnalysisLatency
	}
	budget := s.opts.ClassifierBudget
	hold := s.holds[id]
	s.running[id]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running[id]--
		s.mu.Unlock()
	}()

	timedOut := latency > budget
	if timedOut {
		latency = budget
	}
	// The analysis runs to its end even if the caller hangs up: that is
	// what makes an unknown outcome on the console's side real.
	if !s.wait(context.WithoutCancel(ctx), latency) || !s.held(hold) {
		return shuttingDown()
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.analyses[id]++
	var out Outcome
	if q := s.scripts[id]; len(q) > 0 {
		out, s.scripts[id] = q[0], q[1:]
	} else {
		out = Outcome{Score: scoreFor(id, s.items[id].Attempt+1)}
	}
	if timedOut {
		out = Outcome{Code: string(policy.CodeClassifierTimeout)}
	}
	it := s.items[id]
	it.Attempt++
	if out.Code == "" {
		setScored(it, out.Score)
	} else {
		setError(it, out.Code)
	}
	s.touch(it)
	return jsonAnswer(200, s.wire(it))
}

// BatchSize is how many items a batch holds.
func (s *Server) BatchSize(batchID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.batches[batchID]; b != nil {
		return len(b.ItemIDs)
	}
	return 0
}
