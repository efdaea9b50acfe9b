package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

const anaTok, benTok = "cli-token-ana-0123", "cli-token-ben-0123"

// teamHarnesses are two consoles (two caches, two tokens) on one service.
func teamHarnesses(t *testing.T, version string) (*screenapi.Server, *harness, *harness) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{APIVersion: version, Reviewers: []screenapi.Reviewer{
		{Name: "ana", DisplayName: "Ana Lima", Token: anaTok}, {Name: "ben", DisplayName: "Ben Okafor", Token: benTok}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	mk := func(name, tok string) *harness {
		dir := t.TempDir()
		return &harness{t: t, srv: srv, dir: dir, env: map[string]string{
			"REVIEWER_API_URL": srv.URL(), "REVIEWER_API_TOKEN": tok, "REVIEWER_DB": filepath.Join(dir, name+".db"),
			"REVIEWER_RETRY_SLEEP": "1ms", "REVIEWER_TIMEOUT": "15s", "REVIEWER_NAME": "local-" + name,
		}}
	}
	ana, ben := mk("ana", anaTok), mk("ben", benTok)
	ana.want(0, "sync")
	ben.want(0, "sync")
	return srv, ana, ben
}

func TestTeamCommands(t *testing.T) {
	srv, ana, ben := teamHarnesses(t, "")
	if out, _ := ana.want(0, "me"); !strings.Contains(out, "ana (Ana Lima), from the screening service") {
		t.Fatalf("me: %s", out)
	}

	// A claim by ana: ben's actions exit 6 with one line naming her.
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	if out, _ := ana.want(0, "claim", id, "--ttl", "20m"); !strings.Contains(out, "claimed "+id+" until") {
		t.Fatalf("claim: %s", out)
	}
	for i := 0; i < 2; i++ { // the service says it, then ben's cache does
		if _, errs := ben.want(6, "resubmit", id); !strings.Contains(errs, "CLAIMED") || !strings.Contains(errs, "Ana is on this until") {
			t.Fatalf("ben's re-submission: %s", errs)
		}
	}
	ben.want(6, "claim", id)
	if srv.Analyses(id) != 0 {
		t.Fatal("a claimed item was analysed")
	}
	ana.want(2, "claim", id, "--ttl", "10s")

	// Notes and the team fields.
	ana.want(0, "note", id, "Customer called, new scan coming.")
	out, _ := ana.want(0, "items", "--json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range items {
		for _, k := range []string{"revision", "claimed_by", "claim_expires_at", "status_since", "notes_count"} {
			if _, ok := it[k]; !ok {
				t.Fatalf("items --json lacks %q", k)
			}
		}
		if it["id"] == id {
			found = true
			if it["claimed_by"] != "ana" || it["notes_count"] != 1.0 || it["revision"] != 2.0 || it["claim_expires_at"] == nil { // the note moved it, the claim did not
				t.Fatalf("the claimed item: %v", it)
			}
		}
	}
	if !found {
		t.Fatal("item not listed")
	}
	ben.want(0, "sync")
	out, _ = ben.want(0, "item", id)
	for _, want := range []string{"revision: 2", "claim: ana until", "ana: Customer called, new scan coming."} {
		if !strings.Contains(out, want) {
			t.Fatalf("item lacks %q:\n%s", want, out)
		}
	}
	ana.want(0, "release", id)

	// Both re-submit one item: one analysis; the other exits 6 naming what.
	other := srv.FindCode("INTERNAL_ERROR")
	ana.want(0, "resubmit", other)
	_, errs := ben.want(6, "resubmit", other)
	if !strings.Contains(errs, "ITEM_CHANGED") || !strings.Contains(errs, "re-analysed") || !strings.Contains(errs, "score") {
		t.Fatalf("ben: %s", errs)
	}
	if srv.Analyses(other) != 1 {
		t.Fatalf("analyses %d", srv.Analyses(other))
	}

	// A note written offline: exit 5, then once after a flush.
	srv.Refuse()
	ben.want(5, "note", other, "Written on the train.")
	if err := srv.Accept(); err != nil {
		t.Fatal(err)
	}
	if out, _ := ben.want(0, "flush"); !strings.Contains(out, "1 notes: 1 added") {
		t.Fatalf("flush: %s", out)
	}
	ben.want(0, "flush")
	if n := srv.Notes(other); len(n) != 1 || n[0].Author != "ben" {
		t.Fatalf("notes %+v", n)
	}

	// Next claims the oldest item nobody holds.
	out, _ = ben.want(0, "next", "--json")
	var next map[string]any
	if err := json.Unmarshal([]byte(out), &next); err != nil || next["claimed"] != true {
		t.Fatalf("next: %s %v", out, err)
	}
	nid := next["item"].(map[string]any)["id"].(string)
	if srv.ClaimOf(nid) != "ben" {
		t.Fatalf("next did not claim %s", nid)
	}
}

func TestTeamCommandsOnAVersion10Service(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, screenapi.Version10)
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	if out, _ := ana.want(0, "me"); !strings.Contains(out, "local-ana") || !strings.Contains(out, "does not offer") {
		t.Fatalf("me: %s", out)
	}
	for _, args := range [][]string{{"claim", id}, {"release", id}, {"note", id, "hello"}} {
		if _, errs := ana.want(3, args...); !strings.Contains(errs, "this service does not offer") {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	if out, _ := ana.want(0, "next"); !strings.Contains(out, "does not offer claims") {
		t.Fatalf("next: %s", out)
	}
	ana.want(0, "resubmit", id)
	out, _ := ana.want(0, "items", "--json")
	var items []map[string]any
	json.Unmarshal([]byte(out), &items)
	if items[0]["revision"] != nil || items[0]["claimed_by"] != nil {
		t.Fatalf("a 1.0 item: %v", items[0])
	}
}
