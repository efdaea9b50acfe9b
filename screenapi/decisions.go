package screenapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Version 1.2 of the contract: a reviewer's decision on an item, with four
// eyes. With Options.APIVersion "1.2" the service lists its reason codes
// (GET /v1/reason-codes), sends each item's decisions, and takes decisions
// and confirmations; a 1.0 or 1.1 service leaves decisions out and answers
// 404 to these endpoints. It judges by its own reading of the contract
// (contract.go: decisionComment, fourEyes), never by the console's policy.

// Version12 is the contract version with decisions.
const Version12 = "1.2"

// Endpoint names of version 1.2, as counted in Arrivals and named by faults.
const (
	EPReasonCodes  = "reason_codes" // GET /v1/reason-codes
	EPDecision     = "decision"     // POST /v1/items/{id}/decisions
	EPConfirmation = "confirmation" // POST /v1/items/{id}/decisions/{decision_id}/confirmation
)

// ReasonCode is one row of the service's list of reason codes.
type ReasonCode struct {
	Code     string   `json:"code"`
	Label    string   `json:"label"`
	Outcomes []string `json:"outcomes"`
}

// DemoReasonCodes is the reference service's list: what a KYC team gives
// as the reason of a decision, each with the outcomes it goes with.
func DemoReasonCodes() []ReasonCode {
	return []ReasonCode{
		{"DOC_GENUINE", "The document passes the reviewer's own checks", []string{"clear"}},
		{"BENIGN_ARTEFACT", "The score comes from a benign cause (scan, glare, compression)", []string{"clear"}},
		{"VERIFIED_ELSEWHERE", "Verified against a second, independent source", []string{"clear"}},
		{"DOC_TAMPERED", "Signs of editing or tampering", []string{"reject", "escalate"}},
		{"PHOTO_MISMATCH", "The photo does not match the holder or the selfie", []string{"reject", "escalate"}},
		{"AI_GENERATED", "A synthetic or AI-generated image", []string{"reject", "escalate"}},
		{"MRZ_MISMATCH", "The machine-readable zone does not match the printed data", []string{"reject", "escalate"}},
		{"EXPIRED_DOCUMENT", "The document has expired", []string{"reject"}},
		{"UNREADABLE_DOCUMENT", "The document cannot be read", []string{"reject"}},
		{"NO_USABLE_FILE", "The customer never sent a usable file", []string{"reject"}},
		{"SANCTIONS_MATCH", "A possible sanctions or PEP match", []string{"escalate"}},
		{"SENIOR_JUDGEMENT", "Needs a senior reviewer's judgement", []string{"escalate"}},
	}
}

// decision is a decision as the service keeps and sends it, in the
// contract's names.
type decision struct {
	ID           string        `json:"id"`
	Outcome      string        `json:"outcome"`
	ReasonCode   string        `json:"reason_code"`
	Comment      string        `json:"comment"`
	By           string        `json:"by"`
	At           time.Time     `json:"at"`
	State        string        `json:"state"`
	Confirmation *confirmation `json:"confirmation"`
}

type confirmation struct {
	By      string    `json:"by"`
	At      time.Time `json:"at"`
	Agree   bool      `json:"agree"`
	Comment string    `json:"comment"`
}

// The states of a decision, as the contract names them.
const (
	stateFinal      = "final"
	stateAwaiting   = "awaiting_confirmation"
	stateReturned   = "returned"
	stateSuperseded = "superseded"
)

func (s *Server) v12() bool { return s.opts.APIVersion == Version12 }

// only12 answers 404 as a 1.0 or 1.1 service does to an endpoint it does
// not have.
func (s *Server) only12(h handler) handler {
	return func(r *http.Request) answer {
		if !s.v12() {
			return errAnswer(404, policy.CodeNotFound, "no such endpoint")
		}
		return h(r)
	}
}

