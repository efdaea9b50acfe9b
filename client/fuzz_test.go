package client

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// checkItem fails on an item that breaks the contract's invariants as the
// console keeps them: only a scored item carries a verdict, and it always
// carries a whole one; an error or an invalid answer always has a code.
func checkItem(t *testing.T, it policy.Item) {
	t.Helper()
	valid := false
	for _, s := range policy.Statuses() {
		valid = valid || it.Status == s
	}
	if !valid {
		t.Fatalf("status %q is not one of the contract's", it.Status)
	}
	if it.Checked() != (it.Status == policy.StatusScored) {
		t.Fatalf("Checked()=%v for status %s", it.Checked(), it.Status)
	}
	if it.Status != policy.StatusScored {
		if it.RiskScore != nil || it.Recommendation != "" || it.Layers != nil {
			t.Fatalf("a %s item carries a verdict: %+v", it.Status, it)
		}
	} else {
		if *it.RiskScore < 0 || *it.RiskScore > 100 || it.ErrorCode != "" {
			t.Fatalf("a scored item out of contract: %+v", it)
		}
		switch it.Recommendation {
		case policy.RecommendForward, policy.RecommendReview, policy.RecommendReject:
		default:
			t.Fatalf("recommendation %q", it.Recommendation)
		}
	}
	if (it.Status == policy.StatusError || it.Status == policy.StatusInvalid) && it.ErrorCode == "" {
		t.Fatalf("a %s item without a code: %+v", it.Status, it)
	}
	if it.Status == policy.StatusInvalid && (it.Problem == "" || it.ErrorCode != policy.CodeInvalidResponse) {
		t.Fatalf("an invalid item must say why: %+v", it)
	}
	// Contract 1.2: an invalid answer is never shown as decided, and every
	// decision kept is one the console can read.
	if it.Status == policy.StatusInvalid && (len(it.Team.Decisions) > 0 || it.CurrentDecision() != nil) {
		t.Fatalf("an invalid item with decisions: %+v", it.Team.Decisions)
	}
	for i, d := range it.Team.Decisions {
		if !d.Outcome.Known() || !d.State.Known() || d.ID == "" || d.By == "" || d.At.IsZero() ||
			(d.State == policy.DecisionSuperseded) == (i == len(it.Team.Decisions)-1) {
			t.Fatalf("decision %d kept: %+v", i, d)
		}
	}
}

// checkWireItem is checkItem for an item read from a page: an item whose id
// could not go in a URL is never anything but invalid, and an invalid item
// keeps the text the service sent.
func checkWireItem(t *testing.T, it policy.Item) {
	t.Helper()
	checkItem(t, it)
	if it.Status != policy.StatusInvalid && (policy.IDProblem(it.ID) != "" || it.Raw != "") {
		t.Fatalf("a %s item with id %q (raw %q)", it.Status, it.ID, it.Raw)
	}
	if it.Status == policy.StatusInvalid && it.Raw == "" {
		t.Fatalf("an invalid item without the text it came as: %+v", it)
	}
}

const seedDecision = `{"id":"dec_1","outcome":"reject","reason_code":"DOC_TAMPERED","comment":"MRZ check digits do not match",
"by":"ana","at":"2026-12-02T09:14:00Z","state":"awaiting_confirmation","confirmation":null}`

const seedItem = `{"id":"itm_1","batch_id":"bat_1","kind":"id_document","file_name":"a.jpg","media_type":"image/jpeg",
"size_bytes":10,"status":"scored","risk_score":42,"recommendation":"review","layers":{"ela":0.4},
"error_code":null,"error_message":null,"attempt":1,"updated_at":"2026-11-29T10:00:00Z"}`

