package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// A claim's end reads with its date whenever it is not today: "until 23:59"
// for a claim that ends tomorrow, or in the year 9999, would tell the
// reviewer the item frees up tonight.
func TestUntilTextShowsTheDateWhenTheClaimDoesNotEndToday(t *testing.T) {
	noon := time.Date(2026, 12, 1, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		end  time.Time
		want string
	}{
		{time.Date(2026, 12, 1, 12, 30, 0, 0, time.Local), "12:30"},
		{time.Date(2026, 12, 1, 23, 59, 0, 0, time.Local), "23:59"},
		{time.Date(2026, 12, 2, 0, 5, 0, 0, time.Local), "Dec 2 00:05"},
		{time.Date(2026, 12, 2, 23, 59, 0, 0, time.Local), "Dec 2 23:59"},
		{time.Date(2026, 11, 30, 23, 59, 0, 0, time.Local), "Nov 30 23:59"},
		{time.Date(2027, 1, 1, 9, 17, 0, 0, time.Local), "Jan 1 2027 09:17"},
		{time.Date(9999, 12, 31, 23, 59, 0, 0, time.Local), "Dec 31 9999 23:59"},
	} {
		if got := policy.UntilText(c.end, noon); got != c.want {
			t.Errorf("UntilText(%v) = %q, want %q", c.end, got, c.want)
		}
		// The same instant in another zone reads the same: the reviewer's
		// zone decides, not the zone the service wrote.
		if got := policy.UntilText(c.end.UTC(), noon.UTC()); got != c.want {
			t.Errorf("UntilText(%v in UTC) = %q, want %q", c.end, got, c.want)
		}
	}
}

// REVIEWER_CLAIM_TTL and claim --ttl share one check: the contract's 60 to
// 3600 seconds, whole seconds, and zero is refused like any other value
// outside the range (it used to stand for the default, and shortened a
// longer claim the reviewer meant to renew).
func TestParseClaimTTLRefusesWhatTheContractDoesNotAllow(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want time.Duration
	}{{"15m", 15 * time.Minute}, {"1m", time.Minute}, {"60s", time.Minute}, {"1h", time.Hour}, {"3600s", time.Hour}, {" 20m ", 20 * time.Minute}} {
		if d, err := policy.ParseClaimTTL(ok.in); err != nil || d != ok.want {
			t.Errorf("ParseClaimTTL(%q) = %v, %v; want %v", ok.in, d, err, ok.want)
		}
	}
	for _, bad := range []string{"0s", "0", "", "59s", "-15m", "1h0m1s", "61m", "90.5s", "15", "soon"} {
		d, err := policy.ParseClaimTTL(bad)
		if err == nil {
			t.Errorf("ParseClaimTTL(%q) = %v: it must be refused", bad, d)
			continue
		}
		if policy.ErrorCode(err) != policy.CodeInvalidInput {
			t.Errorf("ParseClaimTTL(%q): code %s", bad, policy.ErrorCode(err))
		}
		if msg := policy.ErrorMessage(err); !strings.Contains(msg, "1m to 1h") && !strings.Contains(msg, "not a Go duration") {
			t.Errorf("ParseClaimTTL(%q): %q does not say what is allowed", bad, msg)
		}
	}
}

// A claim is live until the instant it ends, whoever asks; HeldBy and
// HeldByOther judge the same live claim.
func TestLiveClaim(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	claim := func(who string, end time.Time) policy.Team {
		return policy.Team{Claim: &policy.Claim{Reviewer: who, ExpiresAt: end}}
	}
	for _, tt := range []struct {
		name          string
		team          policy.Team
		live          bool
		byAna, byBen  bool
		otherThanAnas string // who HeldByOther("ana") names
	}{
		{"nobody", policy.Team{}, false, false, false, ""},
		{"ana, ending later", claim("ana", now.Add(time.Minute)), true, true, false, ""},
		{"ben, ending a nanosecond later", claim("ben", now.Add(time.Nanosecond)), true, false, true, "ben"},
		{"ben, ending now", claim("ben", now), false, false, false, ""},
		{"ben, ended", claim("ben", now.Add(-time.Second)), false, false, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.team.LiveClaim(now); (got != nil) != tt.live || (got != nil && got != tt.team.Claim) {
				t.Errorf("LiveClaim = %+v, want live %v", got, tt.live)
			}
			if got := tt.team.HeldBy("ana", now); got != tt.byAna {
				t.Errorf("HeldBy(ana) = %v", got)
			}
			if got := tt.team.HeldBy("ben", now); got != tt.byBen {
				t.Errorf("HeldBy(ben) = %v", got)
			}
			other := tt.team.HeldByOther("ana", now)
			if (other == nil) != (tt.otherThanAnas == "") || (other != nil && other.Reviewer != tt.otherThanAnas) {
				t.Errorf("HeldByOther(ana) = %+v, want %q", other, tt.otherThanAnas)
			}
		})
	}
}

