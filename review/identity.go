package review

import (
	"context"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Who the reviewer is (contract 1.1): the name comes from GET /v1/me when
// the service offers it, stored in the cache for offline use; otherwise
// from --reviewer, REVIEWER_NAME or the system user. The same answer says
// which contract the service speaks.

// teamState is what the service keeps of contract 1.1 between calls, under
// its own lock: who the reviewer is, how long a claim lasts (claims.go), and
// test hooks after a note is written and after its call (notes.go).
type teamState struct {
	mu              sync.Mutex
	identity        policy.Identity
	identified      bool // GET /v1/me answered (or was not offered) in this process
	claimTTL        time.Duration
	claimAway       time.Duration // 0: policy.DefaultClaimAway
	afterNoteIntent func(store.NoteRow)
	afterNoteCall   func(store.NoteRow)
}

// Identified is who the console goes by: who the service said the reviewer
// is (or, without it, this console's settings), and where that came from.
type Identified struct {
	policy.Identity
	Source string // the service, the cache, or this console's settings
}

func (s *core) loadIdentity() {
	s.team.claimTTL = policy.DefaultClaimTTL
	id, err := s.db.Team.Identity(context.Background())
	if err != nil {
		return
	}
	s.team.identity = id
	if id.Reviewer != "" {
		s.reviewer = id.Reviewer
	}
}

// APIVersion is the contract version the service last showed ("" unknown).
func (s *TeamService) APIVersion() string { return s.apiVersion() }

// apiVersion is APIVersion, shared by the services that need it.
func (s *core) apiVersion() string {
	s.team.mu.Lock()
	defer s.team.mu.Unlock()
	return s.team.identity.APIVersion
}

func (s *core) setVersion(ctx context.Context, v string) {
	s.team.mu.Lock()
	id := s.team.identity
	id.APIVersion = v
	s.team.identity = id
	s.team.mu.Unlock()
	_ = s.db.Team.SetIdentity(ctx, policy.Identity{APIVersion: v})
}

// Identify asks the service who the reviewer is. With a 1.0 service, or
// offline, it says what the console goes by instead; err is the call's
// error when the service could not be asked.
func (s *TeamService) Identify(ctx context.Context) (Identified, error) { return s.identify(ctx) }

// identify is Identify, shared by the services that need it.
func (s *core) identify(ctx context.Context) (Identified, error) {
	opCtx, cancel := context.WithDeadline(ctx, s.budget.Deadline(s.now()))
	defer cancel()
	me, _, err := s.api.Me(opCtx)
	s.observe(err)
	switch {
	case err == nil:
		if s.apiVersion() != "1.1" {
			// Items synced while the service spoke 1.0 carry no revision,
			// and an incremental sync would never bring most of them again.
			if err := s.db.Sync.MarkFullSyncIfUnrevised(ctx, "the service now speaks contract 1.1"); err != nil {
				return Identified{}, err
			}
		}
		if err := s.db.Team.SetIdentity(ctx, me); err != nil {
			return Identified{}, err
		}
		s.team.mu.Lock()
		s.team.identity, s.team.identified = me, true
		s.team.mu.Unlock()
		s.setReviewer(me.Reviewer)
		return Identified{Identity: me, Source: "the screening service"}, nil
	case client.IsNotOffered(err):
		s.setVersion(ctx, "1.0")
		s.team.mu.Lock()
		s.team.identified = true
		s.team.mu.Unlock()
		return Identified{Identity: policy.Identity{Reviewer: s.who(), DisplayName: s.who(), APIVersion: "1.0"},
			Source: "this console (--reviewer, REVIEWER_NAME or the system user): the service does not offer GET /v1/me"}, nil
	}
	s.team.mu.Lock()
	st := s.team.identity
	s.team.mu.Unlock()
	if st.Reviewer != "" {
		return Identified{Identity: st, Source: "the cache (the service said so when last reached)"}, err
	}
	return Identified{Identity: policy.Identity{Reviewer: s.who(), DisplayName: s.who(), APIVersion: st.APIVersion},
		Source: "this console (--reviewer, REVIEWER_NAME or the system user)"}, err
}

// identifyOnce asks GET /v1/me once per process, before the first sync.
func (s *core) identifyOnce(ctx context.Context) {
	s.team.mu.Lock()
	done := s.team.identified
	s.team.mu.Unlock()
	if !done {
		_, _ = s.identify(ctx)
	}
}

func (s *core) notOfferedLocally(what string) error {
	if s.apiVersion() == "1.0" {
		return policy.Errorf(policy.CodeNotOffered, "this service does not offer %s (it speaks contract 1.0)", what)
	}
	return nil
}
