package review

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sort"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// SyncProgress is reported after each applied page. It counts what this
// sync received and wrote: another process syncing the same cache at the
// same time counts its own.
type SyncProgress struct {
	Pages   int // pages applied
	Batches int // batches received
	Items   int // items received
	Changed int // items written (new or changed) by this sync
	Invalid int // items that broke the contract, stored as invalid
	// Held is how many batches came again that the cache already held as
	// they are before this sync began (the newest instant of the last
	// sync: "updated_since" is at or after), or that came earlier in this
	// sync; they are not written nor counted in Batches and Items.
	Held int
	// ByOthers is how many of the batches received (counted in Batches
	// and Items) the cache already held as they are because another sync
	// of it, running at the same time, wrote them first: they are not
	// written again, so their items are not in Changed.
	ByOthers int
	// Ahead is how many batches came dated further ahead of the console's
	// clock than policy.MaxClockSkew: they are stored, but the sync
	// position does not move to their date (their items dated ahead are
	// stored as invalid).
	Ahead int
	// NewItems, when a sync ends, are the items that need the reviewer
	// now and did not before it, sorted ("3 new items need you"). None
	// after a first sync (it brings everything: that is no news), a sync
	// that wrote nothing, or a read of the cache that failed: a failed
	// read claims no news.
	NewItems []string
}

// Sync pulls the batches changed since the newest one in the cache, page by
// page. Each page is applied in one transaction, and the sync position moves
// with it, so a sync cut short resumes where it stopped. A page that is not
// JSON is not applied at all and ends the sync with its error; an item of
// a page that cannot be read is stored as invalid, with the text it came
// as, and the rest of the page is applied (client.ListBatches). A service
// whose pages never end is stopped (fetchPages). Actions in the outbox are
// never touched.
//
// The next page is fetched while the current one is written (the cursor
// comes with the page, before it is written): the service, the decoding and
// SQLite work at the same time. At most two pages are in memory; one
// fetched but not written when the sync stops is fetched again next time.
func (s *SyncService) Sync(ctx context.Context, progress func(SyncProgress)) (SyncProgress, error) {
	var p SyncProgress
	since, err := s.db.Sync.SyncPosition(ctx)
	if err != nil {
		return p, err
	}
	// What the cache held before this sync began: a batch held as it is
	// and changed after it came from another sync running at the same time.
	started := since.UnixMilli()
	// Items that a field the service now fills left empty (the revision)
	// are only mended by fetching every batch again: an incremental sync
	// brings changed batches only. A cache that last saw a 1.0 service
	// asks first whether it speaks 1.1 now, so that this sync, not the
	// next one, is the full one.
	if s.apiVersion() == "1.0" {
		s.identifyOnce(ctx)
	}
	full, err := s.db.Sync.FullSyncDue(ctx)
	if err != nil {
		return p, err
	}
	lastSync, err := s.db.Sync.LastSync(ctx)
	if err != nil {
		return p, err
	}
	var before *needSnapshot // what needed the reviewer before the first write
	snapped := lastSync.IsZero()
	if full != "" {
		since = time.Time{}
	}
	// The sync's context ended: the reviewer cancelled it (Cancel in the
	// window, Ctrl-C), or its caller's deadline passed. Only the second is
	// a deadline.
	cancelled := func() error {
		pages := fmt.Sprintf("%d pages", p.Pages)
		if p.Pages == 1 {
			pages = "1 page"
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return policy.Errorf(policy.CodeDeadlineExceeded, "sync ran out of time after %s", pages)
		}
		return policy.Errorf(policy.CodeCancelled, "sync cancelled by you after %s", pages)
	}
	fctx, stop := context.WithCancel(ctx)
	pages := s.fetchPages(fctx, since)
	defer func() {
		stop()
		for range pages { // the fetcher has ended when its channel closes
		}
	}()
	for f := range pages {
		if ctx.Err() != nil {
			return p, cancelled()
		}
		if f.err != nil {
			rctx, cancel := recordCtx(ctx)
			_ = s.db.Evidence.RecordAttempts(rctx, "", "sync", f.attempts)
			if e, ok := client.AsError(f.err); ok && e.Code == policy.CodeRateLimited {
				_ = s.db.Sync.SetRateLimitedUntil(rctx, e.RetryAfter)
			}
			cancel()
			if ctx.Err() != nil {
				return p, cancelled()
			}
			return p, fmt.Errorf("sync stopped after %d pages: %w", p.Pages, f.err)
		}
		now := s.now()
		for i := range f.page.Batches {
			if policy.HoldBackFuture(&f.page.Batches[i], now) {
				p.Ahead++
			}
		}
		if !snapped && changesAfter(f.page.Batches, since) {
			before, snapped = s.needsYou(ctx), true
		}
		n, err := s.db.Sync.ApplyPage(ctx, f.page.Batches)
		if err != nil {
			if ctx.Err() != nil {
				return p, cancelled()
			}
			return p, fmt.Errorf("sync: writing page %d: %w", p.Pages+1, err)
		}
		p.Pages++
		p.Changed += n.Items
		for _, b := range f.page.Batches {
			p.Batches++
			p.Items += len(b.Items)
			p.Invalid += invalidItems(b)
		}
		for _, i := range n.HeldIndexes {
			b := f.page.Batches[i]
			if b.UpdatedAt.UnixMilli() > started && !f.again(i) {
				// Neither in the cache before this sync nor written by
				// it: another sync of this cache took it in first.
				p.ByOthers++
				continue
			}
			p.Held++
			p.Batches--
			p.Items -= len(b.Items)
			p.Invalid -= invalidItems(b)
		}
		if progress != nil {
			progress(p)
		}
	}
	if ctx.Err() != nil {
		return p, cancelled()
	}
	if err := s.db.Sync.SetLastSync(ctx, s.now()); err != nil {
		return p, err
	}
	if full != "" {
		if err := s.db.Sync.FullSyncDone(ctx, full); err != nil {
			return p, err
		}
	}
	// identity.go: who am I, and does the service speak 1.1. Asked after the
	// pages, so that the first page keeps a connection of its own.
	s.identifyOnce(ctx)
	// decisions.go: the reason list, kept for offline work; after the
	// pages, as who she is, so that a sync that fails changes nothing more.
	(&Decisions{s.core}).refreshReasons(ctx)
	if before != nil && p.Changed > 0 {
		p.NewItems = newlyNeeding(before, s.needsYou(ctx))
	}
	if !lastSync.IsZero() { // news.go: what answers outside the sync brought
		p.NewItems = s.withNoticed(ctx, p.NewItems)
	}
	return p, nil
}