func FuzzItemDecoder(f *testing.F) {
	for _, s := range []string{seedItem,
		`{"id":"i","batch_id":"b","status":"error","error_code":"DECODE_FAILED","risk_score":null,"updated_at":"2026-11-29T10:00:00Z"}`,
		`{"id":"i","status":"error","error_code":"CLASSIFIER_TIMEOUT","risk_score":55,"recommendation":"forward"}`,
		`{"id":"i","status":"scored","risk_score":101,"recommendation":"forward"}`,
		`{"id":"i","status":"scored","risk_score":50.5,"recommendation":"reject","layers":{"x":null}}`,
		`{"id":"i","status":"pending","risk_score":0}`, `{"status":"passed"}`, `{}`, `null`, `[]`,
		`{"id":"i","status":"error","error_code":""}`, `{"id":"i","status":"awaiting_file","recommendation":"review"}`,
		// Contract 1.2: decisions, good and broken.
		`{"id":"i","batch_id":"b","status":"scored","risk_score":80,"recommendation":"reject","updated_at":"2026-11-29T10:00:00Z","decisions":[]}`,
		`{"id":"i","batch_id":"b","status":"scored","risk_score":80,"recommendation":"reject","updated_at":"2026-11-29T10:00:00Z","decisions":[` + seedDecision + `]}`,
		`{"id":"i","status":"scored","risk_score":80,"recommendation":"reject","decisions":[{"id":"dec_1","outcome":"clear","reason_code":"R","by":"ana","at":"2026-12-02T09:14:00Z","state":"superseded","confirmation":null},` +
			`{"id":"dec_2","outcome":"reject","reason_code":"R","comment":"x","by":"ben","at":"2026-12-02T09:15:00Z","state":"final","confirmation":{"by":"ana","at":"2026-12-02T09:20:00Z","agree":true}}]}`,
		`{"id":"i","status":"scored","risk_score":80,"recommendation":"review","decisions":[{"id":"dec_1","outcome":"clear","by":"ana","at":"2026-12-02T09:14:00Z","state":"approved"}]}`,
		`{"id":"i","status":"scored","risk_score":80,"recommendation":"review","decisions":[{"id":"dec_1","outcome":"pass","by":"ana","at":"2026-12-02T09:14:00Z","state":"final"}]}`,
		`{"id":"i","status":"scored","risk_score":80,"recommendation":"review","decisions":[{"outcome":"clear","state":"final"}]}`,
		`{"id":"i","status":"error","error_code":"DECODE_FAILED","decisions":[{"id":"d","outcome":"reject","by":"a","at":"2026-12-02T09:14:00Z","state":"returned","confirmation":{"agree":false}}]}`,
		`{"id":"i","status":"scored","risk_score":80,"recommendation":"review","decisions":{"id":"d"}}`,
		`{"id":"i","status":"scored","risk_score":80,"recommendation":"review","decisions":[null,7,"x"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var raw policy.RawItem
		if json.Unmarshal(body, &raw) == nil {
			checkItem(t, policy.Validate(raw)) // an item as GET /v1/items/{id} gives it
		}
		if !json.Valid(body) {
			return // exec refuses a page that is not JSON before any item is made
		}
		// An item of a page: whatever JSON it is, it comes back, never
		// checked unless it is a valid scored item.
		it := itemFromWire(body, fuzzNow)
		if it.ID == "" && it.Status != policy.StatusInvalid {
			t.Fatalf("an item without an id: %+v", it)
		}
		if it.ID == "" {
			it.ID = "x" // pageFromWire gives a made id to an item without one
		}
		checkWireItem(t, it)
	})
}

func FuzzBatchPageDecoder(f *testing.F) {
	for _, s := range []string{
		`{"batches":[{"id":"bat_1","customer_ref":"C","created_at":"2026-11-29T10:00:00Z","updated_at":"2026-11-29T10:00:00Z","items":[` + seedItem + `]}],"next_cursor":"c2"}`,
		`{"batches":[{"id":"bat_2","items":[` + seedItem + `]}],"next_cursor":null}`,
		`{"batches":[{"id":"","items":[]}]}`, `{"batches":null}`, `{}`, `{"batches":[]}`,
		`{"batches":[{"id":"b","items":[{"id":"i","batch_id":"b","status":"scored","risk_score":-1,"recommendation":"review"}]}]}`,
		`{"batches":[{"id":"b","items":[{"id":"i","batch_id":"b","status":"scored","risk_score":1e400,"recommendation":"review"},` + seedItem + `,"x",7,null,{"id":"i"}]},{"items":[{}]},{"id":"b","items":{"id":"..."}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var wp wirePage
		if json.Unmarshal(body, &wp) != nil {
			return
		}
		page, err := pageFromWire(wp, fuzzNow)
		// The one-pass decoder, when it takes a page, gives what the
		// item-by-item one gives.
		var pd pageDecoder
		if pd.decodeBody(body) != nil {
			t.Fatal("a JSON page refused as not JSON")
		}
		if pd.fast && (err != nil || !reflect.DeepEqual(pd.page, page)) {
			t.Fatalf("one pass: %+v\nitem by item: %+v %v", pd.page, page, err)
		}
		if err != nil {
			if err.Code != policy.CodeInvalidResponse || err.Class != ClassBadAnswer || len(page.Batches) != 0 || wp.Batches != nil {
				t.Fatalf("a refused page: %+v %+v", err, page)
			}
			return
		}
		if wp.Batches == nil || len(page.Batches) != len(*wp.Batches) {
			t.Fatal("batches lost or invented")
		}
		ids := map[string]bool{}
		for i, b := range page.Batches {
			var wb wireBatch
			_ = json.Unmarshal((*wp.Batches)[i], &wb)
			var items []json.RawMessage
			if len(wb.Items) > 0 && json.Unmarshal(wb.Items, &items) != nil {
				items = []json.RawMessage{wb.Items}
			}
			if b.ID == "" || len(items) != len(b.Items) {
				t.Fatalf("batch %d: %+v", i, b)
			}
			for _, it := range b.Items {
				checkWireItem(t, it)
				if it.BatchID != b.ID {
					t.Fatalf("item %q filed under %q in batch %q", it.ID, it.BatchID, b.ID)
				}
				if it.ID == "" || ids[it.ID] {
					t.Fatalf("item id %q empty or twice on the page", it.ID)
				}
				ids[it.ID] = true
			}
		}
	})
}

var fuzzNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "60", " 120 ", "-5", "9223372036854775807", "99999999999999999999",
		"Mon, 30 Nov 2026 09:05:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "soon", "1e9"} {
		f.Add(s, int64(30))
	}
	f.Fuzz(func(t *testing.T, v string, fallbackSecs int64) {
		fallback := time.Duration(fallbackSecs%100000) * time.Second
		got := retryAfter(v, fuzzNow, fallback)
		if got.IsZero() {
			if fallback > 0 {
				t.Fatalf("%q with a fallback gave no time", v)
			}
			return
		}
		if got.Before(fuzzNow) || got.After(fuzzNow.Add(maxRetryAfter)) {
			t.Fatalf("Retry-After %q -> %v: outside [now, now+%v]", v, got, maxRetryAfter)
		}
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 && secs <= 3600 && !got.Equal(fuzzNow.Add(time.Duration(secs)*time.Second)) {
			t.Fatalf("Retry-After %q -> %v", v, got)
		}
	})
}

