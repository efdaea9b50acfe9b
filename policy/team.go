package policy

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Working as a team (contract version 1.1): who holds an item, which
// revision of it a reviewer saw, and the notes reviewers leave on it. A 1.0
// service sends none of this; every field then stays at its zero value and
// the console behaves as it did with 1.0.

// Codes of version 1.1, and the console's own for a feature a 1.0 service
// does not have.
const (
	CodeItemChanged Code = "ITEM_CHANGED" // 412: the item is not at the revision the reviewer saw
	CodeClaimed     Code = "CLAIMED"      // 409: another reviewer holds the item
	CodeNotOffered  Code = "NOT_OFFERED"  // the service (a 1.0 one) does not offer this
)

// Claim numbers: the contract allows 60 s to 3600 s; the console asks for
// 15 minutes unless configured otherwise.
const (
	DefaultClaimTTL = 15 * time.Minute
	MinClaimTTL     = time.Minute
	MaxClaimTTL     = time.Hour
	MaxNoteRunes    = 4000
)

// RawClaim is a claim as the service sent it.
type RawClaim struct {
	Reviewer  string    `json:"reviewer"`
	ExpiresAt time.Time `json:"expires_at"`
}

// RawNote is a note as the service sent it.
type RawNote struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
}

// Team1_1 holds the version 1.1 fields of an item as the service sent them.
// Each is absent (nil) from a 1.0 service.
type Team1_1 struct {
	Revision    *int64     `json:"revision,omitempty"`
	StatusSince *time.Time `json:"status_since,omitempty"`
	Claim       *RawClaim  `json:"claim,omitempty"`
	Notes       []RawNote  `json:"notes,omitempty"`
}

// Claim is who holds an item, until when.
type Claim struct {
	Reviewer  string
	ExpiresAt time.Time
}

// Note is a reviewer's note on an item, as the service keeps it.
type Note struct {
	ID        string
	Author    string
	Text      string
	CreatedAt time.Time
}

// Team is what the console knows of an item's life among reviewers.
type Team struct {
	// Revision is the item's revision at the service; 0 when the service
	// does not report one (1.0), and then no If-Match is sent.
	Revision    int64
	StatusSince time.Time
	Claim       *Claim // nil: nobody holds it (an expired claim is no claim)
	Notes       []Note // oldest first
}

// HeldByOther returns the claim when someone other than me holds the item
// at now, or nil. An expired claim is no claim.
func (t Team) HeldByOther(me string, now time.Time) *Claim {
	if t.Claim == nil || t.Claim.Reviewer == me || !now.Before(t.Claim.ExpiresAt) {
		return nil
	}
	return t.Claim
}

// HeldBy reports whether reviewer holds an unexpired claim on the item.
func (t Team) HeldBy(reviewer string, now time.Time) bool {
	return t.Claim != nil && t.Claim.Reviewer == reviewer && now.Before(t.Claim.ExpiresAt)
}

func validateTeam(raw Team1_1) Team {
	var t Team
	if raw.Revision != nil {
		t.Revision = *raw.Revision
	}
	if raw.StatusSince != nil {
		t.StatusSince = raw.StatusSince.UTC()
	}
	if raw.Claim != nil && raw.Claim.Reviewer != "" && !raw.Claim.ExpiresAt.IsZero() {
		t.Claim = &Claim{Reviewer: raw.Claim.Reviewer, ExpiresAt: raw.Claim.ExpiresAt.UTC()}
	}
	for _, n := range raw.Notes {
		t.Notes = append(t.Notes, Note{ID: n.ID, Author: n.Author, Text: n.Text, CreatedAt: n.CreatedAt.UTC()})
	}
	return t
}

// teamProblem says how the 1.1 fields break the contract, or "".
func teamProblem(raw Team1_1) string {
	if raw.Revision != nil && *raw.Revision < 1 {
		return fmt.Sprintf("revision %d is not positive", *raw.Revision)
	}
	if c := raw.Claim; c != nil && (c.Reviewer == "" || c.ExpiresAt.IsZero()) {
		return "a claim without a reviewer or an expiry"
	}
	for _, n := range raw.Notes {
		if n.ID == "" || n.Author == "" {
			return "a note without an id or an author"
		}
	}
	return ""
}

