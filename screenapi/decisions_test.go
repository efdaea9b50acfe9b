package screenapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// The version 1.2 tests speak raw HTTP too: decisions, confirmations and
// the reason codes, in the contract's names.

// undecided finds an item with the status (and, for a scored one, the
// recommendation) that has no decision yet, and is not one the seed broke.
func undecided(t *testing.T, srv *screenapi.Server, status, rec string) string {
	t.Helper()
	var found []string
	srv.Find(func(it policy.RawItem) bool {
		ok := it.Status == status
		switch status {
		case "scored":
			ok = ok && it.RiskScore != nil && *it.RiskScore <= 100 && it.Recommendation != nil && *it.Recommendation == rec
		case "error":
			ok = ok && it.RiskScore == nil
		}
		if ok {
			found = append(found, it.ID)
		}
		return false
	})
	for _, id := range found {
		if len(srv.Decisions(id)) == 0 {
			return id
		}
	}
	t.Fatalf("no undecided %s item recommended %q", status, rec)
	return ""
}

func decisionBody(outcome, reason, comment string) string {
	b, _ := json.Marshal(map[string]string{"outcome": outcome, "reason_code": reason, "comment": comment})
	return string(b)
}

func current(t *testing.T, it map[string]any) map[string]any {
	t.Helper()
	ds, ok := it["decisions"].([]any)
	if !ok || len(ds) == 0 {
		t.Fatalf("no decisions on %v", it)
	}
	return ds[len(ds)-1].(map[string]any)
}

func TestDecideFollowsTheContract(t *testing.T) {
	for i, c := range []struct {
		name, status, rec        string
		outcome, reason, comment string
		wantStatus               int
		wantCode                 string // on a refusal
		wantState                string // on a decision
	}{
		{"clear a scored item recommended review", "scored", "review", "clear", "DOC_GENUINE", "", 201, "", "final"},
		{"clear a scored item recommended forward", "scored", "forward", "clear", "BENIGN_ARTEFACT", "glare", 201, "", "final"},
		{"clear an item recommended reject: four eyes", "scored", "reject", "clear", "VERIFIED_ELSEWHERE", "called the issuer", 201, "", "awaiting_confirmation"},
		{"reject: four eyes", "scored", "review", "reject", "DOC_TAMPERED", "MRZ digits differ", 201, "", "awaiting_confirmation"},
		{"escalate is final", "scored", "reject", "escalate", "SANCTIONS_MATCH", "name on a list", 201, "", "final"},
		{"reject an item in error", "error", "", "reject", "NO_USABLE_FILE", "three bad scans", 201, "", "awaiting_confirmation"},
		{"escalate an item awaiting a file", "awaiting_file", "", "escalate", "SENIOR_JUDGEMENT", "customer is abroad", 201, "", "final"},
		{"never clear an item in error", "error", "", "clear", "DOC_GENUINE", "", 422, "NOT_CHECKED", ""},
		{"never clear a pending item", "pending", "", "clear", "DOC_GENUINE", "", 422, "NOT_CHECKED", ""},
		{"never clear an item awaiting a file", "awaiting_file", "", "clear", "DOC_GENUINE", "", 422, "NOT_CHECKED", ""},
		{"never reject while pending", "pending", "", "reject", "DOC_TAMPERED", "x", 422, "NOT_DECIDABLE", ""},
		{"never escalate while pending", "pending", "", "escalate", "SENIOR_JUDGEMENT", "x", 422, "NOT_DECIDABLE", ""},
		{"a reason not given for the outcome", "scored", "review", "clear", "DOC_TAMPERED", "", 422, "VALIDATION_FAILED", ""},
		{"a reason not in the list", "scored", "review", "reject", "LOOKS_ODD", "x", 422, "VALIDATION_FAILED", ""},
		{"no reason", "scored", "review", "reject", "", "x", 422, "VALIDATION_FAILED", ""},
		{"reject needs a comment", "scored", "review", "reject", "DOC_TAMPERED", "  ", 422, "VALIDATION_FAILED", ""},
		{"escalate needs a comment", "scored", "review", "escalate", "SENIOR_JUDGEMENT", "", 422, "VALIDATION_FAILED", ""},
		{"a comment follows a note's rules", "scored", "review", "reject", "DOC_TAMPERED", "bell\a", 422, "VALIDATION_FAILED", ""},
		{"a comment of 2001 characters", "scored", "review", "reject", "DOC_TAMPERED", strings.Repeat("é", 2001), 422, "VALIDATION_FAILED", ""},
		{"a comment of 2000 characters", "scored", "review", "reject", "DOC_TAMPERED", strings.Repeat("é", 2000), 201, "", "awaiting_confirmation"},
		{"an unknown outcome", "scored", "review", "approve", "DOC_GENUINE", "", 422, "VALIDATION_FAILED", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, clk := start11(t, screenapi.Version12)
			id := undecided(t, srv, c.status, c.rec)
			before, _ := srv.Item(id)
			rev := srv.Revision(id)
			clk.Add(time.Minute)
			st, m := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions", key: fmt.Sprintf("k%d", i),
				ifMatch: fmt.Sprintf(`"%d"`, rev), body: decisionBody(c.outcome, c.reason, c.comment)})
			if st != c.wantStatus || (c.wantCode != "" && m["error_code"] != c.wantCode) {
				t.Fatalf("%d %v, want %d %s", st, m, c.wantStatus, c.wantCode)
			}
			if c.wantCode != "" {
				if c.wantCode == "NOT_CHECKED" || c.wantCode == "NOT_DECIDABLE" {
					if it, _ := m["item"].(map[string]any); it == nil || it["id"] != id {
						t.Fatalf("%s must carry the item: %v", c.wantCode, m)
					}
				}
				if len(srv.Decisions(id)) != 0 || srv.Revision(id) != rev {
					t.Fatal("a refusal recorded a decision or moved the revision")
				}
				return
			}
			d := current(t, m)
			if d["state"] != c.wantState || d["outcome"] != c.outcome || d["reason_code"] != c.reason || d["by"] != "ana" ||
				!strings.HasPrefix(d["id"].(string), "dec_") || d["confirmation"] != nil || d["at"] != "2026-11-29T10:01:00Z" {
				t.Fatalf("decision %v", d)
			}
			if m["revision"] != float64(rev+1) || m["updated_at"] == before.UpdatedAt.Format(time.RFC3339Nano) {
				t.Fatalf("a decision moves revision and updated_at: %v %v", m["revision"], m["updated_at"])
			}
		})
	}
}