func FuzzErrorBody(f *testing.F) {
	for _, s := range []struct {
		status int
		ra     string
		body   string
	}{
		{429, "60", `{"error_code":"RATE_LIMITED","error_message":"slow down"}`},
		{503, "", `{"error_code":"SERVICE_UNAVAILABLE","error_message":"x"}`},
		{502, "", `<html>Bad Gateway</html>`},
		{404, "", `{"error_code":"NOT_FOUND"}`},
		{422, "", `{"error_code":"NOT_RETRYABLE","error_message":"DECODE_FAILED needs a new file"}`},
		{401, "", ``}, {500, "", `{"error_code":12}`}, {409, "", `{"error_code":"IDEMPOTENCY_KEY_IN_USE"`},
		// Contract 1.2's refusals of a decision or a confirmation.
		{422, "", `{"error_code":"NOT_CHECKED","error_message":"an item that could not be checked is never cleared"}`},
		{422, "", `{"error_code":"SAME_REVIEWER"}`}, {409, "", `{"error_code":"NOT_AWAITING_CONFIRMATION"}`},
		{412, "", `{"error_code":"PRECONDITION_FAILED","item":{"id":"i","decisions":[` + seedDecision + `]}}`},
	} {
		f.Add(s.status, s.ra, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, ra string, body []byte) {
		status = 300 + abs(status)%300 // answer errors: 3xx to 5xx
		class, e := answerError(status, ra, body, fuzzNow)
		if e == nil || e.Code == "" || e.Class != class || e.HTTPStatus != status {
			t.Fatalf("%d %q: %v %+v", status, body, class, e)
		}
		switch class {
		case ClassRateLimited:
			if status != http.StatusTooManyRequests || e.RetryAfter.Before(fuzzNow) || e.RetryAfter.After(fuzzNow.Add(maxRetryAfter)) {
				t.Fatalf("rate limit: %+v", e)
			}
		case ClassAnsweredNo, ClassUnknown:
		default:
			t.Fatalf("an answer classed %s", class)
		}
		reported := parseErrorBody(body).ErrorCode
		if reported != e.ReportedCode && !(status >= 500 && reported == "" && class == ClassUnknown) {
			t.Fatalf("reported %q, kept %q", reported, e.ReportedCode)
		}
		// A 5xx that is not the service's own error body may have been
		// carried out: never an answered no, which would invite a repeat.
		if status >= 500 && reported == "" && class != ClassUnknown {
			t.Fatalf("bare %d classed %s", status, class)
		}
		_ = e.Error()
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}

// FuzzDocumentType: the check of a declared type against a document's
// first bytes accepts only a known type that the bytes agree with, and its
// refusal never quotes the bytes or the declared text.
func FuzzDocumentType(f *testing.F) {
	for _, s := range []struct{ declared, data string }{
		{"image/jpeg", "\xff\xd8\xff\xe0rest"}, {"image/png", "\x89PNG\r\n\x1a\nrest"}, {"image/webp", "RIFF\x00\x00\x00\x00WEBPVP8L"},
		{"application/pdf", "%PDF-1.4\n"}, {"image/png", "\xff\xd8\xff"}, {"IMAGE/JPEG; q=1", "\xff\xd8\xff"},
		{"text/html", "<html>"}, {"", ""}, {"image/jpeg", "\xff\xd8"}, {"application/pdf; charset=\"x", "%PDF-"},
	} {
		f.Add(s.declared, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, declared string, data []byte) {
		mt, err := CheckDocumentType(declared, data)
		if err == nil {
			if mt != policy.SniffMediaType(data) || !knownDocumentType(mt) {
				t.Fatalf("accepted %q for bytes of %q", mt, policy.SniffMediaType(data))
			}
			return
		}
		if mt != "" {
			t.Fatalf("refused, yet gave %q", mt)
		}
		d, ok := err.(*DamagedFileError)
		if !ok {
			t.Fatalf("%T", err)
		}
		if (d.Declared != "" && !knownDocumentType(d.Declared)) || (d.Actual != "" && !knownDocumentType(d.Actual)) {
			t.Fatalf("the error carries text from the answer: %+v", d)
		}
	})
}

// FuzzDecisionAnswer: whatever a 200 to POST .../decisions or
// .../confirmation carries, the console keeps either an invalid item (an
// answer that breaks the contract, never shown as decided), or an item
// whose current decision it can read, or a bad answer (no decision at
// all), whose outcome is unknown and reconciled with the same key; never a
// valid item that looks decided by a decision it cannot read.
func FuzzDecisionAnswer(f *testing.F) {
	for _, s := range []string{
		`{"id":"i","batch_id":"b","status":"scored","risk_score":80,"recommendation":"reject","updated_at":"2026-11-29T10:00:00Z","decisions":[` + seedDecision + `]}`,
		`{"id":"i","batch_id":"b","status":"scored","risk_score":80,"recommendation":"reject","updated_at":"2026-11-29T10:00:00Z","decisions":[]}`,
		`{"id":"i","batch_id":"b","status":"scored","risk_score":80,"recommendation":"reject","updated_at":"2026-11-29T10:00:00Z"}`,
		`{"id":"i","batch_id":"b","status":"error","error_code":"DECODE_FAILED","updated_at":"2026-11-29T10:00:00Z","decisions":[{"id":"d","outcome":"clear","reason_code":"R","by":"a","at":"2026-12-02T09:14:00Z","state":"final"}]}`,
		`{"id":"i","batch_id":"b","status":"scored","risk_score":40,"recommendation":"review","updated_at":"2026-11-29T10:00:00Z","decisions":[{"id":"d","outcome":"clear","reason_code":"R","by":"a","at":"2026-12-02T09:14:00Z","state":"approved"}]}`,
		`{"id":"i","batch_id":"b","status":"scored","risk_score":40,"recommendation":"review","updated_at":"2026-11-29T10:00:00Z","decisions":[{"id":"d","outcome":"waive","reason_code":"R","by":"a","at":"2026-12-02T09:14:00Z","state":"final"}]}`,
		`{"id":"i","batch_id":"b","status":"scored","risk_score":80,"recommendation":"reject","updated_at":"2026-11-29T10:00:00Z","decisions":[` + seedDecision + `,` + seedDecision + `]}`,
		`{}`, `null`, `[]`, `{"decisions":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var raw policy.RawItem
		if json.Unmarshal(body, &raw) != nil {
			return // exec refuses an answer that is not an item before this
		}
		it, _, err := decidedItem(raw, nil)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Class != ClassBadAnswer || e.Code != policy.CodeInvalidResponse {
				t.Fatalf("a decision answer refused as %v", err)
			}
			if v := policy.Validate(raw); v.Status == policy.StatusInvalid || v.CurrentDecision() != nil {
				t.Fatalf("refused an answer that was %s with decision %v", v.Status, v.CurrentDecision())
			}
			return
		}
		checkItem(t, it)
		if it.Status != policy.StatusInvalid {
			d := it.CurrentDecision()
			if d == nil || !d.Outcome.Known() || !d.State.Known() {
				t.Fatalf("a decided item without a decision it can read: %+v", d)
			}
		}
	})
}

// FuzzReasonCodes: whatever the service sends as its list of reason codes,
// the list the console keeps holds only codes it can send back, each once,
// with a label and at least one outcome it knows, each once; a body that is
// JSON but carries no list is a bad answer, never an empty list.
func FuzzReasonCodes(f *testing.F) {
	for _, s := range []string{
		`{"reason_codes":[{"code":"DOC_TAMPERED","label":"Signs of editing or tampering","outcomes":["reject","escalate"]}]}`,
		`{"reason_codes":[]}`, `{"reason_codes":null}`, `{}`, `[]`, `null`, `{"reason_codes":{"code":"x"}}`,
		`{"reason_codes":[{"code":"A","outcomes":["reject","reject","approve"]},{"code":"A","label":"twice","outcomes":["clear"]}]}`,
		`{"reason_codes":[{"code":"../x","label":"path","outcomes":["reject"]},{"code":"","outcomes":["clear"]},null,7,"x",{"code":"B","outcomes":[]}]}`,
		`{"reason_codes":[{"code":"C","label":"\u001b[31mred","outcomes":["escalate"]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var d reasonCodesDecoder
		if err := d.decodeBody(body); err != nil {
			if json.Valid(body) && len(body) > 0 && body[0] == '{' {
				t.Fatalf("a JSON object refused as not JSON: %v", err)
			}
			return
		}
		if d.Problem != "" {
			if d.List != nil {
				t.Fatalf("a bad answer with a list: %+v", d.List)
			}
			return
		}
		if d.List == nil {
			t.Fatal("a list answer without a list")
		}
		seen := map[string]bool{}
		for _, rc := range d.List {
			if policy.IDProblem(rc.Code) != "" || seen[rc.Code] || rc.Label == "" || len(rc.Outcomes) == 0 {
				t.Fatalf("kept %+v", rc)
			}
			seen[rc.Code] = true
			outs := map[policy.Outcome]bool{}
			for _, o := range rc.Outcomes {
				if !o.Known() || outs[o] {
					t.Fatalf("kept outcome %q in %+v", o, rc)
				}
				outs[o] = true
			}
		}
	})
}
