package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The triage list over 100k items stays instant only while SQLite walks
// batches by index and stops at the LIMIT; a full sort takes 40x longer
// (see BenchmarkCache100k). Guard the plan.
func TestDefaultListWalksBatchesByIndex(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN SELECT "+itemColumns+listFrom+
		` WHERE i.status = 'error' ORDER BY b.created_at DESC, b.id DESC, i.id LIMIT 500`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var a, b, c int
		var d string
		if err := rows.Scan(&a, &b, &c, &d); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, d)
	}
	all := strings.Join(plan, "\n")
	if !strings.HasPrefix(plan[0], "SCAN b USING INDEX batches_created") || strings.Contains(all, "TEMP B-TREE FOR ORDER BY") {
		t.Fatalf("plan:\n%s", all)
	}
}

// TestNeedsMyActionOnDecisionsStaysOneWalk: on 1.2 the needs-action
// listing and next read the current decision from the item's own row: no
// read of the decisions table, no sort, the same walk of batches by index.
func TestNeedsMyActionOnDecisionsStaysOneWalk(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	explain := func(q string, args ...any) string {
		rows, err := db.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var a, b, c int
			var d string
			if err := rows.Scan(&a, &b, &c, &d); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, d)
		}
		return strings.Join(plan, "\n")
	}
	// The plan of the listing without the filter is the measure: the
	// filter adds no step to it.
	q0, args0 := ItemsQuery(ItemFilter{Limit: 500}, time.Now())
	q, args := ItemsQuery(ItemFilter{NeedsAction: true, Me: "ana", Limit: 500}, time.Now())
	list := explain(q, args...)
	if list != explain(q0, args0...) || !strings.HasPrefix(list, "SCAN b USING INDEX batches_created") || strings.Contains(list, "decisions") {
		t.Fatalf("the needs-action listing's plan:\n%s", list)
	}
	needs, nargs := needsSQL("ana")
	next := explain(`SELECT i.id FROM items i`+newestAction+` WHERE `+needs+` ORDER BY i.since, i.id LIMIT 10`, nargs...)
	if strings.Contains(next, "decisions") || !strings.Contains(next, "items_since") {
		t.Fatalf("next's plan:\n%s", next)
	}
}

// TestAwaitingMyConfirmationReadsOnlyItsIndex: the view "awaiting my
// confirmation" reads the partial index of the items whose decision
// awaits a second reviewer, not every item.
func TestAwaitingMyConfirmationReadsOnlyItsIndex(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sortBy := range []string{"since", ""} {
		f := ItemFilter{SortBy: sortBy, Me: "ana", Limit: 500}
		f.AwaitingConfirmation = true
		q, args := ItemsQuery(f, time.Now())
		rows, err := db.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var a, b, c int
			var d string
			if err := rows.Scan(&a, &b, &c, &d); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, d)
		}
		rows.Close()
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "USING INDEX items_awaiting_confirmation") && !strings.Contains(all, "USING COVERING INDEX items_awaiting_confirmation") {
			t.Fatalf("sorted by %q, the plan:\n%s", sortBy, all)
		}
	}
}
