package reliability

import (
	"sync"
	"testing"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// benToken is the second reviewer's token on the upgraded-cache race.
const benToken = "reliability-test-token-ben"

// TestUpgradedCachesRace: two reviewers whose caches know no revision (made
// before the cache kept revisions, or synced from a 1.0 service) confirm a
// bulk re-submission of the same items at the same moment. Every re-run
// fails again with a code a re-run may help, so a blind second
// re-submission would be accepted and paid. Each item must be analysed
// once, and every POST must carry If-Match.
func TestUpgradedCachesRace(t *testing.T) {
	rounds := 2
	if full {
		rounds = 6
	}
	for round := 0; round < rounds; round++ {
		svc := startService(t, screenapi.Options{Reviewers: []screenapi.Reviewer{{Name: "ben", DisplayName: "Ben", Token: benToken}}})
		var ids []string
		for _, it := range svc.items() {
			if retryable(it) {
				ids = append(ids, it.ID)
				svc.Script(it.ID, screenapi.Outcome{Code: string(policy.CodeClassifierTimeout)},
					screenapi.Outcome{Code: string(policy.CodeClassifierTimeout)})
			}
		}
		ana := newConsole(t, t.TempDir(), svc.url)
		ben := newConsole(t, t.TempDir(), svc.url)
		ben.env["REVIEWER_API_TOKEN"], ben.env["REVIEWER_NAME"] = benToken, "ben"
		for _, c := range []*console{ana, ben} {
			c.must(0, "sync")
			db := openCache(t, c.db())
			if _, err := db.Exec(`UPDATE items SET revision = 0`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`DELETE FROM sync_state WHERE key = 'full_sync_due'`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		var wg sync.WaitGroup
		runs := make([]run, 2)
		for i, c := range []*console{ana, ben} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i] = c.run("resubmit", "--retryable", "--yes")
			}()
		}
		wg.Wait()
		for _, r := range runs {
			// 0: all done; 6: some ended ITEM_CHANGED (the other reviewer
			// got there first). Never unknown, never a crash.
			if r.code != 0 && r.code != 6 {
				t.Fatalf("round %d: %s", round, r)
			}
		}
		paid := 0
		for _, id := range ids {
			n := svc.Analyses(id)
			if n != 1 {
				t.Errorf("round %d: item %s analysed %d times, want 1", round, id, n)
			}
			paid += n
		}
		svc.mu.Lock()
		blind := svc.blindPosts
		svc.mu.Unlock()
		if blind != 0 {
			t.Errorf("round %d: %d POSTs went out with no If-Match", round, blind)
		}
		if t.Failed() {
			t.FailNow()
		}
		t.Logf("round %d: %d items, %d analyses, both bulk runs at once", round, len(ids), paid)
	}
}