func TestANewDecisionSupersedesAndIsIdempotent(t *testing.T) {
	srv, _ := start11(t, screenapi.Version12)
	id := undecided(t, srv, "scored", "review")
	path := "/v1/items/" + id + "/decisions"
	st, first := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "d1", body: decisionBody("reject", "DOC_TAMPERED", "edited")})
	if st != 201 {
		t.Fatalf("%d %v", st, first)
	}
	// A repeat with the same key returns the stored answer and records nothing.
	if st, again := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "d1", body: decisionBody("reject", "DOC_TAMPERED", "edited")}); st != 201 || current(t, again)["id"] != current(t, first)["id"] {
		t.Fatalf("replay: %d %v", st, again)
	}
	if n := len(srv.Decisions(id)); n != 1 {
		t.Fatalf("a replay recorded %d decisions", n)
	}
	// The key was used for a decision: not for another endpoint.
	if st, m := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/notes", key: "d1", body: `{"text":"x"}`}); st != 422 || m["error_code"] != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("key reused: %d %v", st, m)
	}
	st, second := call(t, srv, req{tok: benTok, method: "POST", path: path, key: "d2", body: decisionBody("escalate", "SENIOR_JUDGEMENT", "not sure")})
	if st != 201 {
		t.Fatalf("%d %v", st, second)
	}
	ds := second["decisions"].([]any)
	if len(ds) != 2 || ds[0].(map[string]any)["state"] != "superseded" || ds[1].(map[string]any)["state"] != "final" {
		t.Fatalf("oldest first, the older superseded: %v", ds)
	}
	// A stale If-Match meets 412 with the item.
	if st, m := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "d3", ifMatch: `"1"`, body: decisionBody("clear", "DOC_GENUINE", "")}); st != 412 || m["error_code"] != "ITEM_CHANGED" {
		t.Fatalf("stale: %d %v", st, m)
	}
}

