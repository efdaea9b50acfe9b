package screenapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/trustscreen/reviewer/policy"
)

// Version 1.1 of the contract: who is calling (GET /v1/me), item revisions
// and If-Match, claims and notes. With Options.APIVersion "1.0" the service
// leaves every 1.1 field out of its items, ignores If-Match and claims, and
// answers 404 NOT_FOUND on the 1.1 endpoints, as a 1.0 service would. This
// file holds who is calling and which version is spoken; items.go,
// claims.go, notes.go and conflicts.go hold the rest.

// Contract versions the service can speak.
const (
	Version10 = "1.0"
	Version11 = "1.1"
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

func (s *Server) v11() bool { return s.opts.APIVersion != Version10 }

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
