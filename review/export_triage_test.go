package review

import "time"

// SetClock replaces time.Now (tests: snoozes and ages on an injected clock).
func (s *Service) SetClock(now func() time.Time) { s.now = now }
