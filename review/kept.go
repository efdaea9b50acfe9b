package review

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// Documents kept for offline review: a reviewer keeps a batch's documents
// (every version of its items' files) on disk, encrypted at rest
// (internal/keptdocs), so that the panel, the viewer and `reviewer file`
// show them with the service out of reach. A kept copy is read behind
// memory and before the service (the keptDocuments seam of documents.go);
// one that does not open (another key, no key, a moved file) or is past
// the retention is "not kept": offline the document is then "offline and
// not kept", online it is fetched again, and keeping the batch again
// replaces it. Nothing is destroyed because it does not open.
//
// Kept copies are removed after the retention period
// (REVIEWER_KEPT_DOCUMENT_RETENTION, 14 days), when their batch no longer
// needs the reviewer (policy.NeedsReviewer over its items), by UnkeepBatch
// and by RemoveAllKeptDocuments; PurgeKeptDocuments applies the first two.
// Nothing of a document reaches a log, an error message or the audit.

// DefaultKeptDocumentRetention is how long a kept document stays
// (REVIEWER_KEPT_DOCUMENT_RETENTION).
const DefaultKeptDocumentRetention = 14 * 24 * time.Hour

// keptShelf is the keptDocuments seam over the encrypted store, with the
// retention in force.
type keptShelf struct {
	store *keptdocs.Store
	now   func() time.Time

	mu        sync.Mutex
	retention time.Duration
}

func (k *keptShelf) keepFor() time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.retention <= 0 {
		return DefaultKeptDocumentRetention
	}
	return k.retention
}

// Load reads a kept copy: ok false when none is kept, it does not open, or
// it is past the retention.
func (k *keptShelf) Load(ctx context.Context, itemID string, version int) (Document, bool, error) {
	if !k.store.Has(itemID, version) {
		return Document{}, false, nil
	}
	if k.expired(itemID, version) {
		return Document{}, false, nil
	}
	mt, data, err := k.store.Get(itemID, version)
	if err != nil {
		return Document{}, false, err
	}
	return Document{ItemID: itemID, Version: version, MediaType: mt, Data: data}, true, nil
}

// expired reports whether the copy of a version is past the retention.
func (k *keptShelf) expired(itemID string, version int) bool {
	at, ok := k.store.KeptAt(itemID, version)
	return ok && !k.now().Before(at.Add(k.keepFor()))
}

// KeptDocumentRetention is how long a kept document stays.
func (s *KeptService) KeptDocumentRetention() time.Duration { return s.keptRetention() }

// keptRetention is KeptDocumentRetention, shared by the services that need it.
func (s *core) keptRetention() time.Duration {
	if k := s.shelf(); k != nil {
		return k.keepFor()
	}
	return DefaultKeptDocumentRetention
}

func (s *core) shelf() *keptShelf {
	k, _ := s.kept.(*keptShelf)
	return k
}

// errNoShelf: this workflow was built without a place for kept documents.
var errNoShelf = policy.Errorf(policy.CodeInvalidInput, "documents cannot be kept here: this console has no folder for them")

// KeepProgress is how far keeping a batch has gone.
type KeepProgress struct {
	Items, ItemsDone int   // the batch's items, and those done
	Kept             int   // versions kept (now or before)
	Failed           int   // versions that could not be had (damaged)
	Bytes            int64 // on disk, of those kept now
}

// KeepProblem is a version that could not be kept, and why in one line.
type KeepProblem struct {
	ItemID  string
	Version int
	Why     string
}

// KeepReport is what keeping a batch did.
type KeepReport struct {
	KeepProgress
	Problems []KeepProblem
}

// KeepBatch keeps every version of the documents of a batch's items, for
// offline review: a copy already kept (and readable) stays, the others are
// fetched (from memory or the service) and kept encrypted. A damaged file
// is a problem of its own and the others go on; the service out of reach
// ends it ("offline and not kept" for what is left: run it again). progress
// is called after each item.
func (s *KeptService) KeepBatch(ctx context.Context, batchID string, progress func(KeepProgress)) (KeepReport, error) {
	k := s.shelf()
	if k == nil {
		return KeepReport{}, errNoShelf
	}
	items, err := s.batchItems(ctx, batchID)
	if err != nil {
		return KeepReport{}, err
	}
	if s.apiVersion() == "1.0" {
		return KeepReport{}, &DocumentError{Problem: DocNotOffered}
	}
	var rep KeepReport
	rep.Items = len(items)
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		vs, err := s.documentVersions(ctx, it.ID)
		if err != nil {
			return rep, err // offline, a 1.0 service: the rest cannot be had either
		}
		for _, v := range vs {
			if _, ok, _ := k.Load(ctx, it.ID, v.Version); ok {
				rep.Kept++
				continue
			}
			doc, err := s.document(ctx, it.ID, v.Version)
			if err != nil {
				d, ok := AsDocumentError(err)
				if ok && (d.Problem == DocDamaged || d.Problem == DocNoSuchVersion) {
					rep.Failed++
					rep.Problems = append(rep.Problems, KeepProblem{ItemID: it.ID, Version: v.Version, Why: d.Error()})
					continue
				}
				return rep, err
			}
			n, err := k.store.Put(it.ID, v.Version, doc.MediaType, doc.Data)
			if err != nil {
				return rep, err
			}
			rep.Kept++
			rep.Bytes += n
		}
		rep.ItemsDone++
		if progress != nil {
			progress(rep.KeepProgress)
		}
	}
	return rep, nil
}

