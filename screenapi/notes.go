package screenapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Notes (contract version 1.1): what reviewers say about an item, accepted
// whoever holds it.

func (s *Server) addNote(r *http.Request) answer {
	var body struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&body); err != nil {
		return errAnswer(422, policy.CodeValidationFailed, "a body {\"text\": \"...\"} is required")
	}
	text, err := noteText(body.Text)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, err.Error())
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

// Notes lists an item's notes at the service.
func (s *Server) Notes(itemID string) []policy.RawNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.team[itemID]; t != nil {
		return append([]policy.RawNote(nil), t.notes...)
	}
	return nil
}
