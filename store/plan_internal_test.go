package store

import (
	"context"
	"strings"
	"testing"
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
