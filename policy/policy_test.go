package policy_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

func TestCodes(t *testing.T) {
	want := map[policy.Code]bool{
		"CLASSIFIER_TIMEOUT": true, "CLASSIFIER_UNAVAILABLE": true, "FORENSICS_UNREACHABLE": true,
		"SOURCE_UNREACHABLE": true, "INTERNAL_ERROR": true,
		"DECODE_FAILED": false, "PAYLOAD_TOO_LARGE": false, "UNSUPPORTED_MEDIA_TYPE": false,
	}
	if got := len(policy.ItemCodes()); got != len(want) {
		t.Fatalf("ItemCodes has %d codes, want %d", got, len(want))
	}
	for _, c := range policy.ItemCodes() {
		info := policy.Info(c)
		if info.Retryable != want[c] || policy.Retryable(c) != want[c] {
			t.Errorf("%s retryable = %v, want %v", c, info.Retryable, want[c])
		}
		if info.Explanation == "" {
			t.Errorf("%s has no explanation", c)
		}
		if want[c] && info.NextActor != policy.ActorReviewer || !want[c] && info.NextActor != policy.ActorCustomer {
			t.Errorf("%s next actor %s", c, info.NextActor)
		}
		if !want[c] && info.CustomerMessage == "" {
			t.Errorf("%s has no customer message", c)
		}
	}
	if policy.Retryable(policy.CodeInvalidResponse) || policy.Retryable("QUANTUM_FLUX") || policy.Retryable("") {
		t.Error("only the contract's retryable codes are retryable")
	}
	if got := policy.NormalizeItemCode("QUANTUM_FLUX"); got != policy.CodeInternal {
		t.Errorf("unknown code normalized to %s", got)
	}
	if got := policy.Info("QUANTUM_FLUX"); got.Code != policy.CodeInternal {
		t.Errorf("Info of unknown code = %s", got.Code)
	}
}

func TestErrorCode(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", policy.Errorf(policy.CodeActionOpen, "busy"))
	if got := policy.ErrorCode(err); got != policy.CodeActionOpen {
		t.Errorf("ErrorCode = %s", got)
	}
	if got := policy.ErrorCode(errors.New("x")); got != policy.CodeInternal {
		t.Errorf("ErrorCode(plain) = %s", got)
	}
	if policy.ErrorCode(nil) != "" {
		t.Error("ErrorCode(nil) not empty")
	}
	if got := policy.ErrorMessage(err); got != "busy" {
		t.Errorf("ErrorMessage = %q", got)
	}
}

func f(v float64) *float64 { return &v }
func s(v string) *string   { return &v }

