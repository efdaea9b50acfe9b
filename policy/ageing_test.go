package policy_test

import (
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

func scoredItem(score int) policy.Item {
	return policy.Item{ID: "i", Status: policy.StatusScored, RiskScore: &score, Recommendation: policy.RecommendReview}
}

func TestBands(t *testing.T) {
	def := policy.DefaultBands()
	custom := policy.Bands{Medium: 20, High: 50, Critical: 90}
	tests := []struct {
		name  string
		b     policy.Bands
		item  policy.Item
		band  policy.Band
		valid bool
	}{
		{"0 low", def, scoredItem(0), policy.BandLow, true},
		{"39 low", def, scoredItem(39), policy.BandLow, true},
		{"40 medium", def, scoredItem(40), policy.BandMedium, true},
		{"69 medium", def, scoredItem(69), policy.BandMedium, true},
		{"70 high", def, scoredItem(70), policy.BandHigh, true},
		{"84 high", def, scoredItem(84), policy.BandHigh, true},
		{"85 critical", def, scoredItem(85), policy.BandCritical, true},
		{"100 critical", def, scoredItem(100), policy.BandCritical, true},
		{"custom 19 low", custom, scoredItem(19), policy.BandLow, true},
		{"custom 20 medium", custom, scoredItem(20), policy.BandMedium, true},
		{"custom 89 high", custom, scoredItem(89), policy.BandHigh, true},
		{"custom 90 critical", custom, scoredItem(90), policy.BandCritical, true},
		{"error has no band", def, policy.Item{Status: policy.StatusError, ErrorCode: policy.CodeInternal}, "", false},
		{"invalid has no band", def, policy.Item{Status: policy.StatusInvalid, ErrorCode: policy.CodeInvalidResponse}, "", false},
		{"pending has no band", def, policy.Item{Status: policy.StatusPending}, "", false},
		{"awaiting file has no band", def, policy.Item{Status: policy.StatusAwaitingFile}, "", false},
		{"scored without a score has no band", def, policy.Item{Status: policy.StatusScored, Recommendation: policy.RecommendForward}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			band, ok := tt.b.Of(tt.item)
			if band != tt.band || ok != tt.valid {
				t.Fatalf("got %q %v, want %q %v", band, ok, tt.band, tt.valid)
			}
		})
	}
}

func TestParseBands(t *testing.T) {
	tests := []struct {
		in   string
		want policy.Bands
		ok   bool
	}{
		{"40,70,85", policy.DefaultBands(), true},
		{" 10, 20 ,30", policy.Bands{Medium: 10, High: 20, Critical: 30}, true},
		{"1,2,100", policy.Bands{Medium: 1, High: 2, Critical: 100}, true},
		{"40,70", policy.Bands{}, false},
		{"70,40,85", policy.Bands{}, false},
		{"40,40,85", policy.Bands{}, false},
		{"0,70,85", policy.Bands{}, false},
		{"40,70,101", policy.Bands{}, false},
		{"40,seventy,85", policy.Bands{}, false},
	}
	for _, tt := range tests {
		b, err := policy.ParseBands(tt.in)
		if (err == nil) != tt.ok || (tt.ok && b != tt.want) {
			t.Errorf("%q: %+v %v", tt.in, b, err)
		}
		if err != nil && policy.ErrorCode(err) != policy.CodeInvalidInput {
			t.Errorf("%q: code %s", tt.in, policy.ErrorCode(err))
		}
	}
}

