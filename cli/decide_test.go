package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// undecided is an item of the status (and recommendation, for a scored
// one) that no one has decided at the service.
func undecided(t *testing.T, srv *screenapi.Server, status, rec string, not ...string) string {
	t.Helper()
	var found []string
	srv.Find(func(it policy.RawItem) bool {
		ok := it.Status == status && (status != "error" || it.RiskScore == nil)
		if status == "scored" {
			ok = ok && it.RiskScore != nil && *it.RiskScore <= 100 && it.Recommendation != nil && *it.Recommendation == rec
		}
		if ok {
			found = append(found, it.ID)
		}
		return false
	})
	for _, id := range found {
		if len(srv.Decisions(id)) == 0 && !strings.Contains(strings.Join(not, " "), id) {
			return id
		}
	}
	t.Fatalf("no undecided %s item recommended %q", status, rec)
	return ""
}

func itemDecision(t *testing.T, h *harness, id string) map[string]any {
	t.Helper()
	out, _ := h.want(0, "item", id, "--json")
	var it map[string]any
	if err := json.Unmarshal([]byte(out), &it); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	d, _ := it["decision"].(map[string]any)
	return d
}

// TestDecideAndConfirmOnTheCommandLine: refusals exit 3 and queue
// nothing, a reject waits for a second reviewer whom confirm serves, the
// item and the listing carry the decision.
func TestDecideAndConfirmOnTheCommandLine(t *testing.T) {
	srv, ana, ben := teamHarnesses(t, screenapi.Version12)
	id := undecided(t, srv, "scored", "reject")
	failed := undecided(t, srv, "error", "")
	if _, errs := ana.want(3, "decide", failed, "clear", "--reason", "DOC_GENUINE"); !strings.Contains(errs, "cannot be cleared") {
		t.Fatalf("clearing an item in error: %s", errs)
	}
	if _, errs := ana.want(3, "decide", id, "reject", "--reason", "DOC_TAMPERED"); !strings.Contains(errs, "needs a comment") {
		t.Fatalf("a reject without a comment: %s", errs)
	}
	if _, errs := ana.want(3, "decide", id, "reject", "--reason", "DOC_GENUINE", "--comment", "x"); !strings.Contains(errs, "cannot be given to reject") {
		t.Fatalf("a clear's reason for a reject: %s", errs)
	}
	ana.want(2, "decide", id, "approve", "--reason", "DOC_GENUINE")
	if out, _ := ana.want(0, "outbox", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("a refusal queued something: %s", out)
	}
	out, _ := ana.want(0, "decide", id, "reject", "--reason", "DOC_TAMPERED", "--comment", "MRZ digits do not match")
	if !strings.Contains(out, "reject (DOC_TAMPERED) by ana · awaiting a second reviewer") {
		t.Fatalf("decide: %s", out)
	}
	if _, errs := ana.want(3, "confirm", id); !strings.Contains(errs, "a second reviewer must confirm it") {
		t.Fatalf("the author confirms: %s", errs)
	}
	if srv.Arrivals(screenapi.EPConfirmation) != 0 {
		t.Fatal("a refused confirmation reached the service")
	}
	ben.want(0, "sync")
	if out, _ := ben.want(0, "items", "--needs-action", "--json"); !strings.Contains(out, `"id": "`+id+`"`) {
		t.Fatalf("ana's reject does not need ben: %s", out)
	}
	if out, _ := ben.want(0, "items", "--awaiting-my-confirmation", "--json"); !strings.Contains(out, `"id": "`+id+`"`) {
		t.Fatalf("ana's reject does not await ben's confirmation: %s", out)
	}
	if out, _ := ana.want(0, "items", "--awaiting-my-confirmation", "--json"); strings.Contains(out, `"id": "`+id+`"`) {
		t.Fatalf("ana's own reject awaits her confirmation: %s", out)
	}
	if _, errs := ben.want(3, "confirm", id, "--disagree"); !strings.Contains(errs, "needs a comment") {
		t.Fatalf("a return without a comment: %s", errs)
	}
	if out, _ := ben.want(0, "confirm", id, "--comment", "agreed"); !strings.Contains(out, "confirmed by ben") {
		t.Fatalf("confirm: %s", out)
	}
	ana.want(0, "sync")
	d := itemDecision(t, ana, id)
	if d["state"] != "final" || d["by"] != "ana" || d["confirmed_by"] != "ben" || d["reason_code"] != "DOC_TAMPERED" {
		t.Fatalf("the item's decision: %v", d)
	}
	if out, _ := ana.want(0, "item", id); !strings.Contains(out, "reject (DOC_TAMPERED) by ana, confirmed by ben: MRZ digits do not match") {
		t.Fatalf("item: %s", out)
	}
	csvPath := filepath.Join(t.TempDir(), "items.csv")
	ana.want(0, "export", "--csv", csvPath)
	b, err := os.ReadFile(csvPath)
	if err != nil || !strings.Contains(string(b), ",decision,decision_reason,decided_by,decision_state,confirmed_by\n") ||
		!strings.Contains(string(b), ","+id+",") || !strings.Contains(string(b), ",reject,DOC_TAMPERED,ana,final,ben\n") {
		t.Fatalf("the CSV (%v): %.400s", err, b)
	}
	list, _ := ana.want(0, "items", "--json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(list), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r["id"] == id {
			if d, _ := r["decision"].(map[string]any); d["confirmed_by"] != "ben" {
				t.Fatalf("items --json: %v", r)
			}
		}
	}
}