// "5 new items need you": the items that need the reviewer after a sync
// and did not before it. The reads before and after see at most
// newsLimit rows of the listing of what needs action.

// defaultNewsLimit is how many rows of the listing of what needs action a
// news check reads, before and after a sync.
const defaultNewsLimit = 5000

// needSnapshot is what needed the reviewer at one moment, as far as a
// read of the first newsLimit rows of the listing saw.
type needSnapshot struct {
	needs map[string]bool // the items that needed the reviewer
	read  []string        // every row read (needing or not), in the listing's order
	cut   bool            // the listing holds more: what sorts after the read is unknown
}

// changesAfter reports whether a page brings a batch changed after the
// sync position: only then is what needs the reviewer read before the page
// is written. The batches of the position's own instant come again on
// every sync ("at or after") and are almost always held as they are; an
// idle sync so reads nothing more. A batch at the position that did change
// (the service changed it without moving its updated_at) can only be
// missed as news, never make up news.
func changesAfter(batches []policy.Batch, since time.Time) bool {
	for _, b := range batches {
		if since.IsZero() || b.UpdatedAt.After(since) {
			return true
		}
	}
	return false
}

// needsYou reads what needs the reviewer, across all batches; nil when the
// read fails.
func (s *core) needsYou(ctx context.Context) *needSnapshot {
	limit := s.newsLimit
	if limit <= 0 {
		limit = defaultNewsLimit
	}
	f := store.ItemFilter{NeedsAction: true, Limit: limit + 1} // one more: was it cut?
	snap := &needSnapshot{needs: map[string]bool{}}
	// Each row as it is read: only the ids are kept.
	if err := s.eachItem(ctx, f, func(r ItemView) error {
		snap.read = append(snap.read, r.ID)
		if r.NeedsReviewer() {
			snap.needs[r.ID] = true
		}
		return nil
	}); err != nil {
		return nil
	}
	snap.cut = len(snap.read) > limit
	return snap
}