// CheckNoteText returns a note's text as it will be kept (trimmed), or an
// error saying why it cannot be a note: the contract's 1 to 4,000
// characters after trimming, no control characters but newline.
func CheckNoteText(text string) (string, error) {
	t := strings.TrimSpace(text)
	if !utf8.ValidString(t) {
		return "", Errorf(CodeValidationFailed, "a note must be UTF-8 text")
	}
	n := utf8.RuneCountInString(t)
	if n == 0 {
		return "", Errorf(CodeValidationFailed, "a note cannot be empty")
	}
	if n > MaxNoteRunes {
		return "", Errorf(CodeValidationFailed, "a note holds at most %d characters; this one has %d", MaxNoteRunes, n)
	}
	for _, r := range t {
		if r != '\n' && unicode.IsControl(r) {
			return "", Errorf(CodeValidationFailed, "a note cannot hold control characters (only newlines); found %U", r)
		}
	}
	return t, nil
}

// CheckClaimTTL returns nil when d is a claim length the contract allows
// (60 s to 3600 s, in whole seconds). Zero is no exception: it is refused
// like any other length outside the range, never taken for the default.
func CheckClaimTTL(d time.Duration) error {
	if d < MinClaimTTL || d > MaxClaimTTL || d%time.Second != 0 {
		return Errorf(CodeInvalidInput, "a claim lasts from 1m to 1h in whole seconds; %v is not allowed", d)
	}
	return nil
}

// Unseen lists what a reviewer decides on that differs between the item
// she saw (the cache's) and the item as the service holds it now: its
// status, its attempt, its result (score, recommendation, code), its file,
// and notes by anyone else that she has not seen. Empty: nothing she
// decides on changed, so an action she queued on what she saw may go out
// at the service's current revision. A claim is not among them (contract
// 1.1: a claim leaves the revision alone), nor a note of her own.
//
// seenNote reports whether the cache holds a note, by the service's id.
func Unseen(saw, now Item, me string, seenNote func(id string) bool) []string {
	var out []string
	if saw.Status != now.Status {
		out = append(out, "status")
	}
	if saw.Attempt != now.Attempt {
		out = append(out, "attempt")
	}
	if !sameScore(saw.RiskScore, now.RiskScore) || saw.Recommendation != now.Recommendation ||
		saw.ErrorCode != now.ErrorCode || saw.ReportedCode != now.ReportedCode {
		out = append(out, "result")
	}
	if saw.FileName != now.FileName || saw.MediaType != now.MediaType || saw.SizeBytes != now.SizeBytes {
		out = append(out, "file")
	}
	for _, n := range now.Notes {
		if n.Author != me && !seenNote(n.ID) {
			out = append(out, "notes")
			break
		}
	}
	return out
}

func sameScore(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ParseClaimTTL reads a claim length as a person wrote it (Go syntax: 15m,
// 90s) and checks it with CheckClaimTTL. REVIEWER_CLAIM_TTL and the claim
// command's --ttl both go through it, so they refuse the same values.
func ParseClaimTTL(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, Errorf(CodeInvalidInput, "%q is not a Go duration such as 15m", v)
	}
	if err := CheckClaimTTL(d); err != nil {
		return 0, err
	}
	return d, nil
}

// UntilText says when a claim ends, for a person in the reviewer's time
// zone (time.Local): the time alone when it is on the same day as now
// ("23:59"), else with its date ("Dec 2 09:17"), and with its year when
// that is not now's year ("Dec 31 9999 23:59"). A claim that ends
// tomorrow, or in the year 9999, must never read as ending tonight.
func UntilText(end, now time.Time) string {
	end, now = end.Local(), now.Local()
	ey, em, ed := end.Date()
	ny, nm, nd := now.Date()
	switch {
	case ey == ny && em == nm && ed == nd:
		return end.Format("15:04")
	case ey == ny:
		return end.Format("Jan 2 15:04")
	}
	return end.Format("Jan 2 2006 15:04")
}