func TestAnotherReviewersClaimBlocksDecisionsAndConfirmations(t *testing.T) {
	srv, _ := start11(t, screenapi.Version12)
	id := undecided(t, srv, "scored", "review")
	path := "/v1/items/" + id + "/decisions"
	st, m := call(t, srv, req{tok: anaTok, method: "POST", path: path, key: "d1", body: decisionBody("reject", "DOC_TAMPERED", "edited")})
	if st != 201 {
		t.Fatalf("%d %v", st, m)
	}
	decID := current(t, m)["id"].(string)
	if st, _ := call(t, srv, req{tok: anaTok, method: "PUT", path: "/v1/items/" + id + "/claim", body: `{"ttl_seconds": 600}`}); st != 200 {
		t.Fatal("claim")
	}
	if st, m := call(t, srv, req{tok: benTok, method: "POST", path: path, key: "d2", body: decisionBody("clear", "DOC_GENUINE", "")}); st != 409 || m["error_code"] != "CLAIMED" {
		t.Fatalf("decide on a claimed item: %d %v", st, m)
	}
	if st, m := call(t, srv, req{tok: benTok, method: "POST", path: path + "/" + decID + "/confirmation", key: "c1", body: `{"agree": true}`}); st != 409 || m["error_code"] != "CLAIMED" {
		t.Fatalf("confirm on a claimed item: %d %v", st, m)
	}
	if len(srv.Decisions(id)) != 1 || srv.Decisions(id)[0].State != "awaiting_confirmation" {
		t.Fatalf("a claim let something through: %+v", srv.Decisions(id))
	}
}

func TestConfirmationFollowsTheContract(t *testing.T) {
	for _, c := range []struct {
		name       string
		decideAs   string // "" for no decision
		outcome    string
		confirmAs  string
		otherID    bool // confirm a decision that is not the current one
		body       string
		wantStatus int
		wantCode   string
		wantState  string
	}{
		{"another reviewer agrees", anaTok, "reject", benTok, false, `{"agree": true}`, 200, "", "final"},
		{"another reviewer agrees with a comment", anaTok, "reject", benTok, false, `{"agree": true, "comment": "seen"}`, 200, "", "final"},
		{"another reviewer returns it", anaTok, "reject", benTok, false, `{"agree": false, "comment": "photo is fine"}`, 200, "", "returned"},
		{"a return needs a comment", anaTok, "reject", benTok, false, `{"agree": false, "comment": " "}`, 422, "VALIDATION_FAILED", "awaiting_confirmation"},
		{"agree is required", anaTok, "reject", benTok, false, `{"comment": "x"}`, 422, "VALIDATION_FAILED", "awaiting_confirmation"},
		{"never by its author", anaTok, "reject", anaTok, false, `{"agree": true}`, 422, "SAME_REVIEWER", "awaiting_confirmation"},
		{"only while awaiting", anaTok, "escalate", benTok, false, `{"agree": true}`, 422, "NOT_AWAITING_CONFIRMATION", "final"},
		{"only the current decision", anaTok, "reject", benTok, true, `{"agree": true}`, 422, "NOT_AWAITING_CONFIRMATION", "awaiting_confirmation"},
		{"no decision at all", "", "", benTok, true, `{"agree": true}`, 422, "NOT_AWAITING_CONFIRMATION", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := start11(t, screenapi.Version12)
			id := undecided(t, srv, "scored", "review")
			decID := "dec_nope"
			if c.decideAs != "" {
				reason := map[string]string{"reject": "DOC_TAMPERED", "escalate": "SENIOR_JUDGEMENT"}[c.outcome]
				st, m := call(t, srv, req{tok: c.decideAs, method: "POST", path: "/v1/items/" + id + "/decisions", key: "d1", body: decisionBody(c.outcome, reason, "why")})
				if st != 201 {
					t.Fatalf("decide: %d %v", st, m)
				}
				if !c.otherID {
					decID = current(t, m)["id"].(string)
				}
			}
			rev := srv.Revision(id)
			st, m := call(t, srv, req{tok: c.confirmAs, method: "POST", path: "/v1/items/" + id + "/decisions/" + decID + "/confirmation",
				key: "c1", ifMatch: fmt.Sprintf(`"%d"`, rev), body: c.body})
			if st != c.wantStatus || (c.wantCode != "" && m["error_code"] != c.wantCode) {
				t.Fatalf("%d %v, want %d %s", st, m, c.wantStatus, c.wantCode)
			}
			if c.wantCode == "NOT_AWAITING_CONFIRMATION" {
				if it, _ := m["item"].(map[string]any); it == nil || it["id"] != id {
					t.Fatalf("NOT_AWAITING_CONFIRMATION carries the item: %v", m)
				}
			}
			ds := srv.Decisions(id)
			if c.wantState == "" {
				if len(ds) != 0 {
					t.Fatalf("decisions %+v", ds)
				}
				return
			}
			if ds[len(ds)-1].State != c.wantState {
				t.Fatalf("state %+v, want %s", ds, c.wantState)
			}
			if c.wantStatus == 200 {
				d := current(t, m)
				conf, _ := d["confirmation"].(map[string]any)
				if conf == nil || conf["by"] != "ben" || conf["at"] == nil || conf["agree"] != (c.wantState == "final") {
					t.Fatalf("confirmation %v", d)
				}
				if m["revision"] != float64(rev+1) {
					t.Fatalf("a confirmation moves the revision: %v", m["revision"])
				}
				// A repeat returns the stored answer and records nothing again.
				if st, again := call(t, srv, req{tok: c.confirmAs, method: "POST", path: "/v1/items/" + id + "/decisions/" + decID + "/confirmation",
					key: "c1", body: c.body}); st != 200 || again["revision"] != m["revision"] {
					t.Fatalf("replay: %d %v", st, again)
				}
			} else if srv.Revision(id) != rev {
				t.Fatal("a refused confirmation moved the revision")
			}
		})
	}
}