// The window's claims follow the work, not the cursor: one table of what
// it knows of an item and what it does with the claim.
func TestDecideClaimFollowsTheWork(t *testing.T) {
	type S = policy.ClaimSituation
	const (
		leave   = policy.ClaimLeave
		hold    = policy.ClaimHold
		release = policy.ClaimRelease
	)

	for _, c := range []struct {
		name string
		s    S
		want policy.ClaimMove
	}{
		{"opening the window or passing through a row", S{Offered: true, NeedsReviewer: true, Shown: true}, leave},
		{"resting on an item that needs her, however long", S{Offered: true, NeedsReviewer: true, Shown: true}, leave},
		{"staying on an item with nothing to do", S{Offered: true, Shown: true}, leave},
		{"writing a note on an item that needs her", S{Offered: true, NeedsReviewer: true, Shown: true, Writing: true}, hold},
		{"writing a note on an item with nothing to do", S{Offered: true, Shown: true, Writing: true}, leave},
		{"acting", S{Offered: true, NeedsReviewer: true, Shown: true, Acting: true}, hold},
		{"acting on an item awaiting the customer's file (an upload)", S{Offered: true, Shown: true, Acting: true}, hold},
		{"still on the item she holds", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByMe: true}, hold},
		{"moving on from an item she holds", S{Offered: true, NeedsReviewer: true, HeldByMe: true}, release},
		{"moving on with her action queued", S{Offered: true, HeldByMe: true, OpenAction: policy.ActionQueued}, hold},
		{"moving on with her action sending", S{Offered: true, HeldByMe: true, OpenAction: policy.ActionSending}, hold},
		{"moving on with her action unknown", S{Offered: true, NeedsReviewer: true, HeldByMe: true, OpenAction: policy.ActionUnknown}, hold},
		{"her action done, she moved on", S{Offered: true, HeldByMe: true, OpenAction: policy.ActionDone}, release},
		{"her action done, nothing left to do, she stays", S{Offered: true, Shown: true, HeldByMe: true}, release},
		{"her action refused, the item still needs her, she stays", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByMe: true, OpenAction: policy.ActionFailed}, hold},
		{"an open action she holds no claim for, passing through", S{Offered: true, NeedsReviewer: true, Shown: true, OpenAction: policy.ActionUnknown}, leave},
		{"another reviewer holds it, she stays", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByOther: true}, leave},
		{"another reviewer holds it, she acts", S{Offered: true, NeedsReviewer: true, Shown: true, Acting: true, HeldByOther: true}, leave},
		{"a 1.0 service", S{NeedsReviewer: true, Shown: true, Acting: true}, leave},
		{"an item she neither holds nor is on", S{Offered: true, NeedsReviewer: true}, leave},
		// Away: a claim held only because she looks at the item is let go;
		// one kept for her open action, or while she acts or writes, is not.
		{"away on the item she holds", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByMe: true, Away: true}, release},
		{"away on an item she rested on and does not hold", S{Offered: true, NeedsReviewer: true, Shown: true, Away: true}, leave},
		{"away on an item with nothing to do that she holds", S{Offered: true, Shown: true, HeldByMe: true, Away: true}, release},
		{"away with her action queued on the item she is on", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByMe: true, OpenAction: policy.ActionQueued, Away: true}, hold},
		{"away with her action sending, moved on", S{Offered: true, HeldByMe: true, OpenAction: policy.ActionSending, Away: true}, hold},
		{"away with her action unknown", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByMe: true, OpenAction: policy.ActionUnknown, Away: true}, hold},
		{"away while she acts", S{Offered: true, NeedsReviewer: true, Shown: true, Acting: true, Away: true}, hold},
		{"away while she writes a note", S{Offered: true, NeedsReviewer: true, Shown: true, Writing: true, HeldByMe: true, Away: true}, hold},
		{"away, her action refused, the item still needs her", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByMe: true, OpenAction: policy.ActionFailed, Away: true}, release},
		{"away, another reviewer holds it", S{Offered: true, NeedsReviewer: true, Shown: true, HeldByOther: true, Away: true}, leave},
		{"away, an item she neither holds nor is on", S{Offered: true, NeedsReviewer: true, Away: true}, leave},
		{"away, a 1.0 service", S{NeedsReviewer: true, Shown: true, HeldByMe: true, Away: true}, leave},
	} {
		if got := policy.DecideClaim(c.s); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseClaimAway(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want time.Duration
	}{{" 15m ", 15 * time.Minute}, {"1m", time.Minute}, {"60s", time.Minute}, {"8h", 8 * time.Hour}, {"90m", 90 * time.Minute}} {
		if d, err := policy.ParseClaimAway(ok.in); err != nil || d != ok.want {
			t.Errorf("ParseClaimAway(%q) = %v, %v; want %v", ok.in, d, err, ok.want)
		}
	}
	for _, bad := range []string{"", "0s", "59s", "-15m", "8h0m1s", "9h", "15", "lunch"} {
		d, err := policy.ParseClaimAway(bad)
		if policy.ErrorCode(err) != policy.CodeInvalidInput {
			t.Errorf("ParseClaimAway(%q) = %v, %v: it must be refused as invalid input", bad, d, err)
		}
	}
	if policy.DefaultClaimAway != 15*time.Minute {
		t.Errorf("the default away time is %v, want 15m", policy.DefaultClaimAway)
	}
}