func TestValidate(t *testing.T) {
	base := func(mod func(*policy.RawItem)) policy.RawItem {
		r := policy.RawItem{ID: "itm_1", BatchID: "bat_1", Kind: "selfie", Status: "scored",
			RiskScore: f(73), Recommendation: s("review"), Layers: map[string]*float64{"ela": f(0.4)}}
		mod(&r)
		return r
	}
	tests := []struct {
		name     string
		raw      policy.RawItem
		status   policy.Status
		code     policy.Code
		reported string
	}{
		{"scored", base(func(r *policy.RawItem) {}), policy.StatusScored, "", ""},
		{"score 0", base(func(r *policy.RawItem) { r.RiskScore = f(0) }), policy.StatusScored, "", ""},
		{"score 100", base(func(r *policy.RawItem) { r.RiskScore = f(100) }), policy.StatusScored, "", ""},
		{"error", base(func(r *policy.RawItem) {
			r.Status, r.RiskScore, r.Recommendation, r.Layers, r.ErrorCode = "error", nil, nil, nil, s("DECODE_FAILED")
		}), policy.StatusError, policy.CodeDecodeFailed, "DECODE_FAILED"},
		{"unknown code", base(func(r *policy.RawItem) {
			r.Status, r.RiskScore, r.Recommendation, r.Layers, r.ErrorCode = "error", nil, nil, nil, s("QUANTUM_FLUX")
		}), policy.StatusError, policy.CodeInternal, "QUANTUM_FLUX"},
		{"pending", base(func(r *policy.RawItem) { r.Status, r.RiskScore, r.Recommendation, r.Layers = "pending", nil, nil, nil }), policy.StatusPending, "", ""},
		{"awaiting", base(func(r *policy.RawItem) {
			r.Status, r.RiskScore, r.Recommendation, r.Layers = "awaiting_file", nil, nil, nil
		}), policy.StatusAwaitingFile, "", ""},
		{"error with score", base(func(r *policy.RawItem) { r.Status, r.ErrorCode = "error", s("CLASSIFIER_TIMEOUT") }), policy.StatusInvalid, policy.CodeInvalidResponse, "CLASSIFIER_TIMEOUT"},
		{"error without code", base(func(r *policy.RawItem) { r.Status, r.RiskScore, r.Recommendation, r.Layers = "error", nil, nil, nil }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"scored without score", base(func(r *policy.RawItem) { r.RiskScore = nil }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"scored without recommendation", base(func(r *policy.RawItem) { r.Recommendation = nil }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"score 101", base(func(r *policy.RawItem) { r.RiskScore = f(101) }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"score -1", base(func(r *policy.RawItem) { r.RiskScore = f(-1) }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"score 7.5", base(func(r *policy.RawItem) { r.RiskScore = f(7.5) }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"unknown recommendation", base(func(r *policy.RawItem) { r.Recommendation = s("approve") }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"unknown status", base(func(r *policy.RawItem) { r.Status = "done" }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"scored with code", base(func(r *policy.RawItem) { r.ErrorCode = s("INTERNAL_ERROR") }), policy.StatusInvalid, policy.CodeInvalidResponse, "INTERNAL_ERROR"},
		{"layer out of range", base(func(r *policy.RawItem) { r.Layers["ela"] = f(1.5) }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"pending with score", base(func(r *policy.RawItem) { r.Status = "pending" }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
		{"no id", base(func(r *policy.RawItem) { r.ID = "" }), policy.StatusInvalid, policy.CodeInvalidResponse, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := policy.Validate(tt.raw)
			if it.Status != tt.status || it.ErrorCode != tt.code || it.ReportedCode != tt.reported {
				t.Fatalf("got %s/%s/%q, want %s/%s/%q", it.Status, it.ErrorCode, it.ReportedCode, tt.status, tt.code, tt.reported)
			}
			scored := it.Status == policy.StatusScored
			if it.Checked() != scored || (it.RiskScore != nil) != scored || (it.Recommendation != "") != scored || (!scored && it.Layers != nil) {
				t.Fatalf("verdict fields on a %s item: score=%v rec=%q layers=%v", it.Status, it.RiskScore, it.Recommendation, it.Layers)
			}
			if it.Status == policy.StatusInvalid && it.Problem == "" {
				t.Fatal("invalid item without a problem")
			}
		})
	}
}

func TestNextActionAndPermissions(t *testing.T) {
	now := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	item := func(status policy.Status, code policy.Code) policy.Item {
		return policy.Item{ID: "i", Status: status, ErrorCode: code}
	}
	later := now.Add(time.Minute)
	tests := []struct {
		name     string
		sit      policy.Situation
		next     policy.NextKind
		resubmit policy.Code // "" allowed
		request  policy.Code
		replace  policy.Code
	}{
		{"retryable", policy.Situation{Item: item(policy.StatusError, policy.CodeClassifierTimeout), Now: now}, policy.NextResubmit, "", policy.CodeConflict, policy.CodeConflict},
		{"not retryable", policy.Situation{Item: item(policy.StatusError, policy.CodeDecodeFailed), Now: now}, policy.NextRequestFile, policy.CodeNotRetryable, "", ""},
		{"rate limited", policy.Situation{Item: item(policy.StatusError, policy.CodeInternal), Now: now, RateLimitedUntil: later}, policy.NextWait, policy.CodeRateLimitWait, policy.CodeConflict, policy.CodeConflict},
		{"wait over", policy.Situation{Item: item(policy.StatusError, policy.CodeInternal), Now: later, RateLimitedUntil: later}, policy.NextResubmit, "", policy.CodeConflict, policy.CodeConflict},
		{"unknown action", policy.Situation{Item: item(policy.StatusError, policy.CodeInternal), Now: now, OpenAction: policy.ActionUnknown}, policy.NextReconcile, policy.CodeActionOpen, policy.CodeActionOpen, policy.CodeActionOpen},
		{"queued action", policy.Situation{Item: item(policy.StatusError, policy.CodePayloadTooLarge), Now: now, OpenAction: policy.ActionQueued}, policy.NextNone, policy.CodeActionOpen, policy.CodeActionOpen, policy.CodeActionOpen},
		{"done action does not block", policy.Situation{Item: item(policy.StatusError, policy.CodeSourceUnreachable), Now: now, OpenAction: policy.ActionDone}, policy.NextResubmit, "", policy.CodeConflict, policy.CodeConflict},
		{"scored", policy.Situation{Item: item(policy.StatusScored, ""), Now: now}, policy.NextNone, policy.CodeNotRetryable, policy.CodeConflict, policy.CodeConflict},
		{"invalid", policy.Situation{Item: item(policy.StatusInvalid, policy.CodeInvalidResponse), Now: now}, policy.NextNone, policy.CodeNotRetryable, policy.CodeConflict, policy.CodeConflict},
		{"awaiting file", policy.Situation{Item: item(policy.StatusAwaitingFile, ""), Now: now}, policy.NextNone, policy.CodeNotRetryable, policy.CodeConflict, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := policy.NextAction(tt.sit); got.Kind != tt.next {
				t.Errorf("next = %s, want %s", got.Kind, tt.next)
			}
			for _, c := range []struct {
				what string
				err  error
				want policy.Code
			}{{"resubmit", policy.CanResubmit(tt.sit), tt.resubmit}, {"request", policy.CanRequestFile(tt.sit), tt.request}, {"replace", policy.CanReplace(tt.sit), tt.replace}} {
				if got := policy.ErrorCode(c.err); got != c.want {
					t.Errorf("%s: %v, want %q", c.what, c.err, c.want)
				}
			}
		})
	}
	err := policy.CanResubmit(policy.Situation{Item: item(policy.StatusError, policy.CodeDecodeFailed), Now: now})
	if !strings.Contains(err.Error(), "DECODE_FAILED") || !strings.Contains(err.Error(), "request a new file") {
		t.Errorf("refusal does not name the code and the way out: %v", err)
	}
}

func TestBudgetAttempt(t *testing.T) {
	now := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	def := policy.DefaultBudget()
	tests := []struct {
		name             string
		b                policy.Budget
		deadline         time.Duration // from now
		ok               bool
		request, connect time.Duration
	}{
		{"plenty: capped", def, time.Minute, true, 30 * time.Second, 5 * time.Second},
		{"deadline below cap", def, 10 * time.Second, true, 10*time.Second - 250*ms, 5 * time.Second},
		{"connect follows request", def, 3 * time.Second, true, 3*time.Second - 250*ms, 3*time.Second - 250*ms},
		{"exactly the reserve", def, 250 * ms, false, 0, 0},
		{"less than the reserve", def, 100 * ms, false, 0, 0},
		{"past deadline", def, -time.Second, false, 0, 0},
		{"one ms left", def, 251 * ms, true, ms, ms},
		{"no reserve", policy.Budget{RequestCap: time.Second, ConnectCap: 100 * ms}, 500 * ms, true, 500 * ms, 100 * ms},
		{"big reserve", policy.Budget{RequestCap: time.Second, ConnectCap: time.Second, Reserve: 2 * time.Second}, 1500 * ms, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := tt.b.Attempt(now, now.Add(tt.deadline))
			if ok != tt.ok || a.Request != tt.request || a.Connect != tt.connect {
				t.Fatalf("got %v %+v, want %v request=%v connect=%v", ok, a, tt.ok, tt.request, tt.connect)
			}
		})
	}
	if def.RequestCap <= policy.ServiceClassifierBudget {
		t.Fatal("the request cap must sit above the service's classifier budget")
	}
	if got := def.Deadline(now).Sub(now); got != def.RequestCap+def.Reserve {
		t.Fatalf("Deadline = %v", got)
	}
}

func TestCheckFile(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		mt   string
	}{
		{"jpeg", []byte("\xFF\xD8\xFF\xE0rest"), "image/jpeg"},
		{"png", []byte("\x89PNG\r\n\x1a\nrest"), "image/png"},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp"},
		{"pdf", []byte("%PDF-1.7\n"), "application/pdf"},
		{"gif named jpg", []byte("GIF89a...."), ""},
		{"empty", nil, ""},
		{"too large", append([]byte("%PDF-"), make([]byte, policy.MaxFileSize)...), ""},
	}
	for _, tt := range tests {
		mt, err := policy.CheckFile(tt.data)
		if mt != tt.mt || (tt.mt == "") != (policy.ErrorCode(err) == policy.CodeInvalidFile) {
			t.Errorf("%s: %q %v", tt.name, mt, err)
		}
	}
}

func TestIDProblem(t *testing.T) {
	for _, id := range []string{"itm_01J9", "a", "A-Z.a_z~0", strings.Repeat("x", policy.MaxIDLength)} {
		if p := policy.IDProblem(id); p != "" {
			t.Errorf("%q: %s", id, p)
		}
	}
	for _, id := range []string{"", ".", "..", "a/b", "a%2Fb", "a b", "a?b", "a#b", "a\\b", "é", "a\x00", strings.Repeat("x", policy.MaxIDLength+1)} {
		if policy.IDProblem(id) == "" {
			t.Errorf("%q passes as a safe path segment", id)
		}
	}
	// Validate makes an item with such an id invalid, whatever it says.
	s, r := 10.0, "forward"
	it := policy.Validate(policy.RawItem{ID: "..", BatchID: "b", Status: "scored", RiskScore: &s, Recommendation: &r})
	if it.Status != policy.StatusInvalid || it.Checked() || it.ID != ".." {
		t.Fatalf("%+v", it)
	}
}

// Invisible characters a customer would not see are refused in a customer
// message; the joiners that scripts and emoji need stay.
func TestACustomerMessageRefusesInvisibleCharacters(t *testing.T) {
	for _, r := range []rune{'\u2028', '\u2029', '\u200b', '\ufeff', '\u2060', '\U000e0041'} {
		if _, err := policy.CheckCustomerMessage("Please send" + string(r) + " a new scan."); err == nil {
			t.Errorf("U+%04X accepted", r)
		}
	}
	for _, ok := range []string{"می\u200cخواهم", "👩\u200d💻 new scan please"} {
		if _, err := policy.CheckCustomerMessage(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}
