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

// SetClock replaces the workflow's clock (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// SetAfterCall installs a hook that runs between a call's answer and
// recording it (tests: to kill the process, or fill the disk, there).
func (s *Service) SetAfterCall(f func(store.Action)) { s.afterCall = f }
