package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Ageing: the risk band beside a score, and how long an item has waited in
// its status. Pure rules, no I/O; the numbers are configuration with these
// defaults.

// Band is a risk band: a word beside a score. Only a checked (scored) item
// has one; an error, an invalid answer or a missing one has none.
type Band string

const (
	BandLow      Band = "low"
	BandMedium   Band = "medium"
	BandHigh     Band = "high"
	BandCritical Band = "critical"
)

// Bands are the lower bounds of the medium, high and critical bands; low
// starts at 0. The defaults: low 0-39, medium 40-69, high 70-84, critical
// 85-100.
type Bands struct {
	Medium, High, Critical int
}

// DefaultBands returns the default bounds.
func DefaultBands() Bands { return Bands{Medium: 40, High: 70, Critical: 85} }

// Check refuses bounds that are not strictly rising within 1..100.
func (b Bands) Check() error {
	if b.Medium < 1 || b.Medium >= b.High || b.High >= b.Critical || b.Critical > 100 {
		return Errorf(CodeInvalidInput, "risk bands %d,%d,%d: want three rising lower bounds (medium, high, critical) within 1..100, such as 40,70,85",
			b.Medium, b.High, b.Critical)
	}
	return nil
}

// ParseBands reads "MEDIUM,HIGH,CRITICAL" lower bounds, such as "40,70,85".
func ParseBands(v string) (Bands, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return Bands{}, Errorf(CodeInvalidInput, "risk bands %q: want three lower bounds such as 40,70,85", v)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Bands{}, Errorf(CodeInvalidInput, "risk bands %q: %q is not a whole number", v, p)
		}
		n[i] = x
	}
	b := Bands{Medium: n[0], High: n[1], Critical: n[2]}
	return b, b.Check()
}

// Of returns the band of a checked item; ok is false for an item that
// carries no verdict (error, invalid, pending, awaiting a file).
func (b Bands) Of(it Item) (band Band, ok bool) {
	if !it.Checked() {
		return "", false
	}
	return b.OfScore(*it.RiskScore), true
}

// OfRecorded is the band of a result recorded for a file version (the
// history keeps its status and score, not its recommendation): a score
// recorded with the status scored has one; an error, an invalid answer or
// a missing score has none ("").
func (b Bands) OfRecorded(st Status, score *int) Band {
	if st != StatusScored || score == nil {
		return ""
	}
	return b.OfScore(*score)
}

// OfScore is the band of a risk score. Only a score the service gave a
// checked answer has a band: callers ask Of for an item, and OfRecorded
// for a version's recorded result.
func (b Bands) OfScore(s int) Band {
	switch {
	case s >= b.Critical:
		return BandCritical
	case s >= b.High:
		return BandHigh
	case s >= b.Medium:
		return BandMedium
	}
	return BandLow
}

// AgeLevel is how an item's wait in its status compares to the thresholds.
type AgeLevel string

const (
	AgeFresh   AgeLevel = "fresh"
	AgeWarn    AgeLevel = "warn"
	AgeOverdue AgeLevel = "overdue"
)

// Ageing holds the two thresholds of an item's wait: warn (default 2 days)
// and overdue (default 5 days).
type Ageing struct {
	Warn, Overdue time.Duration
}

// DefaultAgeing returns the default thresholds.
func DefaultAgeing() Ageing { return Ageing{Warn: 48 * time.Hour, Overdue: 120 * time.Hour} }

// Check refuses thresholds that are not positive and rising.
func (a Ageing) Check() error {
	if a.Warn <= 0 || a.Overdue <= a.Warn {
		return Errorf(CodeInvalidInput, "ageing thresholds warn %v, overdue %v: want 0 < warn < overdue", a.Warn, a.Overdue)
	}
	return nil
}

// Waits reports whether an item in this status waits for someone, so that
// its age matters. A scored item is finished: it does not age.
func Waits(s Status) bool { return s != StatusScored }

// Level compares the wait since a time with the thresholds. An unknown
// start (zero) is fresh: the console never claims an age it does not know.
func (a Ageing) Level(status Status, since, now time.Time) AgeLevel {
	if !Waits(status) || since.IsZero() {
		return AgeFresh
	}
	switch age := now.Sub(since); {
	case age >= a.Overdue:
		return AgeOverdue
	case age >= a.Warn:
		return AgeWarn
	}
	return AgeFresh
}

// Describe is the age in words, with "overdue" spelled out, never colour
// alone: "3 d", "6 d · overdue", "" when the start is unknown.
func (a Ageing) Describe(status Status, since, now time.Time) string {
	if since.IsZero() {
		return ""
	}
	s := FormatAge(now.Sub(since))
	if a.Level(status, since, now) == AgeOverdue {
		s += " · overdue"
	}
	return s
}

// FormatAge is a short age: "12 min", "5 h", "3 d". Under a minute is
// "now"; a negative age (a clock ahead of ours) is "now" too. Ago says the
// same age in a sentence.
func FormatAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return fmt.Sprintf("%d d", int(d/(24*time.Hour)))
}

// Ago is an age as a sentence says it: "just now", "12 min ago", "5 h ago",
// "3 d ago". Its numbers are FormatAge's, so that a sentence never gives an
// age other than the one the columns show.
func Ago(d time.Duration) string {
	if d < time.Minute {
		return "just now"
	}
	return FormatAge(d) + " ago"
}