func TestAgeing(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	def := policy.DefaultAgeing()
	short := policy.Ageing{Warn: time.Hour, Overdue: 3 * time.Hour}
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	day := 24 * time.Hour
	tests := []struct {
		name   string
		a      policy.Ageing
		status policy.Status
		since  time.Time
		level  policy.AgeLevel
		words  string
	}{
		{"just now", def, policy.StatusError, ago(10 * time.Second), policy.AgeFresh, "now"},
		{"minutes", def, policy.StatusError, ago(12 * time.Minute), policy.AgeFresh, "12 min"},
		{"hours", def, policy.StatusAwaitingFile, ago(5 * time.Hour), policy.AgeFresh, "5 h"},
		{"just under warn", def, policy.StatusError, ago(2*day - time.Second), policy.AgeFresh, "1 d"},
		{"warn", def, policy.StatusError, ago(2 * day), policy.AgeWarn, "2 d"},
		{"just under overdue", def, policy.StatusAwaitingFile, ago(5*day - time.Second), policy.AgeWarn, "4 d"},
		{"overdue", def, policy.StatusAwaitingFile, ago(5 * day), policy.AgeOverdue, "5 d · overdue"},
		{"long overdue", def, policy.StatusInvalid, ago(40 * day), policy.AgeOverdue, "40 d · overdue"},
		{"scored does not age", def, policy.StatusScored, ago(40 * day), policy.AgeFresh, "40 d"},
		{"unknown start", def, policy.StatusError, time.Time{}, policy.AgeFresh, ""},
		{"clock ahead", def, policy.StatusError, now.Add(time.Hour), policy.AgeFresh, "now"},
		{"custom warn", short, policy.StatusPending, ago(90 * time.Minute), policy.AgeWarn, "1 h"},
		{"custom overdue", short, policy.StatusPending, ago(3 * time.Hour), policy.AgeOverdue, "3 h · overdue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Level(tt.status, tt.since, now); got != tt.level {
				t.Errorf("level %s, want %s", got, tt.level)
			}
			if got := tt.a.Describe(tt.status, tt.since, now); got != tt.words {
				t.Errorf("words %q, want %q", got, tt.words)
			}
		})
	}
	if def.Check() != nil || short.Check() != nil {
		t.Error("valid thresholds refused")
	}
	for _, bad := range []policy.Ageing{{}, {Warn: time.Hour, Overdue: time.Hour}, {Warn: -time.Hour, Overdue: time.Hour}} {
		if policy.ErrorCode(bad.Check()) != policy.CodeInvalidInput {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// The age in a sentence is the age of the columns, with "ago": one rule,
// whichever the reviewer reads.
func TestAgoSaysTheColumnsAge(t *testing.T) {
	day := 24 * time.Hour
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Hour, "just now"}, // a clock ahead of ours
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1 min ago"},
		{2 * time.Minute, "2 min ago"},
		{3 * time.Hour, "3 h ago"},
		{day - time.Second, "23 h ago"},
		{30 * time.Hour, "1 d ago"},
		{2*day - time.Second, "1 d ago"},
		{40 * day, "40 d ago"},
	} {
		got := policy.Ago(tt.d)
		if got != tt.want {
			t.Errorf("Ago(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if tt.d >= time.Minute && got != policy.FormatAge(tt.d)+" ago" {
			t.Errorf("Ago(%v) = %q says another age than FormatAge's %q", tt.d, got, policy.FormatAge(tt.d))
		}
	}
}

// A recorded result has a band only when it was scored with a score.
func TestBandOfARecordedResult(t *testing.T) {
	def := policy.DefaultBands()
	s := func(v int) *int { return &v }
	for _, tt := range []struct {
		st    policy.Status
		score *int
		want  policy.Band
	}{
		{policy.StatusScored, s(39), policy.BandLow},
		{policy.StatusScored, s(85), policy.BandCritical},
		{policy.StatusScored, nil, ""},
		{policy.StatusError, s(90), ""},
		{policy.StatusInvalid, s(90), ""},
		{policy.StatusPending, nil, ""},
		{policy.StatusAwaitingFile, s(10), ""},
	} {
		if got := def.OfRecorded(tt.st, tt.score); got != tt.want {
			t.Errorf("%s %v: %q, want %q", tt.st, tt.score, got, tt.want)
		}
	}
}