func TestReasonCodes(t *testing.T) {
	srv, _ := start11(t, screenapi.Version12)
	st, m := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/reason-codes"})
	if st != 200 {
		t.Fatalf("%d %v", st, m)
	}
	list := m["reason_codes"].([]any)
	byOutcome := map[string]int{}
	for _, raw := range list {
		rc := raw.(map[string]any)
		if rc["code"] == "" || rc["label"] == "" || len(rc["outcomes"].([]any)) == 0 {
			t.Fatalf("reason code %v", rc)
		}
		for _, o := range rc["outcomes"].([]any) {
			byOutcome[o.(string)]++
		}
	}
	if byOutcome["clear"] == 0 || byOutcome["reject"] == 0 || byOutcome["escalate"] == 0 {
		t.Fatalf("the demo list gives no reason for some outcome: %v", byOutcome)
	}
	// The list belongs to the service and may change: a code it no longer
	// gives is refused.
	srv.SetReasonCodes([]screenapi.ReasonCode{{Code: "ONLY_ONE", Label: "The one", Outcomes: []string{"reject"}}})
	id := undecided(t, srv, "scored", "review")
	if st, m := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions", key: "k", body: decisionBody("reject", "DOC_TAMPERED", "x")}); st != 422 || m["error_code"] != "VALIDATION_FAILED" {
		t.Fatalf("%d %v", st, m)
	}
	if st, _ := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions", key: "k2", body: decisionBody("reject", "ONLY_ONE", "x")}); st != 201 {
		t.Fatalf("%d", st)
	}
}