func (s *Server) decisionRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/reason-codes", s.wrap(EPReasonCodes, s.only12(s.reasonCodes)))
	mux.HandleFunc("POST /v1/items/{id}/decisions", s.wrap(EPDecision, s.only12(s.idempotent(EPDecision, s.decide))))
	mux.HandleFunc("POST /v1/items/{id}/decisions/{decision_id}/confirmation",
		s.wrap(EPConfirmation, s.only12(s.idempotent(EPConfirmation, s.confirm))))
}

// SetReasonCodes replaces the service's list of reason codes: "the list
// belongs to the service and may change".
func (s *Server) SetReasonCodes(list []ReasonCode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reasons = slices.Clone(list)
}

func (s *Server) reasonCodes(r *http.Request) answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return jsonAnswer(200, map[string]any{"reason_codes": s.reasons})
}

// reasonAllows reports whether code is in the list for outcome (s.mu held).
func (s *Server) reasonAllows(code, outcome string) bool {
	for _, rc := range s.reasons {
		if rc.Code == code {
			return slices.Contains(rc.Outcomes, outcome)
		}
	}
	return false
}

// cutBody is the answer to a body that ended before its end: nothing was
// decided and the key is not kept.
func cutBody() answer {
	a := errAnswer(400, policy.CodeValidationFailed, "the request body ended before its end")
	a.forget = true
	return a
}

func (s *Server) decide(r *http.Request) answer {
	var body struct {
		Outcome    string `json:"outcome"`
		ReasonCode string `json:"reason_code"`
		Comment    string `json:"comment"`
	}
	err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&body)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return cutBody()
	}
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, `a body {"outcome": "clear|reject|escalate", "reason_code": "...", "comment": "..."} is required`)
	}
	if !slices.Contains(outcomes, body.Outcome) {
		return errAnswer(422, policy.CodeValidationFailed, fmt.Sprintf("outcome %q: want clear, reject or escalate", body.Outcome))
	}
	comment, err := decisionComment(body.Outcome, body.Comment)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, err.Error())
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.items[id]
	switch {
	case body.Outcome == "clear" && it.Status != "scored":
		return s.refusal(422, policy.CodeNotChecked, "an item that could not be checked can never be cleared (it is "+it.Status+")", it)
	case body.Outcome != "clear" && !slices.Contains([]string{"scored", "error", "awaiting_file"}, it.Status):
		return s.refusal(422, policy.CodeNotDecidable, "the item cannot be decided while it is "+it.Status, it)
	}
	if !s.reasonAllows(body.ReasonCode, body.Outcome) {
		return errAnswer(422, policy.CodeValidationFailed, fmt.Sprintf("reason_code %q is not in the list for %s", body.ReasonCode, body.Outcome))
	}
	rec := ""
	if it.Recommendation != nil {
		rec = *it.Recommendation
	}
	t := s.team[id]
	if n := len(t.decisions); n > 0 {
		t.decisions[n-1].State = stateSuperseded
	}
	s.seq++
	d := decision{ID: fmt.Sprintf("dec_%06d", s.seq), Outcome: body.Outcome, ReasonCode: body.ReasonCode, Comment: comment,
		By: caller(r).Name, At: s.opts.Now().UTC().Truncate(time.Millisecond), State: stateFinal}
	if fourEyes(body.Outcome, rec) {
		d.State = stateAwaiting
	}
	t.decisions = append(t.decisions, d)
	s.touch(it)
	return jsonAnswer(201, s.wire(it))
}

