package policy

import (
	"fmt"
	"math"
	"time"
)

// Status is the state of an item. The first four are the contract's; Invalid
// is the console's own for an answer that broke the contract.
type Status string

const (
	StatusScored       Status = "scored"
	StatusError        Status = "error"
	StatusPending      Status = "pending"
	StatusAwaitingFile Status = "awaiting_file"
	StatusInvalid      Status = "invalid"
)

// Statuses lists every status the console shows.
func Statuses() []Status {
	return []Status{StatusScored, StatusError, StatusPending, StatusAwaitingFile, StatusInvalid}
}

// Recommendation is the service's advice on a scored item.
type Recommendation string

const (
	RecommendForward Recommendation = "forward"
	RecommendReview  Recommendation = "review"
	RecommendReject  Recommendation = "reject"
)

// Kind is what an item is a picture of.
type Kind string

const (
	KindIDDocument Kind = "id_document"
	KindSelfie     Kind = "selfie"
)

// RawItem is an item exactly as the service sent it, before any trust is
// placed in it. Numbers are float64 so that a malformed score is seen, not
// lost in decoding.
type RawItem struct {
	ID             string              `json:"id"`
	BatchID        string              `json:"batch_id"`
	Kind           string              `json:"kind"`
	FileName       string              `json:"file_name"`
	MediaType      string              `json:"media_type"`
	SizeBytes      int64               `json:"size_bytes"`
	Status         string              `json:"status"`
	RiskScore      *float64            `json:"risk_score"`
	Recommendation *string             `json:"recommendation"`
	Layers         map[string]*float64 `json:"layers"`
	ErrorCode      *string             `json:"error_code"`
	ErrorMessage   *string             `json:"error_message"`
	Attempt        int                 `json:"attempt"`
	UpdatedAt      time.Time           `json:"updated_at"`
	// Version 1.1 fields (absent from a 1.0 service): see Team1_1.
	Team1_1
	// Version 1.2 field (absent from a 1.0 or 1.1 service): decisions.go.
	Decide1_2
}

// Item is an item as the console holds it. Its fields obey the rule that
// defines the product: RiskScore, Recommendation and Layers are set only when
// Status is StatusScored; every other status carries none of them.
type Item struct {
	ID             string
	BatchID        string
	Kind           Kind
	FileName       string
	MediaType      string
	SizeBytes      int64
	Status         Status
	RiskScore      *int
	Recommendation Recommendation
	Layers         map[string]float64
	// ErrorCode is the console's code: a known item code, INTERNAL_ERROR for
	// an unknown one, or INVALID_RESPONSE for a broken answer.
	ErrorCode Code
	// ReportedCode is what the service reported, kept even when unknown.
	ReportedCode string
	ErrorMessage string
	// Problem says why an invalid item is invalid.
	Problem string
	// Raw is the text the service sent for an invalid item, kept as sent
	// (an answer the console could not read, or one that broke the
	// contract) so that a person can see what came; "" otherwise.
	Raw       string
	Attempt   int
	UpdatedAt time.Time
	// Version 1.1: revision, status_since, claim, notes (see Team).
	Team
}

// Checked reports whether the item carries a verdict of the service: only a
// valid scored item does.
func (it Item) Checked() bool {
	return it.Status == StatusScored && it.RiskScore != nil && it.Recommendation != ""
}