func TestVersions10And11TakeNoDecisions(t *testing.T) {
	for _, v := range []string{screenapi.Version10, screenapi.Version11} {
		srv, _ := start11(t, v)
		id := undecided(t, srv, "scored", "review")
		for _, r := range []req{
			{tok: anaTok, method: "GET", path: "/v1/reason-codes"},
			{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions", key: "k1", body: decisionBody("clear", "DOC_GENUINE", "")},
			{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions/dec_1/confirmation", key: "k2", body: `{"agree": true}`},
		} {
			if st, m := call(t, srv, r); st != 404 || m["error_code"] != "NOT_FOUND" {
				t.Fatalf("%s %s %s: %d %v", v, r.method, r.path, st, m)
			}
		}
		if _, it := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/" + id}); it["decisions"] != nil {
			t.Fatalf("%s sends decisions: %v", v, it)
		}
		if len(srv.Decisions(id)) != 0 {
			t.Fatal("a decision recorded")
		}
	}
	srv, _ := start11(t, screenapi.Version12)
	_, it := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/items/" + undecided(t, srv, "scored", "review")})
	if ds, ok := it["decisions"].([]any); !ok || len(ds) != 0 {
		t.Fatalf("1.2 sends [] when there is no decision: %v", it["decisions"])
	}
}

func TestFaultsReachTheVersion12Endpoints(t *testing.T) {
	srv, _ := start11(t, screenapi.Version12)
	id := undecided(t, srv, "scored", "review")
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultUnavailable, Endpoint: screenapi.EPReasonCodes, Times: 1})
	if st, _ := call(t, srv, req{tok: anaTok, method: "GET", path: "/v1/reason-codes"}); st != 503 {
		t.Fatalf("reason codes: %d", st)
	}
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPDecision, Times: 1})
	if st, _ := call(t, srv, req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions", key: "k1", body: decisionBody("reject", "DOC_TAMPERED", "x")}); st != 429 {
		t.Fatalf("decision: %d", st)
	}
	if len(srv.Decisions(id)) != 0 {
		t.Fatal("a 429 recorded a decision")
	}
	// A reset after the work: the decision is recorded, its key kept, and
	// the repeat with the same key returns it without a second one.
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultResetAfter, Endpoint: screenapi.EPDecision, Times: 1})
	hr := req{tok: anaTok, method: "POST", path: "/v1/items/" + id + "/decisions", key: "k2", body: decisionBody("reject", "DOC_TAMPERED", "x"), fresh: true}
	if _, _, err := rawCall(srv, hr); err == nil {
		t.Fatal("no reset")
	}
	st, m := call(t, srv, hr)
	if st != 201 || len(srv.Decisions(id)) != 1 {
		t.Fatalf("reconciled: %d %v %+v", st, m, srv.Decisions(id))
	}
	decID := current(t, m)["id"].(string)
	srv.SetFault(screenapi.Fault{Kind: screenapi.FaultBadGateway, Endpoint: screenapi.EPConfirmation, Times: 1})
	cr := req{tok: benTok, method: "POST", path: "/v1/items/" + id + "/decisions/" + url.PathEscape(decID) + "/confirmation", key: "c1", body: `{"agree": true}`}
	if st, _ := call(t, srv, cr); st != 502 {
		t.Fatalf("confirmation: %d", st)
	}
	if srv.Arrivals(screenapi.EPReasonCodes) != 1 || srv.Arrivals(screenapi.EPDecision) != 3 || srv.Arrivals(screenapi.EPConfirmation) != 1 {
		t.Fatal("arrivals")
	}
}

// The demo's data gives a reviewer something to decide in every batch: a
// scored item recommended review or reject, and some rejects awaiting a
// second reviewer.
func TestEveryBatchOfA12ServiceHasSomethingToDecide(t *testing.T) {
	srv, _ := start11(t, screenapi.Version12)
	awaiting := 0
	cursor := ""
	batches := 0
	for {
		path := "/v1/batches?limit=50"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		_, page := call(t, srv, req{tok: anaTok, method: "GET", path: path})
		for _, b := range page["batches"].([]any) {
			batches++
			decidable := false
			for _, raw := range b.(map[string]any)["items"].([]any) {
				it := raw.(map[string]any)
				ds := it["decisions"].([]any)
				if it["status"] == "scored" && (it["recommendation"] == "review" || it["recommendation"] == "reject") {
					decidable = true
				}
				if len(ds) > 0 && ds[len(ds)-1].(map[string]any)["state"] == "awaiting_confirmation" {
					awaiting++
				}
			}
			if !decidable {
				t.Errorf("batch %v has nothing to decide", b.(map[string]any)["id"])
			}
		}
		next, _ := page["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if batches != 48 || awaiting < 10 {
		t.Fatalf("%d batches, %d awaiting confirmation", batches, awaiting)
	}
}