// newlyNeeding lists, sorted, what needs the reviewer after and did not
// before; a failed read says nothing (nil): no claim of news.
//
// When the read before stopped at its limit, only the rows of the read
// after up to and including the last row of the read before still listed
// count: further down, a row moved up into the read after (because rows
// above it stopped needing action) may well have needed the reviewer
// before, out of sight. That takes the listing's order (store.ItemsQuery:
// newest batch first, then item id) to be the same for an item in both
// reads, which holds while the service keeps an item in its batch and a
// batch's creation time. When the two reads share no row, the rows after
// are all new (more new batches came than a read holds, after a long
// time offline): every row of the read before leaving the listing in one
// sync is far less likely.
func newlyNeeding(before, after *needSnapshot) []string {
	if before == nil || after == nil {
		return nil
	}
	end := len(after.read)
	if before.cut {
		seen := make(map[string]bool, len(before.read))
		for _, id := range before.read {
			seen[id] = true
		}
		last := -1
		for i, id := range after.read {
			if seen[id] {
				last = i
			}
		}
		if last >= 0 {
			end = last + 1
		}
	}
	var ids []string
	for _, id := range after.read[:end] {
		if after.needs[id] && !before.needs[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// invalidItems is how many items of a batch broke the contract.
func invalidItems(b policy.Batch) int {
	n := 0
	for _, it := range b.Items {
		if it.Status == policy.StatusInvalid {
			n++
		}
	}
	return n
}

// fetched is a page, or the error that ended the fetching.
type fetched struct {
	page     client.Page
	attempts []policy.Attempt
	err      error
	// repeats marks the page's batches that came earlier in this sync at
	// the same updated_at (or a newer one); nil when none did.
	repeats []bool
}

// again reports whether the page's batch i came earlier in this sync.
func (f fetched) again(i int) bool { return f.repeats != nil && f.repeats[i] }

// fetchPages fetches the pages one after the other into a channel that
// holds one page ahead of the writer; it ends after the last page, an
// error, or when ctx ends.
//
// A service whose pages never end (a cursor that never comes back empty)
// would be paged for ever. The fetcher stops, with an INVALID_RESPONSE
// error that says the service misbehaves, after the first page that names
// a next page although:
//   - its cursor was handed out before (the pages go in a circle);
//   - it brings nothing new: every batch on it came earlier in this sync
//     at the same updated_at (or it is empty);
//   - there are more pages than the batches received could fill: the
//     service asked for at most pageSize per page has sent more pages than
//     distinct batches, plus one (the same batch at a new updated_at on
//     page after page);
//   - it reached the most pages one sync reads (Config.MaxSyncPages): a
//     service that makes up a new batch on every page is told apart from
//     real data by nothing else.
//
// Each batch of the sync is remembered by a 64-bit hash of its id, with
// the newest updated_at it came with: some 40 bytes a batch in a Go map
// (about 4 MB for the 100,000 batches of a 1,000,000-item sync).
func (s *core) fetchPages(ctx context.Context, since time.Time) <-chan fetched {
	out := make(chan fetched, 1)
	go func() {
		defer close(out)
		cursor := ""
		// The cursors already asked for: a service that hands one out
		// again would page in a circle for ever (and rewrite the same
		// batches); that is a broken answer, not more pages.
		asked := map[string]bool{}
		seed := maphash.MakeSeed()
		seen := map[uint64]int64{} // batch id: the newest updated_at it came with
		for pages := 1; ctx.Err() == nil; pages++ {
			asked[cursor] = true
			page, attempts, err := s.api.ListBatches(ctx, since, cursor, s.pageSize)
			if ctx.Err() == nil { // a call the reviewer cancelled says nothing about the API
				s.observe(err)
			}
			var repeats []bool
			fresh := 0
			for i, b := range page.Batches {
				k, at := maphash.String(seed, b.ID), b.UpdatedAt.UnixNano()
				if last, ok := seen[k]; !ok || at > last {
					seen[k] = at
					fresh++
				} else {
					if repeats == nil {
						repeats = make([]bool, len(page.Batches))
					}
					repeats[i] = true
				}
			}
			select {
			case out <- fetched{page: page, attempts: attempts, err: err, repeats: repeats}:
			case <-ctx.Done():
				return
			}
			if err != nil || page.NextCursor == "" {
				return
			}
			var why string
			switch {
			case asked[page.NextCursor]:
				why = fmt.Sprintf("it handed out a page cursor it had already given (%q)", page.NextCursor)
			case fresh == 0:
				why = fmt.Sprintf("page %d brought nothing new (every batch on it came earlier in this sync at the same updated_at) yet named a next page", pages)
			case pages > len(seen)+1:
				why = fmt.Sprintf("it sent %d pages for %d distinct batches, more pages than its batches could fill", pages, len(seen))
			case pages >= s.maxSyncPages():
				why = fmt.Sprintf("it sent %d pages, the most one sync reads (REVIEWER_SYNC_MAX_PAGES), each naming a next one", pages)
			}
			if why != "" {
				loop := &client.Error{Code: policy.CodeInvalidResponse, Class: client.ClassBadAnswer, HTTPStatus: 200,
					Message: "the service misbehaves: " + why + ": its pages would never end; the pages received were kept"}
				select {
				case out <- fetched{err: loop}:
				case <-ctx.Done():
				}
				return
			}
			cursor = page.NextCursor
		}
	}()
	return out
}

func (s *core) maxSyncPages() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.syncPages <= 0 {
		return policy.DefaultMaxSyncPages
	}
	return s.syncPages
}
