package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// The window's search finds batches by id and customer, and items by id and
// file name (naming the item that matched), and finds nothing for nothing.
func TestSearchFindsItemsByIdFileNameAndCustomer(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	var page []policy.Batch
	// The oldest batch lies outside the search's scope of newest batches.
	for n := 0; n <= store.SearchScope; n++ {
		id := fmt.Sprintf("bat_%05d", n)
		it := scored(fmt.Sprintf("itm_%05d", n), id, 10, t0)
		it.FileName = fmt.Sprintf("scan-%05d.jpg", n)
		page = append(page, batchOf(id, t0.Add(time.Duration(n)*time.Second), it))
	}
	if _, err := db.Sync.ApplyPage(ctx, page); err != nil {
		t.Fatal(err)
	}
	newest := fmt.Sprintf("bat_%05d", store.SearchScope)
	for _, tc := range []struct {
		search, batch, item, file string
		n                         int
	}{
		{"CUST-" + newest, newest, "", "", 1}, // customer: the batch itself
		{newest, newest, "", "", 1},           // batch id
		{fmt.Sprintf("scan-%05d", store.SearchScope-3), fmt.Sprintf("bat_%05d", store.SearchScope-3), // part of a file name
			fmt.Sprintf("itm_%05d", store.SearchScope-3), fmt.Sprintf("scan-%05d.jpg", store.SearchScope-3), 1},
		{"itm_00000", "bat_00000", "itm_00000", "scan-00000.jpg", 1}, // a whole item id, outside the scope
		{"nothing-like-this", "", "", "", 0},
		{`scan\`, "", "", "", 0}, // a backslash is a character, not an escape
	} {
		got, err := db.Items.Batches(ctx, policy.DefaultBands(), tc.search, 500)
		if err != nil {
			t.Fatalf("%q: %v", tc.search, err)
		}
		if len(got) != tc.n {
			t.Fatalf("%q: %d batches, want %d", tc.search, len(got), tc.n)
		}
		if tc.n == 1 && (got[0].ID != tc.batch || got[0].MatchItem != tc.item || got[0].MatchFile != tc.file || got[0].Items != 1) {
			t.Fatalf("%q: %+v", tc.search, got[0])
		}
	}
}

// A search for a part of a file name looks into the newest batches only: on
// a cache of 100,000 items in 10,000 batches it stays near the time of the
// list without a search.
func BenchmarkSearch100k(b *testing.B) {
	db := bigCache(b)
	ctx := context.Background()
	for _, s := range []string{"b0999", "b09999_03", "03.jpg", "no-such-thing"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				if _, err := db.Items.Batches(ctx, policy.DefaultBands(), s, 500); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A batch's scored items are counted by risk band, so that a critical
// score is never counted as good; the bands are configuration.
func TestBatchesCountScoredItemsByBand(t *testing.T) {
	db := MustOpenDB(t)
	ctx := context.Background()
	bt := batchOf("bat_1", t0, scored("a", "bat_1", 10, t0), scored("b", "bat_1", 50, t0), scored("c", "bat_1", 75, t0),
		scored("d", "bat_1", 90, t0), failed("e", "bat_1", policy.CodeDecodeFailed, t0))
	if _, err := db.Sync.ApplyPage(ctx, []policy.Batch{bt}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bands *policy.Bands
		want  [4]int
	}{{nil, [4]int{1, 1, 1, 1}}, {&policy.Bands{Medium: 60, High: 80, Critical: 95}, [4]int{2, 1, 1, 0}}} {
		var bands policy.Bands // not valid: the default bands
		if tc.bands != nil {
			bands = *tc.bands
		}
		got, err := db.Items.Batches(ctx, bands, "", 10)
		if err != nil || len(got) != 1 {
			t.Fatal(got, err)
		}
		if got[0].Bands != tc.want || got[0].Scored != 4 || got[0].Errors != 1 {
			t.Fatalf("bands %v: %+v", tc.bands, got[0])
		}
	}
}
