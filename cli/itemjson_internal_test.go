package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// hostileStrings are what a service, a customer or a file name could put
// in a string field.
var hostileStrings = []string{
	"", "plain", `"quoted"`, `back\slash`, "\\\"", "<script>alert(1)</script>", "a&b", "<>&'",
	"\x00\x01\x02\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x1b\x1f", "\x7f", " ", "tab\there", "line\nbreak\r\n",
	"\u2028\u2029", "x\u2028y\u2029z", "\u2027\u202a", "ключ", "日本語", "emoji 😀", "\uFEFF bom", "\u00a0nbsp",
	"\xff", "\xfe\xff", "a\x80b", "\xc3", "\xc3\x28", "\xe2\x80", "\xe2\x80\xa8\xe2\x80", "\xf0\x9f\x98", "\xed\xa0\x80 surrogate",
	"\xf4\x90\x80\x80 beyond U+10FFFF", "\xc0\xaf overlong", strings.Repeat("é<", 300), "\U0010FFFF", "\ufffd",
}

// encodingJSONString is how streamItemsJSON's encoder (json.Encoder, HTML
// escaping on) writes s.
func encodingJSONString(t testing.TB, s string) string {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	for _, s := range hostileStrings {
		if got, want := string(appendJSONString([]byte("pre"), s)), "pre"+encodingJSONString(t, s); got != want {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	}
	// Every single byte, and every byte after a lead byte.
	for b := range 256 {
		for _, s := range []string{string([]byte{byte(b)}), string([]byte{0xe2, 0x80, byte(b)}), string([]byte{0xf0, byte(b), 0x80})} {
			if got, want := string(appendJSONString(nil, s)), encodingJSONString(t, s); got != want {
				t.Errorf("%q: got %s, want %s", s, got, want)
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString(nil, s)), encodingJSONString(t, s); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

func TestAppendJSONFloatIsEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.1, 1.0 / 3, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e-300, 5e-324,
		1e20, 1e21, 1.5e21, 123456789012345678, 1e100, math.MaxFloat64, -1e-7, -1e21, 0.000001, 100, 99.5} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

func TestAppendJSONTimeIsMarshalJSON(t *testing.T) {
	for _, tm := range []time.Time{
		{}, time.Unix(0, 0).UTC(), time.UnixMilli(1800000000123).UTC(), time.Date(2027, 1, 30, 18, 56, 0, 100, time.UTC),
		time.Date(2027, 1, 30, 18, 56, 0, 0, time.FixedZone("", 5*3600+30*60)),
		time.Date(2027, 1, 30, 18, 56, 0, 0, time.FixedZone("", -(3*3600+17))), // an offset with seconds
		time.Date(2027, 1, 30, 18, 56, 0, 0, time.FixedZone("", 24*3600)),
		time.Date(2027, 1, 30, 18, 56, 0, 0, time.FixedZone("", -25*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		want, err := tm.MarshalJSON()
		got, ok := appendJSONTime(nil, tm)
		if ok != (err == nil) || ok && string(got) != string(want) {
			t.Errorf("%v: got %s (ok %v), want %s (%v)", tm, got, ok, want, err)
		}
	}
}

// slowElement is the element as streamItemsJSON wrote it before
// appendItemJSON: toJSON, encoding/json, appendIndent.
func slowElement(v review.ItemView) ([]byte, error) {
	return newSlowItemJSON().append(nil, v)
}

func itemViews() []review.ItemView {
	score := func(n int) *int { return &n }
	at := time.Date(2027, 1, 30, 18, 56, 0, 0, time.UTC)
	base := func() review.ItemView {
		var v review.ItemView
		v.ID, v.BatchID, v.CustomerRef, v.FileName = "itm_1", "bat_1", "CUST-1", "passport.jpg"
		v.Kind, v.Status, v.UpdatedAt = policy.Kind("id_document"), policy.StatusError, at
		v.ErrorCode, v.ReportedCode = policy.Code("SOURCE_UNREACHABLE"), "SOURCE_UNREACHABLE"
		v.Retryable, v.Next = true, policy.Next{Kind: policy.NextKind("resubmit")}
		return v
	}
	var out []review.ItemView
	add := func(f func(v *review.ItemView)) {
		v := base()
		f(&v)
		out = append(out, v)
	}
	add(func(v *review.ItemView) {})
	add(func(v *review.ItemView) {
		v.Status, v.RiskScore, v.Recommendation = policy.StatusScored, score(87), policy.Recommendation("reject")
		v.ErrorCode, v.ReportedCode, v.Retryable = "", "", false
		v.Layers = map[string]float64{"ela": 0.4, "noise": 1e-7, "copy_move": 0, "meta<data>": 1e21, "é\u2028": -12.5, "\xff": 3}
	})
	add(func(v *review.ItemView) { // scored, no layers, a score of 0
		v.Status, v.RiskScore, v.Recommendation = policy.StatusScored, score(0), policy.Recommendation("approve")
		v.Layers = map[string]float64{}
	})
	add(func(v *review.ItemView) { // a score without a recommendation is not checked
		v.Status, v.RiskScore = policy.StatusScored, score(12)
		v.Layers = map[string]float64{"ela": 0.1}
	})
	add(func(v *review.ItemView) {
		v.Status, v.ErrorCode, v.ReportedCode = policy.StatusInvalid, policy.CodeInvalidResponse, "WEIRD<&>"
		v.Problem = "risk_score \"101\" out of range\n\x00\u2029"
	})
	add(func(v *review.ItemView) {
		v.Next = policy.Next{Kind: policy.NextKind("wait"), Until: at.Add(90 * time.Second).In(time.FixedZone("", 2*3600))}
		v.Action = &store.ActionRef{ID: 7, Kind: policy.ActionKind("resubmit"), State: policy.ActionState("queued"), Key: "k<1>&\"2\""}
	})
	add(func(v *review.ItemView) { // a closed action is no open action
		v.Action = &store.ActionRef{ID: 8, Kind: policy.ActionKind("resubmit"), State: policy.ActionDone, Key: "k"}
	})
	add(func(v *review.ItemView) {
		v.Revision, v.StatusSince, v.Notes = 42, at.Add(-time.Hour), 3
		v.Claim = &policy.Claim{Reviewer: "ana <ana@example.org>", ExpiresAt: time.Now().Add(time.Hour).UTC()}
	})
	add(func(v *review.ItemView) { // an expired claim is no claim
		v.Revision = 1
		v.Claim = &policy.Claim{Reviewer: "bo", ExpiresAt: time.Now().Add(-time.Hour)}
	})
	add(func(v *review.ItemView) { // a decision awaiting a second reviewer (1.2)
		v.Team.DecisionsOffered = true
		v.Team.Decisions = []policy.Decision{{ID: "dec_1", Outcome: policy.OutcomeReject, ReasonCode: "DOC_TAMPERED", By: "ana \"<x>\"", State: policy.DecisionAwaiting}}
	})
	add(func(v *review.ItemView) { // confirmed
		v.Team.DecisionsOffered = true
		v.Team.Decisions = []policy.Decision{{ID: "dec_2", Outcome: policy.OutcomeClear, ReasonCode: "DOC_GENUINE", By: "ana", State: policy.DecisionFinal,
			Confirmation: &policy.Confirmation{By: "ben\u2028"}}}
	})
	add(func(v *review.ItemView) { v.UpdatedAt = time.Time{} })
	add(func(v *review.ItemView) { v.UpdatedAt = at.In(time.FixedZone("", -(3*3600 + 17))) })
	for i, s := range hostileStrings {
		add(func(v *review.ItemView) {
			v.ID, v.BatchID, v.CustomerRef, v.FileName, v.ReportedCode, v.Problem = s, s+"b", s+"c", s, s, s
			v.Kind, v.Status, v.ErrorCode = policy.Kind(s), policy.Status(s), policy.Code(s)
			v.Next.Kind = policy.NextKind(s)
			if i%2 == 0 {
				v.Action = &store.ActionRef{Kind: policy.ActionKind(s), State: policy.ActionState("sending"), Key: s}
			}
		})
	}
	return out
}

// The rows appendItemJSON cannot write as encoding/json does: they go to
// the encoder, which refuses them.
func refusedViews() []review.ItemView {
	var out []review.ItemView
	for _, f := range []func(v *review.ItemView){
		func(v *review.ItemView) { v.UpdatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
		func(v *review.ItemView) { v.UpdatedAt = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) },
		func(v *review.ItemView) {
			v.StatusSince = time.Date(2027, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600))
		},
		func(v *review.ItemView) {
			v.Next = policy.Next{Kind: "wait", Until: time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC)}
		},
		func(v *review.ItemView) {
			v.Claim = &policy.Claim{Reviewer: "x", ExpiresAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
		},
		func(v *review.ItemView) {
			n := 5
			v.Status, v.RiskScore, v.Recommendation = policy.StatusScored, &n, "approve"
			v.Layers = map[string]float64{"ela": math.NaN()}
		},
		func(v *review.ItemView) {
			n := 5
			v.Status, v.RiskScore, v.Recommendation = policy.StatusScored, &n, "approve"
			v.Layers = map[string]float64{"a": 1, "b": math.Inf(-1)}
		},
	} {
		v := itemViews()[0]
		f(&v)
		out = append(out, v)
	}
	return out
}

func TestAppendItemJSONIsTheEncoder(t *testing.T) {
	for i, v := range itemViews() {
		want, err := slowElement(v)
		if err != nil {
			t.Fatalf("case %d: the encoder refuses it: %v", i, err)
		}
		got, ok := appendItemJSON([]byte("prefix"), &v)
		if !ok {
			t.Errorf("case %d: appendItemJSON gave up on a row the encoder writes", i)
			continue
		}
		if string(got) != "prefix"+string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got[len("prefix"):], want)
		}
	}
	for i, v := range refusedViews() {
		if _, err := slowElement(v); err == nil {
			t.Errorf("refused case %d: the encoder writes it", i)
		}
		if _, ok := appendItemJSON(nil, &v); ok {
			t.Errorf("refused case %d: appendItemJSON writes what the encoder refuses", i)
		}
	}
}

func FuzzAppendItemJSON(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s, s, int64(1), 50, 0.25, int64(1800000000000))
	}
	f.Add("a", "b", int64(0), -3, 1e-9, int64(-62135596800001))
	f.Add("a", "b", int64(-7), 100, math.Inf(1), int64(253402300800000))
	f.Fuzz(func(t *testing.T, s1, s2 string, rev int64, score int, layer float64, ms int64) {
		for i, v := range itemViews()[:9] {
			v.ID, v.FileName, v.CustomerRef, v.Problem, v.ReportedCode = s1, s2, s1+s2, s2, s1
			v.Revision = rev
			v.UpdatedAt = time.UnixMilli(ms).UTC()
			if v.RiskScore != nil {
				v.RiskScore = &score
			}
			if v.Layers != nil {
				v.Layers[s2] = layer
			}
			want, err := slowElement(v)
			got, ok := appendItemJSON(nil, &v)
			if ok && err != nil {
				t.Fatalf("case %d: appendItemJSON writes what the encoder refuses (%v): %s", i, err, got)
			}
			if ok && string(got) != string(want) {
				t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
			}
			if !ok && err == nil {
				t.Fatalf("case %d: appendItemJSON gave up on a row the encoder writes: %s", i, want)
			}
		}
	})
}
