package screenapi

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Version 1.1 of the contract: who is calling (GET /v1/me), item revisions
// and If-Match, claims and notes. With Options.APIVersion "1.0" the service
// leaves every 1.1 field out of its items, ignores If-Match and claims, and
// answers 404 NOT_FOUND on the 1.1 endpoints, as a 1.0 service would.

// Contract versions the service can speak.
const (
	Version10 = "1.0"
	Version11 = "1.1"
)

// Endpoint names of version 1.1, as counted in Arrivals.
const (
	EPMe      = "me"
	EPClaim   = "claim"
	EPRelease = "release"
	EPNote    = "note"
)

// Reviewer is a person the service knows, by their token.
type Reviewer struct {
	Name        string // what claims and notes carry ("ana")
	DisplayName string // "Ana Lima"
	Token       string
}

// DemoReviewers is the built-in pair of `demo-api --demo` and the demo
// window. The tokens are public on purpose: the demo serves only loopback.
func DemoReviewers() []Reviewer {
	return []Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: "demo-token-ana-0001"},
		{Name: "ben", DisplayName: "Ben Okafor", Token: "demo-token-ben-0001"},
	}
}

// itemTeam is the 1.1 state of one item.
type itemTeam struct {
	revision    int64
	status      string // the status status_since refers to
	statusSince time.Time
	claim       *policy.RawClaim
	notes       []policy.RawNote
	files       []fileVersion
}

type fileVersion struct {
	Version    int       `json:"version"`
	FileName   string    `json:"file_name"`
	MediaType  string    `json:"media_type"`
	SizeBytes  int64     `json:"size_bytes"`
	UploadedAt time.Time `json:"uploaded_at"`
}

func (s *Server) v11() bool { return s.opts.APIVersion != Version10 }

func (s *Server) seedTeam(it *policy.RawItem, created time.Time) {
	s.team[it.ID] = &itemTeam{revision: 1, status: it.Status, statusSince: it.UpdatedAt.Add(-seedWait(it.ID)),
		files: []fileVersion{{Version: 1, FileName: it.FileName, MediaType: it.MediaType, SizeBytes: it.SizeBytes, UploadedAt: created}}}
}

// seedWait is how long before its last update a seeded item entered its
// status: 0 to 9 days, spread by its id (not by the seed's random source,
// whose sequence the rest of the data follows), so that the demo has
// fresh, warning and overdue items, the same on every run.
func seedWait(id string) time.Duration {
	h := fnv.New32a()
	h.Write([]byte(id))
	const span = 9 * 24 * 60 // minutes
	return time.Duration(h.Sum32()%span) * time.Minute
}

// changed records a change the service made to an item (s.mu held): the
// revision moves on, and status_since follows a new status.
func (s *Server) changed(it *policy.RawItem, now time.Time) {
	t := s.team[it.ID]
	if t == nil {
		return
	}
	t.revision++
	if t.status != it.Status {
		t.status, t.statusSince = it.Status, now
	}
}

func (s *Server) addVersion(it *policy.RawItem, mediaType string) {
	t := s.team[it.ID]
	if t == nil {
		return
	}
	t.files = append(t.files, fileVersion{Version: len(t.files) + 1, FileName: it.FileName, MediaType: mediaType,
		SizeBytes: it.SizeBytes, UploadedAt: s.opts.Now().UTC().Truncate(time.Millisecond)})
}

// liveClaim is the item's claim unless it expired (s.mu held).
func (s *Server) liveClaim(id string) *policy.RawClaim {
	t := s.team[id]
	if t == nil || t.claim == nil || !s.opts.Now().Before(t.claim.ExpiresAt) {
		return nil
	}
	return t.claim
}

// wireItem is an item as a 1.1 service sends it. Its own fields are spelled
// out here, apart from the console's decoding, so that the raw-HTTP tests
// check the contract's names.
type wireItem struct {
	*policy.RawItem
	Revision     int64         `json:"revision"`
	StatusSince  time.Time     `json:"status_since"`
	FileVersions []fileVersion `json:"file_versions"`
	Claim        *wireClaim    `json:"claim"`
	Notes        []wireNote    `json:"notes"`
}

type wireClaim struct {
	Reviewer  string    `json:"reviewer"`
	ExpiresAt time.Time `json:"expires_at"`
}

type wireNote struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
}

// wire is an item as this service version sends it (s.mu held).
func (s *Server) wire(it *policy.RawItem) any {
	cp := *it
	t := s.team[it.ID]
	if !s.v11() || t == nil {
		return &cp
	}
	w := wireItem{RawItem: &cp, Revision: t.revision, StatusSince: t.statusSince,
		FileVersions: append([]fileVersion{}, t.files...), Notes: []wireNote{}}
	if c := s.liveClaim(it.ID); c != nil {
		w.Claim = &wireClaim{Reviewer: c.Reviewer, ExpiresAt: c.ExpiresAt}
	}
	for _, n := range t.notes {
		w.Notes = append(w.Notes, wireNote(n))
	}
	return w
}

type ctxKey struct{}

// authenticate finds the reviewer of the request's token. A service with no
// tokens configured lets everyone in as "reviewer".
func (s *Server) authenticate(r *http.Request) (*http.Request, bool) {
	who := Reviewer{Name: "reviewer", DisplayName: "Reviewer"}
	if len(s.tokens) > 0 {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		rv, known := s.tokens[tok]
		if !ok || !known || tok == "" {
			return r, false
		}
		who = rv
	}
	return r.WithContext(context.WithValue(r.Context(), ctxKey{}, who)), true
}

