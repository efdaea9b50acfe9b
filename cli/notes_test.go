package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A note written while the service is unreachable waits in its own outbox
// (contract 1.1): 'reviewer outbox' lists it beside the actions, says it
// costs nothing, and 'cancel nID' withdraws it before it is ever sent.
func TestOutboxListsQueuedNotesAndCancelsThem(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, "")
	id := srv.FindCode("CLASSIFIER_TIMEOUT")
	other := srv.FindCode("INTERNAL_ERROR")
	srv.Refuse()
	ana.want(5, "note", id, "Customer called, new scan coming.")
	ana.want(5, "note", other, "Second note.")
	ana.want(5, "resubmit", other)

	out, _ := ana.want(0, "outbox", "--json")
	var box []map[string]any
	if err := json.Unmarshal([]byte(out), &box); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var notes, paid int
	var ref, otherRef string
	for _, e := range box {
		switch e["kind"] {
		case "note":
			notes++
			if e["paid"] != false || e["state"] != "queued" || e["idempotency_key"] == "" {
				t.Fatalf("a queued note: %v", e)
			}
			if e["item_id"] == id {
				ref, _ = e["ref"].(string)
				if e["text"] != "Customer called, new scan coming." {
					t.Fatalf("the note's text: %v", e)
				}
			} else {
				otherRef, _ = e["ref"].(string)
			}
		case "resubmit":
			if e["paid"] != true {
				t.Fatalf("a re-submission is a paid analysis: %v", e)
			}
			paid++
		}
	}
	if notes != 2 || paid != 1 || !strings.HasPrefix(ref, "n") {
		t.Fatalf("outbox: %s", out)
	}
	if out, _ := ana.want(0, "outbox"); !strings.Contains(out, ref) || !strings.Contains(out, "note") ||
		!strings.Contains(out, "free") || !strings.Contains(out, "paid") {
		t.Fatalf("outbox table: %s", out)
	}

	// Withdrawn before it was sent: it never reaches the service.
	if out, _ := ana.want(0, "cancel", ref); !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel %s: %s", ref, out)
	}
	ana.want(2, "cancel", "nope")
	if err := srv.Accept(); err != nil {
		t.Fatal(err)
	}
	ana.want(0, "flush")
	if n := srv.Notes(id); len(n) != 0 {
		t.Fatalf("a cancelled note was sent: %+v", n)
	}
	if n := srv.Notes(other); len(n) != 1 {
		t.Fatalf("the other note: %+v", n)
	}
	if out, _ := ana.want(0, "outbox", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("outbox after the flush: %s", out)
	}
	// A note that was sent is settled: it cannot be cancelled.
	if _, errs := ana.want(3, "cancel", otherRef); !strings.Contains(errs, "settled") {
		t.Fatalf("cancel of a sent note: %s", errs)
	}
}
