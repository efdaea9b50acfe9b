package cli_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// clearableIn is the batch holding the most scored items of the low band
// (default bands) recommended forward and undecided, and those items.
func clearableIn(t *testing.T, srv *screenapi.Server) (string, []string) {
	t.Helper()
	var low []policy.RawItem
	srv.Find(func(it policy.RawItem) bool { // under the service's lock: no other call of it here
		if it.Status == "scored" && it.RiskScore != nil && *it.RiskScore >= 0 && *it.RiskScore < 40 &&
			it.Recommendation != nil && *it.Recommendation == "forward" {
			low = append(low, it)
		}
		return false
	})
	by := map[string][]string{}
	for _, it := range low {
		if len(srv.Decisions(it.ID)) == 0 {
			by[it.BatchID] = append(by[it.BatchID], it.ID)
		}
	}
	best := ""
	for b, ids := range by {
		if best == "" || len(ids) > len(by[best]) || len(ids) == len(by[best]) && b < best {
			best = b
		}
	}
	if best == "" {
		t.Fatal("no batch holds a clearable item")
	}
	return best, by[best]
}

var clearHeadline = regexp.MustCompile(`Clear (\d+) items? \(reason DOC_GENUINE\): no paid analysis`)

// TestBulkClearOnTheCommandLine: the plan is printed first with what it
// leaves out; a reason the list does not give for a clear, and a bulk
// reject, are refused before anything is queued; without a terminal and
// without --yes nothing is queued; confirmed, each planned item gets one
// clear, with the run's reason; a 1.1 service is told in words.
func TestBulkClearOnTheCommandLine(t *testing.T) {
	srv, ana, _ := teamHarnesses(t, screenapi.Version12)
	batch, clear := clearableIn(t, srv)
	before := srv.Arrivals(screenapi.EPDecision)
	if _, errs := ana.want(2, "bulk", "reject", "--reason", "DOC_TAMPERED", "--batch", batch); !strings.Contains(errs, "one item at a time") {
		t.Fatalf("a bulk reject: %s", errs)
	}
	ana.want(2, "bulk", "clear", "--batch", batch)
	if _, errs := ana.want(3, "bulk", "clear", "--reason", "DOC_TAMPERED", "--batch", batch, "--yes"); !strings.Contains(errs, "cannot be given to clear") {
		t.Fatalf("a reject's reason for a clear: %s", errs)
	}
	out, _ := ana.want(0, "bulk", "clear", "--reason", "DOC_GENUINE", "--batch", batch, "--dry-run")
	m := clearHeadline.FindStringSubmatch(out)
	if m == nil || m[1] != itoa(len(clear)) || !strings.Contains(out, "dry run: nothing queued") {
		t.Fatalf("dry run, %d to clear, printed:\n%s", len(clear), out)
	}
	ana.want(2, "bulk", "clear", "--reason", "DOC_GENUINE", "--batch", batch) // no terminal, no --yes
	if o, _ := ana.want(0, "outbox", "--json"); strings.TrimSpace(o) != "[]" || srv.Arrivals(screenapi.EPDecision) != before {
		t.Fatalf("a refusal queued or sent something: %s", o)
	}
	out, _ = ana.want(0, "bulk", "clear", "--reason", "DOC_GENUINE", "--comment", "checked by hand", "--batch", batch, "--yes")
	if !clearHeadline.MatchString(out) || !strings.Contains(out, "done, 0 refused by the API, 0 unknown, 0 still queued") {
		t.Fatalf("the run printed:\n%s", out)
	}
	for _, id := range clear {
		if ds := srv.Decisions(id); len(ds) != 1 || ds[0].Outcome != "clear" || ds[0].ReasonCode != "DOC_GENUINE" || ds[0].State != "final" {
			t.Fatalf("%s at the service: %+v", id, ds)
		}
	}
	if n := srv.Arrivals(screenapi.EPDecision) - before; n != len(clear) {
		t.Fatalf("%d decisions arrived for %d items", n, len(clear))
	}
	// Again: each is decided now, and left out for it.
	if out, _ := ana.want(0, "bulk", "clear", "--reason", "DOC_GENUINE", "--batch", batch, "--yes"); !strings.Contains(out, "already ha") ||
		!strings.Contains(out, "nothing to do: no call made") {
		t.Fatalf("a second run printed:\n%s", out)
	}

	old, ana11, _ := teamHarnesses(t, screenapi.Version11)
	b11, _ := clearableIn(t, old)
	if _, errs := ana11.want(3, "bulk", "clear", "--reason", "DOC_GENUINE", "--batch", b11, "--yes"); !strings.Contains(errs, "this service does not take decisions") {
		t.Fatalf("1.1: %s", errs)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