// batchItems lists a batch's items from the cache; a batch it does not
// hold is NOT_FOUND.
func (s *core) batchItems(ctx context.Context, batchID string) ([]store.ItemRow, error) {
	if batchID == "" {
		return nil, policy.Errorf(policy.CodeInvalidInput, "no batch named")
	}
	items, err := s.db.Items.Items(ctx, store.ItemFilter{BatchID: batchID})
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, policy.Errorf(policy.CodeNotFound, "the cache holds no batch %s (run 'reviewer sync')", batchID)
	}
	return items, nil
}

// KeptRemoval is one kept document removed (or that would be), and why.
type KeptRemoval struct {
	ItemID  string
	Version int
	BatchID string // "" when the cache no longer holds the item
	Bytes   int64
	KeptAt  time.Time
	Why     KeptWhy
}

// KeptWhy is why a kept document goes.
type KeptWhy string

const (
	KeptExpired   KeptWhy = "retention"   // kept longer than the retention period
	KeptBatchDone KeptWhy = "batch_done"  // its batch no longer needs the reviewer (or the cache no longer holds it)
	KeptUnkept    KeptWhy = "unkept"      // the reviewer removed the batch's (UnkeepBatch)
	KeptRemoveAll KeptWhy = "removed_all" // the reviewer removed them all
)

// PurgeReport is what a removal of kept documents did.
type PurgeReport struct {
	Removed []KeptRemoval
	Bytes   int64
}

// Count is how many kept documents went.
func (r PurgeReport) Count() int { return len(r.Removed) }

// KeptDocumentsDue lists the kept documents that PurgeKeptDocuments would
// remove now (a dry run): those kept olderThan or longer before now (0 or
// less: every one), and those of a batch that no longer needs the
// reviewer.
func (s *KeptService) KeptDocumentsDue(ctx context.Context, now time.Time, olderThan time.Duration) ([]KeptRemoval, error) {
	return s.keptDue(ctx, now, olderThan)
}

// keptDue is KeptDocumentsDue, shared by the services that need it.
func (s *core) keptDue(ctx context.Context, now time.Time, olderThan time.Duration) ([]KeptRemoval, error) {
	k := s.shelf()
	if k == nil {
		return nil, nil
	}
	es, err := k.store.List()
	if err != nil || len(es) == 0 {
		return nil, err
	}
	ids := make([]string, 0, len(es))
	seen := map[string]bool{}
	for _, e := range es {
		if !seen[e.ItemID] {
			seen[e.ItemID] = true
			ids = append(ids, e.ItemID)
		}
	}
	rows, err := s.db.Items.ItemsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	batchOf := map[string]string{}
	for _, r := range rows {
		batchOf[r.ID] = r.BatchID
	}
	needs := map[string]bool{} // batch -> needs the reviewer
	var out []KeptRemoval
	for _, e := range es {
		r := KeptRemoval{ItemID: e.ItemID, Version: e.Version, BatchID: batchOf[e.ItemID], Bytes: e.Size, KeptAt: e.KeptAt}
		switch {
		case olderThan <= 0 || !now.Before(e.KeptAt.Add(olderThan)):
			r.Why = KeptExpired
		case r.BatchID == "":
			r.Why = KeptBatchDone
		default:
			n, ok := needs[r.BatchID]
			if !ok {
				if n, err = s.batchNeedsReviewer(ctx, r.BatchID); err != nil {
					return nil, err
				}
				needs[r.BatchID] = n
			}
			if n {
				continue
			}
			r.Why = KeptBatchDone
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ItemID != out[j].ItemID {
			return out[i].ItemID < out[j].ItemID
		}
		return out[i].Version < out[j].Version
	})
	return out, nil
}