func (s *Server) confirm(r *http.Request) answer {
	var body struct {
		Agree   *bool  `json:"agree"`
		Comment string `json:"comment"`
	}
	err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&body)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return cutBody()
	}
	if err != nil || body.Agree == nil {
		return errAnswer(422, policy.CodeValidationFailed, `a body {"agree": true|false, "comment": "..."} is required`)
	}
	comment, err := confirmationComment(*body.Agree, body.Comment)
	if err != nil {
		return errAnswer(422, policy.CodeValidationFailed, err.Error())
	}
	id, decID := r.PathValue("id"), r.PathValue("decision_id")
	s.mu.Lock()
	defer s.mu.Unlock()
	it, t := s.items[id], s.team[id]
	n := len(t.decisions)
	if n == 0 || t.decisions[n-1].ID != decID || t.decisions[n-1].State != stateAwaiting {
		return s.refusal(422, policy.CodeNotAwaitingConfirmation, "only the item's current decision, while it awaits confirmation, can be confirmed", it)
	}
	d := &t.decisions[n-1]
	who := caller(r).Name
	if d.By == who {
		return errAnswer(422, policy.CodeSameReviewer, "a decision is confirmed by a second reviewer, never by its author")
	}
	d.Confirmation = &confirmation{By: who, At: s.opts.Now().UTC().Truncate(time.Millisecond), Agree: *body.Agree, Comment: comment}
	d.State = stateFinal
	if !*body.Agree {
		d.State = stateReturned
	}
	s.touch(it)
	return jsonAnswer(200, s.wire(it))
}

// Decisions lists an item's decisions at the service, oldest first, as
// outcome/state/by triples for tests.
func (s *Server) Decisions(itemID string) []DecisionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []DecisionInfo
	if t := s.team[itemID]; t != nil {
		for _, d := range t.decisions {
			di := DecisionInfo{ID: d.ID, Outcome: d.Outcome, ReasonCode: d.ReasonCode, By: d.By, State: d.State}
			if d.Confirmation != nil {
				di.ConfirmedBy, di.Agree = d.Confirmation.By, d.Confirmation.Agree
			}
			out = append(out, di)
		}
	}
	return out
}

// DecisionInfo is what a test reads of a decision at the service.
type DecisionInfo struct {
	ID, Outcome, ReasonCode, By, State string
	ConfirmedBy                        string
	Agree                              bool
}

// seedDecidable gives the batch an item a reviewer decides on (1.2 only): a
// scored item recommended review or reject, made of the batch's first
// sound item when none is (or added, when the batch has none); and, in every fourth batch, that item's reject
// by ben awaiting a second reviewer. It draws nothing from the seed's
// random source, so the rest of the data is as on 1.1.
func (s *Server) seedDecidable(bt *batch, b int) {
	var pick *policy.RawItem
	for _, id := range bt.ItemIDs {
		it := s.items[id]
		if soundScored(it) && *it.Recommendation != "forward" {
			pick = it
			break
		}
	}
	if pick == nil {
		for _, id := range bt.ItemIDs {
			if it := s.items[id]; soundScored(it) || (it.Status == "error" && it.RiskScore == nil) || it.Status == "awaiting_file" {
				setScored(it, 50+(b*7)%50) // 50..99: review or reject
				s.team[id].status = it.Status
				pick = it
				break
			}
		}
	}
	if pick == nil && len(bt.ItemIDs) < 10 {
		// Only broken or pending items: one more, a scored passport.
		it := &policy.RawItem{ID: fmt.Sprintf("itm_%04d_%02d", b+1, len(bt.ItemIDs)+1), BatchID: bt.ID, Kind: string(policy.KindIDDocument),
			FileName: "passport-front.jpg", MediaType: "image/jpeg", SizeBytes: 240_000, Attempt: 1, UpdatedAt: bt.UpdatedAt}
		setScored(it, 50+(b*7)%50)
		s.items[it.ID] = it
		s.seedTeam(it, bt.CreatedAt)
		bt.ItemIDs = append(bt.ItemIDs, it.ID)
		pick = it
	}
	if pick == nil || b%4 != 3 {
		return
	}
	s.seq++
	s.team[pick.ID].decisions = []decision{{ID: fmt.Sprintf("dec_%06d", s.seq), Outcome: "reject", ReasonCode: "DOC_TAMPERED",
		Comment: "Font of the date of birth differs from the rest of the page", By: "ben", At: pick.UpdatedAt, State: stateAwaiting}}
	s.team[pick.ID].revision++
}

func soundScored(it *policy.RawItem) bool {
	return it.Status == "scored" && it.RiskScore != nil && *it.RiskScore >= 0 && *it.RiskScore <= 100 && it.Recommendation != nil
}
