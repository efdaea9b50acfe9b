package review

import (
	"time"

	"github.com/trustscreen/reviewer/store"
)

// SetAfterIntent installs a hook that runs between writing an action and
// sending it (tests: to kill the process there).
func (s *Service) SetAfterIntent(f func(store.Action)) { s.afterIntent = f }

// SetPageSize sets the sync page size (tests).
func (s *Service) SetPageSize(n int) { s.pageSize = n }

// SetNewsLimit sets how many rows of what needs action a sync's news
// check reads (tests).
func (s *Service) SetNewsLimit(n int) { s.newsLimit = n }

// SetClock replaces the workflow's clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// SetAfterCall installs a hook that runs between a call's answer and
// recording it (tests: to kill the process, or fill the disk, there).
func (s *Service) SetAfterCall(f func(store.Action)) { s.afterCall = f }

// SetClaimCheck replaces how a bulk plan tells who else holds an item
// (tests): it returns the other reviewer's name when someone else holds
// the item at now, "" otherwise. Bulk plans leave such items out ("1 is
// claimed by Ben"). By default the claim the cache holds (contract 1.1)
// says.
func (s *Service) SetClaimCheck(f func(r store.ItemRow, me string, now time.Time) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claimedBy = f
}

// SetAfterNoteCall installs a hook that runs between a note's call and
// recording its outcome (tests: to take the note over there).
func (s *Service) SetAfterNoteCall(f func(store.NoteRow)) { s.team.afterNoteCall = f }

// SetBeforeSummary installs a hook that runs when a bulk run has sent what
// it could, before its summary is read (tests: to make that read fail).
func (s *Service) SetBeforeSummary(f func()) { s.beforeSummary = f }

// With is the service built again over the same cache and API with its
// settings changed by mod (tests: settings are given at New), keeping the
// clock, the page size and the test hooks set on s.
func (s *Service) With(mod func(*Config)) (*Service, error) {
	c := s.cfg
	c.Now, c.PageSize = s.now, s.pageSize
	mod(&c)
	n, err := New(s.db, s.api, c)
	if err != nil {
		return nil, err
	}
	n.afterIntent, n.afterCall, n.beforeSummary, n.claimedBy, n.newsLimit = s.afterIntent, s.afterCall, s.beforeSummary, s.claimedBy, s.newsLimit
	n.team.afterNoteIntent, n.team.afterNoteCall = s.team.afterNoteIntent, s.team.afterNoteCall
	return n, nil
}