// batchNeedsReviewer reports whether any item of a batch needs the
// reviewer (policy.NeedsReviewer, the one definition).
func (s *core) batchNeedsReviewer(ctx context.Context, batchID string) (bool, error) {
	needs := false
	errFound := errors.New("found")
	err := s.eachItem(ctx, store.ItemFilter{BatchID: batchID}, func(v ItemView) error {
		if v.NeedsReviewer() {
			needs = true
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return false, err
	}
	return needs, nil
}

// PurgeKeptDocuments removes the kept documents kept olderThan or longer
// before now (0 or less: every one), and those of a batch that no longer
// needs the reviewer, and what a crash left in their folder. It says what
// it removed.
func (s *KeptService) PurgeKeptDocuments(ctx context.Context, now time.Time, olderThan time.Duration) (PurgeReport, error) {
	return s.purgeKept(ctx, now, olderThan)
}

// purgeKept is PurgeKeptDocuments, shared by the services that need it.
func (s *core) purgeKept(ctx context.Context, now time.Time, olderThan time.Duration) (PurgeReport, error) {
	due, err := s.keptDue(ctx, now, olderThan)
	if err != nil {
		return PurgeReport{}, err
	}
	rep, err := s.removeKept(due)
	if k := s.shelf(); k != nil && err == nil {
		err = k.store.Sweep(now, time.Hour)
	}
	return rep, err
}

// ApplyKeptDocumentRetention is PurgeKeptDocuments at the retention in force.
func (s *KeptService) ApplyKeptDocumentRetention(ctx context.Context) (PurgeReport, error) {
	return s.PurgeKeptDocuments(ctx, s.now(), s.KeptDocumentRetention())
}

func (s *core) removeKept(rs []KeptRemoval) (PurgeReport, error) {
	var rep PurgeReport
	k := s.shelf()
	if k == nil {
		return rep, nil
	}
	for _, r := range rs {
		ok, n, err := k.store.Remove(r.ItemID, r.Version)
		if err != nil {
			return rep, err
		}
		if ok {
			r.Bytes = n
			rep.Removed = append(rep.Removed, r)
			rep.Bytes += n
		}
	}
	return rep, nil
}

// UnkeepBatch removes every kept document of a batch's items.
func (s *KeptService) UnkeepBatch(ctx context.Context, batchID string) (PurgeReport, error) {
	k := s.shelf()
	if k == nil {
		return PurgeReport{}, errNoShelf
	}
	items, err := s.batchItems(ctx, batchID)
	if err != nil {
		return PurgeReport{}, err
	}
	in := make(map[string]bool, len(items))
	for _, it := range items {
		in[it.ID] = true
	}
	es, err := k.store.List()
	if err != nil {
		return PurgeReport{}, err
	}
	var rs []KeptRemoval
	for _, e := range es {
		if in[e.ItemID] {
			rs = append(rs, KeptRemoval{ItemID: e.ItemID, Version: e.Version, BatchID: batchID, KeptAt: e.KeptAt, Why: KeptUnkept})
		}
	}
	return s.removeKept(rs)
}

// RemoveAllKeptDocuments removes every kept document (Preferences).
func (s *KeptService) RemoveAllKeptDocuments(ctx context.Context) (PurgeReport, error) {
	rep, err := s.PurgeKeptDocuments(ctx, s.now(), 0)
	for i := range rep.Removed {
		rep.Removed[i].Why = KeptRemoveAll
	}
	return rep, err
}

// KeptUse is how much is kept for offline review, and where its key is.
type KeptUse struct {
	Available bool   // this console keeps documents (it has a folder for them)
	Count     int    // documents (versions) kept
	Bytes     int64  // on disk
	KeyPlace  string // where their key is, in one line
	Folder    string
}

// KeptDocumentsUse says how much is kept (Preferences).
func (s *KeptService) KeptDocumentsUse() (KeptUse, error) {
	k := s.shelf()
	if k == nil {
		return KeptUse{}, nil
	}
	n, b, err := k.store.Usage()
	return KeptUse{Available: true, Count: n, Bytes: b, KeyPlace: k.store.KeyPlace(), Folder: k.store.Folder()}, err
}

// KeptBatch is how many of a batch's items have a document kept, and how
// many documents (versions).
type KeptBatch struct {
	Items, ItemsKept, Documents int
}

// BatchKept says whether a batch is available offline (its items with a
// kept document).
func (s *KeptService) BatchKept(ctx context.Context, batchID string) (KeptBatch, error) {
	k := s.shelf()
	if k == nil {
		return KeptBatch{}, errNoShelf
	}
	items, err := s.batchItems(ctx, batchID)
	if err != nil {
		return KeptBatch{}, err
	}
	in := make(map[string]bool, len(items))
	for _, it := range items {
		in[it.ID] = false
	}
	es, err := k.store.List()
	if err != nil {
		return KeptBatch{}, err
	}
	kb := KeptBatch{Items: len(items)}
	for _, e := range es {
		if kept, ok := in[e.ItemID]; ok {
			kb.Documents++
			if !kept {
				in[e.ItemID] = true
				kb.ItemsKept++
			}
		}
	}
	return kb, nil
}

// KeepsDocuments reports whether this workflow can keep documents.
func (s *KeptService) KeepsDocuments() bool { return s.shelf() != nil }