func caller(r *http.Request) Reviewer {
	rv, _ := r.Context().Value(ctxKey{}).(Reviewer)
	return rv
}

func (s *Server) teamRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/me", s.wrap(EPMe, s.only11(s.me)))
	mux.HandleFunc("PUT /v1/items/{id}/claim", s.wrap(EPClaim, s.only11(s.claim)))
	mux.HandleFunc("DELETE /v1/items/{id}/claim", s.wrap(EPRelease, s.only11(s.release)))
	mux.HandleFunc("POST /v1/items/{id}/notes", s.wrap(EPNote, s.only11(s.idempotent(EPNote, s.addNote))))
}

// only11 answers 404 as a 1.0 service does to an endpoint it does not have.
func (s *Server) only11(h handler) handler {
	return func(r *http.Request) answer {
		if !s.v11() {
			return errAnswer(404, policy.CodeNotFound, "no such endpoint")
		}
		return h(r)
	}
}

func (s *Server) me(r *http.Request) answer {
	who := caller(r)
	return jsonAnswer(200, map[string]string{"reviewer": who.Name, "display_name": who.DisplayName})
}

// refusal is the 409 or 412 of the contract, with the item as it is now
// (s.mu held).
func (s *Server) refusal(status int, code policy.Code, msg string, it *policy.RawItem) answer {
	return jsonAnswer(status, map[string]any{"error_code": string(code), "error_message": msg, "item": s.wire(it)})
}

func (s *Server) claimedAnswer(r *http.Request, id string) (answer, bool) {
	c := s.liveClaim(id)
	if c == nil || c.Reviewer == caller(r).Name {
		return answer{}, false
	}
	return s.refusal(409, policy.CodeClaimed, fmt.Sprintf("%s holds this item until %s", c.Reviewer,
		c.ExpiresAt.Format(time.RFC3339)), s.items[id]), true
}

// guard refuses a POST on an item held by another reviewer (409 CLAIMED) or
// carrying an If-Match of another revision (412 ITEM_CHANGED). A note is
// how reviewers speak about an item, so it is accepted whoever holds the
// item (contract 1.1, amended). s.mu held.
func (s *Server) guard(r *http.Request, id, ep string) (answer, bool) {
	if !s.v11() {
		return answer{}, false // a 1.0 service knows neither
	}
	if ep != EPNote {
		if a, refused := s.claimedAnswer(r, id); refused {
			return a, true
		}
	}
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return answer{}, false
	}
	rev, err := strconv.ParseInt(strings.Trim(v, `"`), 10, 64)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, `If-Match must be a revision in quotes, such as "7"`), true
	}
	if t := s.team[id]; t != nil && t.revision != rev {
		return s.refusal(412, policy.CodeItemChanged, fmt.Sprintf("the item is at revision %d, not %d", t.revision, rev), s.items[id]), true
	}
	return answer{}, false
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

func (s *Server) claim(r *http.Request) answer {
	var body struct {
		TTL *json.Number `json:"ttl_seconds"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<10)).Decode(&body); err != nil || body.TTL == nil {
		return errAnswer(422, policy.CodeValidationFailed, "a body {\"ttl_seconds\": 60..3600} is required")
	}
	ttl, err := body.TTL.Int64()
	if err != nil || ttl < 60 || ttl > 3600 {
		return errAnswer(422, policy.CodeValidationFailed, "ttl_seconds must be a whole number from 60 to 3600")
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[id]
	if !ok {
		return errAnswer(404, policy.CodeNotFound, "no such item")
	}
	if a, refused := s.claimedAnswer(r, id); refused {
		return a
	}
	now := s.opts.Now().UTC().Truncate(time.Millisecond)
	s.team[id].claim = &policy.RawClaim{Reviewer: caller(r).Name, ExpiresAt: now.Add(time.Duration(ttl) * time.Second)}
	s.moved(it)
	return jsonAnswer(200, s.wire(it))
}

func (s *Server) release(r *http.Request) answer {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[id]
	if !ok {
		return errAnswer(404, policy.CodeNotFound, "no such item")
	}
	if a, refused := s.claimedAnswer(r, id); refused {
		return a
	}
	if s.liveClaim(id) != nil { // the caller's own: release it
		s.team[id].claim = nil
		s.moved(it)
	} else {
		s.team[id].claim = nil // an expired claim is no claim: nothing changes
	}
	return jsonAnswer(200, s.wire(it))
}

func (s *Server) addNote(r *http.Request) answer {
	var body struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&body); err != nil {
		return errAnswer(422, policy.CodeValidationFailed, "a body {\"text\": \"...\"} is required")
	}
	text, err := policy.CheckNoteText(body.Text)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, policy.ErrorMessage(err))
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	n := policy.RawNote{ID: fmt.Sprintf("nte_%06d", s.seq), Author: caller(r).Name, Text: text,
		CreatedAt: s.opts.Now().UTC().Truncate(time.Millisecond)}
	t := s.team[id]
	t.notes = append(t.notes, n)
	s.touch(s.items[id])
	return jsonAnswer(201, wireNote(n))
}

// Revision is an item's revision at the service.
func (s *Server) Revision(itemID string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.team[itemID]; t != nil {
		return t.revision
	}
	return 0
}

// Notes lists an item's notes at the service.
func (s *Server) Notes(itemID string) []policy.RawNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.team[itemID]; t != nil {
		return append([]policy.RawNote(nil), t.notes...)
	}
	return nil
}

// ClaimOf is who holds an item now ("" when nobody does).
func (s *Server) ClaimOf(itemID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.liveClaim(itemID); c != nil {
		return c.Reviewer
	}
	return ""
}
