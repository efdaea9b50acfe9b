package screenapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Claims (contract version 1.1): a reviewer's hold on an item, which
// refuses the other reviewers' actions on it with 409 CLAIMED.

// liveClaim is the item's claim unless it expired (s.mu held).
func (s *Server) liveClaim(id string) *policy.RawClaim {
	t := s.team[id]
	if t == nil || t.claim == nil || !s.opts.Now().Before(t.claim.ExpiresAt) {
		return nil
	}
	return t.claim
}

func (s *Server) claimedAnswer(r *http.Request, id string) (answer, bool) {
	c := s.liveClaim(id)
	if c == nil || c.Reviewer == caller(r).Name {
		return answer{}, false
	}
	return s.refusal(409, policy.CodeClaimed, fmt.Sprintf("%s holds this item until %s", c.Reviewer,
		c.ExpiresAt.Format(time.RFC3339)), s.items[id]), true
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

// ClaimOf is who holds an item now ("" when nobody does).
func (s *Server) ClaimOf(itemID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.liveClaim(itemID); c != nil {
		return c.Reviewer
	}
	return ""
}