// Validate turns a RawItem into an Item. An item that breaks an invariant of
// the contract comes back with status invalid and code INVALID_RESPONSE, with
// every verdict field dropped; what the service reported is kept in
// ReportedCode and Problem. It never fails and never panics.
func Validate(raw RawItem) Item {
	it := Item{
		ID: raw.ID, BatchID: raw.BatchID, Kind: Kind(raw.Kind), FileName: raw.FileName,
		MediaType: raw.MediaType, SizeBytes: raw.SizeBytes, Attempt: raw.Attempt,
		UpdatedAt: raw.UpdatedAt.UTC(),
	}
	if raw.ErrorCode != nil {
		it.ReportedCode = *raw.ErrorCode
	}
	if raw.ErrorMessage != nil {
		it.ErrorMessage = *raw.ErrorMessage
	}
	it.Team = validateTeam(raw.Team1_1)
	it.Team.Decisions, it.Team.DecisionsOffered = validateDecisions(raw.Decisions)
	if problem := invariantProblem(raw); problem != "" {
		return MarkInvalid(it, problem)
	}
	if problem := teamProblem(raw.Team1_1); problem != "" {
		return MarkInvalid(it, problem)
	}
	if problem := decisionProblem(raw.Decisions); problem != "" {
		return MarkInvalid(it, problem)
	}
	it.Status = Status(raw.Status)
	switch it.Status {
	case StatusScored:
		score := int(*raw.RiskScore)
		it.RiskScore = &score
		it.Recommendation = Recommendation(*raw.Recommendation)
		if len(raw.Layers) > 0 {
			it.Layers = make(map[string]float64, len(raw.Layers))
			for k, v := range raw.Layers {
				it.Layers[k] = *v
			}
		}
		it.ReportedCode, it.ErrorMessage = "", ""
	case StatusError:
		it.ErrorCode = NormalizeItemCode(it.ReportedCode)
	}
	return it
}

// MarkInvalid returns it as an answer that broke the contract: status
// invalid, code INVALID_RESPONSE, no verdict, and the problem noted. What the
// service reported stays in ReportedCode. Its decisions go too: an answer
// that broke the contract is never shown as decided (contract 1.2).
func MarkInvalid(it Item, problem string) Item {
	it.Status, it.ErrorCode, it.Problem = StatusInvalid, CodeInvalidResponse, problem
	it.RiskScore, it.Recommendation, it.Layers = nil, "", nil
	it.Team.Decisions = nil
	return it
}

func invariantProblem(raw RawItem) string {
	if raw.ID == "" {
		return "item without an id"
	}
	if problem := IDProblem(raw.ID); problem != "" {
		return problem
	}
	hasVerdict := raw.RiskScore != nil || raw.Recommendation != nil || len(raw.Layers) > 0
	hasCode := raw.ErrorCode != nil && *raw.ErrorCode != ""
	switch Status(raw.Status) {
	case StatusScored:
		if raw.RiskScore == nil {
			return "scored without a risk score"
		}
		if s := *raw.RiskScore; math.IsNaN(s) || s != math.Trunc(s) || s < 0 || s > 100 {
			return fmt.Sprintf("risk score %v is not an integer in 0..100", s)
		}
		if raw.Recommendation == nil {
			return "scored without a recommendation"
		}
		switch Recommendation(*raw.Recommendation) {
		case RecommendForward, RecommendReview, RecommendReject:
		default:
			return fmt.Sprintf("unknown recommendation %q", *raw.Recommendation)
		}
		if hasCode {
			return "scored with an error code"
		}
		for name, v := range raw.Layers {
			if v == nil || math.IsNaN(*v) || *v < 0 || *v > 1 {
				return fmt.Sprintf("layer %q score outside 0..1", name)
			}
		}
	case StatusError:
		if !hasCode {
			return "error without an error code"
		}
		if hasVerdict {
			return "error with a score or recommendation"
		}
	case StatusPending, StatusAwaitingFile:
		if hasVerdict {
			return fmt.Sprintf("%s with a score or recommendation", raw.Status)
		}
		if hasCode {
			return fmt.Sprintf("%s with an error code", raw.Status)
		}
	default:
		return fmt.Sprintf("unknown status %q", raw.Status)
	}
	return ""
}

// MaxIDLength is the longest item id the console sends in a URL.
const MaxIDLength = 200

// IDProblem says why id cannot name an item in a URL, or "" when it can.
// An id is sent as one path segment (/v1/items/{id}/...): it must be
// 1 to MaxIDLength of the URL's unreserved characters (A-Z a-z 0-9 - . _ ~)
// and not "." or "..", which a URL resolves as the current or the parent
// path (POST /v1/items/./resubmissions is POST /v1/items/resubmissions).
// Nothing needs escaping in such an id, so no proxy or server can read it
// as two segments or as another path.
func IDProblem(id string) string {
	switch {
	case id == "":
		return "an empty id"
	case id == "." || id == "..":
		return fmt.Sprintf("id %q is a relative path, not a name", id)
	case len(id) > MaxIDLength:
		return fmt.Sprintf("an id of %d bytes (at most %d)", len(id), MaxIDLength)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return fmt.Sprintf("id %q holds %q, which is not safe in a URL path segment", id, c)
		}
	}
	return ""
}

