package store

import (
	"context"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// "A scored item does not age" is policy.Waits; the listings' age filter
// and OldestWaiting say it in SQL (waitingSQL). SQLite itself judges every
// status here, and a status this console does not know yet, as Waits does.
func TestWaitingSQLIsPolicyWaits(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	statuses := append(policy.Statuses(), "some_future_status")
	waited := 0
	for _, st := range statuses {
		var got bool
		if err := db.db.QueryRowContext(context.Background(), `SELECT `+waitingSQL+` FROM (SELECT ? AS status) AS i`, string(st)).Scan(&got); err != nil {
			t.Fatalf("%s: %v", waitingSQL, err)
		}
		if want := policy.Waits(st); got != want {
			t.Errorf("%s: waits %v in SQL (%s), %v in policy", st, got, waitingSQL, want)
		}
		if got {
			waited++
		}
	}
	if waited == 0 || waited == len(statuses) {
		t.Errorf("%s: %d of %d statuses wait; the test holds nothing", waitingSQL, waited, len(statuses))
	}
}
