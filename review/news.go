package review

import (
	"context"
	"slices"
	"sync"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Items that an answer outside a sync brought into the cache: a claim's
// or a release's answer, the read of an item after a note, an item's file
// versions. Such an answer carries the item as the service has it now,
// another reviewer's change included, and writes it to the cache before
// the next sync; that sync then found the item needing the reviewer both
// before and after it, and said nothing. So the item that such a write
// made need the reviewer is kept here, and the next sync that ends tells
// it with its own news (SyncProgress.NewItems), if it still needs her.

// noticed is the items a write outside a sync made need the reviewer,
// not yet told by a sync.
type noticed struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (n *noticed) add(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ids == nil {
		n.ids = map[string]bool{}
	}
	n.ids[id] = true
}

func (n *noticed) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, 0, len(n.ids))
	for id := range n.ids {
		out = append(out, id)
	}
	n.ids = nil
	return out
}

// applyAnswered writes an item that an answer outside a sync carried, as a
// sync would, and keeps it for the next sync's news when the write made it
// need the reviewer.
func (s *core) applyAnswered(ctx context.Context, it policy.Item, reviewer, event, detail string) error {
	was, known := s.needsReviewer(ctx, it.ID)
	if err := s.db.Sync.ApplyItem(ctx, it, reviewer, event, detail); err != nil {
		return err
	}
	if now, ok := s.needsReviewer(ctx, it.ID); known && ok && !was && now {
		s.news.add(it.ID)
	}
	return nil
}

// needsReviewer reads whether the cache's item needs the reviewer; ok is
// false when it could not be read.
func (s *core) needsReviewer(ctx context.Context, id string) (needs, ok bool) {
	f := store.ItemFilter{}
	f.IDs = []string{id}
	err := s.eachItem(ctx, f, func(v ItemView) error {
		needs, ok = v.NeedsReviewer(), true
		return nil
	})
	return needs, ok && err == nil
}

// withNoticed adds to a sync's news the items a write outside it made
// need the reviewer since the last sync, those that still need her.
func (s *core) withNoticed(ctx context.Context, news []string) []string {
	for _, id := range s.news.take() {
		if slices.Contains(news, id) {
			continue
		}
		if needs, ok := s.needsReviewer(ctx, id); ok && needs {
			news = append(news, id)
		}
	}
	slices.Sort(news)
	return news
}