// Batch is a batch of items as the service sent it, each item validated.
type Batch struct {
	ID          string
	CustomerRef string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Items       []Item
}

// MaxClockSkew is how far ahead of the console's clock a date from the
// service may be. A batch dated further ahead (a broken or hostile clock)
// must never become the sync position: every later "updated_since" would
// skip every real change until that date.
const MaxClockSkew = 5 * time.Minute

// AheadOf reports whether t is further ahead of now than MaxClockSkew.
func AheadOf(t, now time.Time) bool { return t.After(now.Add(MaxClockSkew)) }

// HoldBackFuture checks the dates of a batch as received at now. An item
// dated further ahead than MaxClockSkew broke the contract: it becomes
// invalid (no verdict), its problem names the date it carried, and it is
// dated now, so that the next real change of it replaces it. It reports
// whether the batch itself is dated ahead; such a batch is kept as sent
// but must not move the sync position (store.SyncStore.ApplyPage).
func HoldBackFuture(b *Batch, now time.Time) (ahead bool) {
	now = now.UTC()
	for i, it := range b.Items {
		if AheadOf(it.UpdatedAt, now) {
			it = MarkInvalid(it, fmt.Sprintf("updated_at %s is in the future (more than %v ahead of the console's clock)",
				it.UpdatedAt.Format(time.RFC3339), MaxClockSkew))
			it.UpdatedAt = now
			b.Items[i] = it
		}
	}
	return AheadOf(b.UpdatedAt, now)
}

// The version 1.1 part of an item: its revision, when it entered its
// status, who holds it and the notes on it. A 1.0 service sends none of
// this; every field then stays at its zero value and the console behaves as
// it did with 1.0. Claims are in claims.go, notes in notes.go.

// Team1_1 holds the version 1.1 fields of an item as the service sent them.
// Each is absent (nil) from a 1.0 service.
type Team1_1 struct {
	Revision    *int64     `json:"revision,omitempty"`
	StatusSince *time.Time `json:"status_since,omitempty"`
	Claim       *RawClaim  `json:"claim,omitempty"`
	Notes       []RawNote  `json:"notes,omitempty"`
	// Files is nil when the service sent no file_versions (1.0).
	Files []RawFileVersion `json:"file_versions,omitempty"`
}

// Team is what the console knows of an item's life among reviewers.
type Team struct {
	// Revision is the item's revision at the service; 0 when the service
	// does not report one (1.0), and then no If-Match is sent.
	Revision    int64
	StatusSince time.Time
	Claim       *Claim // nil: nobody holds it (an expired claim is no claim)
	Notes       []Note // oldest first
	// Files are the item's file versions, oldest first; FilesOffered says
	// whether the service listed them at all (a 1.0 service does not, and
	// offers no documents).
	Files        []FileVersion
	FilesOffered bool
	// Decisions are the item's decisions, oldest first, the current one
	// last (contract 1.2); DecisionsOffered says whether the service sent
	// the list at all (a 1.0 or 1.1 service does not, and takes none).
	Decisions        []Decision
	DecisionsOffered bool
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
	if raw.Files != nil {
		t.FilesOffered = true
		t.Files = []FileVersion{}
		for _, f := range raw.Files {
			// A version number that is not above the one before it names
			// no file the console could ask for: it is left out (the
			// item's verdict does not depend on it).
			if f.Version < 1 || (len(t.Files) > 0 && f.Version <= t.Files[len(t.Files)-1].Version) {
				continue
			}
			t.Files = append(t.Files, FileVersion{Version: f.Version, FileName: f.FileName, MediaType: f.MediaType,
				SizeBytes: f.SizeBytes, UploadedAt: f.UploadedAt.UTC()})
		}
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