// TestADecisionQueuedOfflineAndA412: offline, a decision exits 5 and the
// outbox lists it with its outcome; flushed, it lands once. Two reviewers
// decide one item: the second exits 6 told what the first decided.
func TestADecisionQueuedOfflineAndA412(t *testing.T) {
	srv, ana, ben := teamHarnesses(t, screenapi.Version12)
	id := undecided(t, srv, "scored", "review")
	srv.Refuse()
	if out, errs := ana.want(0, "reason-codes"); !strings.Contains(out, "SENIOR_JUDGEMENT") || !strings.Contains(errs, "the list the last sync kept") {
		t.Fatalf("reason codes offline: %s %s", out, errs)
	}
	ana.want(5, "decide", id, "escalate", "--reason", "SENIOR_JUDGEMENT", "--comment", "hologram")
	if out, _ := ana.want(0, "outbox"); !strings.Contains(out, "decision escalate") {
		t.Fatalf("outbox: %s", out)
	}
	if err := srv.Accept(); err != nil {
		t.Fatal(err)
	}
	ana.want(0, "flush")
	ana.want(0, "flush")
	if ds := srv.Decisions(id); len(ds) != 1 || ds[0].Outcome != "escalate" || srv.Arrivals(screenapi.EPDecision) != 1 {
		t.Fatalf("at the service: %+v after %d arrivals", ds, srv.Arrivals(screenapi.EPDecision))
	}

	other := undecided(t, srv, "scored", "review", id)
	ben.want(0, "decide", other, "clear", "--reason", "DOC_GENUINE")
	if _, errs := ana.want(6, "decide", other, "reject", "--reason", "DOC_TAMPERED", "--comment", "x"); !strings.Contains(errs, "Ben decided clear (DOC_GENUINE)") {
		t.Fatalf("the second decision: %s", errs)
	}
}

// TestReasonCodesAndA11Service: the list as JSON; a 1.1 service is told in words.
func TestReasonCodesAndA11Service(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, screenapi.Version12)
	_ = srv
	out, _ := ana.want(0, "reason-codes", "--json")
	var list []policy.ReasonCode
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != len(screenapi.DemoReasonCodes()) {
		t.Fatalf("%v: %s", err, out)
	}
	old, ana11, _ := teamHarnesses(t, screenapi.Version11)
	id := undecided(t, old, "scored", "review")
	if _, errs := ana11.want(3, "decide", id, "clear", "--reason", "DOC_GENUINE"); !strings.Contains(errs, "this service does not take decisions") {
		t.Fatalf("1.1: %s", errs)
	}
	if _, errs := ana11.want(3, "reason-codes"); !strings.Contains(errs, "does not take decisions") {
		t.Fatalf("1.1 reason codes: %s", errs)
	}
}
