package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
	"github.com/trustscreen/reviewer/screenapi"
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

// A flush that waits out a 429 sends the notes the wait held back too,
// after the action, each once: a note used to be left queued while the
// flush printed "0 still queued" and exited 0.
func TestAFlushThatWaitsOutA429SendsTheQueuedNoteToo(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	h.srv.Refuse()
	h.want(cli.ExitQueued, "note", id, "Customer called, new scan coming.")
	if err := h.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	// The action meets a 429: it waits, queued, until its Retry-After, and
	// so does everything a flush would send.
	other := h.srv.FindCode("INTERNAL_ERROR")
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPResubmit, RetryAfter: "4", Times: 1})
	h.want(cli.ExitQueued, "resubmit", other)
	if n := h.srv.Arrivals(screenapi.EPNote); n != 0 {
		t.Fatalf("%d notes arrived before the flush", n)
	}

	code, out, errs := h.run("flush")
	if notes := h.srv.Notes(id); len(notes) != 1 || notes[0].Text != "Customer called, new scan coming." || h.srv.Arrivals(screenapi.EPNote) != 1 {
		t.Fatalf("the note at the service: %+v (%d arrivals), want it once\nexit %d\nstdout: %s\nstderr: %s",
			notes, h.srv.Arrivals(screenapi.EPNote), code, out, errs)
	}
	if code != cli.ExitOK || !strings.Contains(errs, "1 action and 1 note are queued: the API is rate limiting until") ||
		!strings.Contains(errs, "waiting to send them then") {
		t.Fatalf("the flush did not wait for the action and the note: exit %d: %s", code, errs)
	}
	if h.srv.Analyses(other) != 1 {
		t.Fatalf("%d analyses of the action's item, want 1", h.srv.Analyses(other))
	}
	if !strings.HasPrefix(out, "flushed 1 action: 1 done, 0 refused by the API, 0 unknown, 0 still queued") ||
		!strings.Contains(out, "1 notes: 1 added, 0 refused, 0 unknown, 0 still queued") {
		t.Fatalf("summary: %s", out)
	}
	if out, _ := h.want(0, "outbox", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("outbox after the flush: %s", out)
	}
}

// A flush during a rate-limit wait longer than it waits sends no note,
// and says the note is still queued, with exit 5 (queued), never "0 still
// queued" and 0.
func TestAFlushSummaryCountsTheNotesItLeavesQueued(t *testing.T) {
	h := newHarness(t)
	h.want(0, "sync")
	id := h.srv.FindCode("CLASSIFIER_TIMEOUT")
	h.srv.Refuse()
	h.want(cli.ExitQueued, "note", id, "Customer called.")
	if err := h.srv.Accept(); err != nil {
		t.Fatal(err)
	}
	// A sync meets the 429: the wait is the cache's, and nothing is queued
	// but the note.
	h.srv.SetFault(screenapi.Fault{Kind: screenapi.FaultRateLimit, Endpoint: screenapi.EPBatches, RetryAfter: "600", Times: 1})
	h.want(cli.ExitReadFailed, "sync")

	out, _ := h.want(cli.ExitQueued, "flush")
	if !strings.HasPrefix(out, "flushed 0 actions") || !strings.Contains(out, "; 1 note still queued: the API is rate limiting until ") {
		t.Fatalf("summary: %s", out)
	}
	if n := h.srv.Arrivals(screenapi.EPNote); n != 0 {
		t.Fatalf("%d notes sent during the wait", n)
	}
	if out, _ := h.want(0, "outbox", "--json"); !strings.Contains(out, `"kind": "note"`) || !strings.Contains(out, `"state": "queued"`) {
		t.Fatalf("outbox: %s", out)
	}
}
