package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// `reviewer keep BATCH` and `reviewer unkeep BATCH`: keep a batch's
// documents (every version of its items' files) for offline review, or
// remove them. Kept documents are encrypted at rest beside the cache
// (<cache>.documents/, internal/keptdocs), their key in the keyring or,
// where none answers, a 0600 file beside the cache (said on stderr when it
// is made). They go after REVIEWER_KEPT_DOCUMENT_RETENTION (336h), when
// their batch no longer needs the reviewer, or by unkeep.

// Range of REVIEWER_KEPT_DOCUMENT_RETENTION.
const (
	minKeptDocumentRetention = time.Hour
	maxKeptDocumentRetention = 365 * 24 * time.Hour
)

// keptRetentionFromEnv reads REVIEWER_KEPT_DOCUMENT_RETENTION.
func (g *globals) keptRetentionFromEnv(lookup func(string) (string, bool)) error {
	g.keptDocs = review.DefaultKeptDocumentRetention
	v, ok := lookup("REVIEWER_KEPT_DOCUMENT_RETENTION")
	if !ok || v == "" {
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < minKeptDocumentRetention || d > maxKeptDocumentRetention {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_KEPT_DOCUMENT_RETENTION=%q: want a Go duration from 1h to 8760h, such as 336h (14 days)", v)
	}
	g.keptDocs = d
	return nil
}

// keepDocuments gives the workflow its kept documents, beside the cache at
// path. The key file, when it has to be made, is said on stderr.
func (r *runner) keepDocuments(cfg *review.Config, path string) {
	k := keptdocs.Open(path, r.secrets())
	k.Notice = func(m string) { fmt.Fprintf(r.env.Stderr, "reviewer: %s\n", m) }
	cfg.KeptDocuments, cfg.KeptDocumentRetention = k, r.g.keptDocs
}

// progressLine reports whether a progress line goes to stderr: a terminal.
func (r *runner) progressLine() bool {
	if r.env.Interactive != nil {
		return r.env.Interactive()
	}
	f, ok := r.env.Stderr.(*os.File)
	return ok && isTerminal(f)
}

func (r *runner) keep(args []string) (int, error) {
	fs := r.flags("keep")
	pos, err := r.parse(fs, args, 1)
	if err != nil {
		return ExitUsage, err
	}
	batch := pos[0]
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	line := r.progressLine()
	rep, err := svc.Kept.KeepBatch(ctx, batch, func(p review.KeepProgress) {
		if line {
			fmt.Fprintf(r.env.Stderr, "\r\x1b[Kkeeping %s: %d of %d items, %d documents", show(batch), p.ItemsDone, p.Items, p.Kept)
		}
	})
	if line {
		fmt.Fprint(r.env.Stderr, "\r\x1b[K")
	}
	if err != nil {
		if rep.Kept > 0 {
			fmt.Fprintf(r.env.Stdout, "kept %s of %s before it stopped (%d of %d items)\n", plural(rep.Kept, "document", "documents"), show(batch), rep.ItemsDone, rep.Items)
		}
		if policy.ErrorCode(err) == policy.CodeNotFound {
			return ExitUsage, usagef("keep %s: %v", show(batch), err)
		}
		return documentFailed(err, "reviewer keep "+batch)
	}
	use, _ := svc.Kept.KeptDocumentsUse()
	fmt.Fprintf(r.env.Stdout, "kept %s of %s of %s for offline review (%s written; %s kept in all, %s, for %s at most; %s)\n",
		plural(rep.Kept, "document", "documents"), plural(rep.Items, "item", "items"), show(batch), safefile.Size(rep.Bytes),
		plural(use.Count, "document", "documents"), safefile.Size(use.Bytes), days(svc.Kept.KeptDocumentRetention()), use.KeyPlace)
	if rep.Failed > 0 {
		for _, p := range rep.Problems {
			fmt.Fprintf(r.env.Stdout, "  not kept: version %d of %s: %s\n", p.Version, show(p.ItemID), p.Why)
		}
		return ExitReadFailed, readError{err: policy.Errorf(policy.CodeInvalidResponse, "%s of %s not kept: the file is damaged", plural(rep.Failed, "document", "documents"), show(batch)),
			again: "reviewer keep " + batch}
	}
	return ExitOK, nil
}

func (r *runner) unkeep(args []string) (int, error) {
	fs := r.flags("unkeep")
	pos, err := r.parse(fs, args, 1)
	if err != nil {
		return ExitUsage, err
	}
	batch := pos[0]
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	rep, err := svc.Kept.UnkeepBatch(ctx, batch)
	if err != nil {
		if policy.ErrorCode(err) == policy.CodeNotFound {
			return ExitUsage, usagef("unkeep %s: %v", show(batch), err)
		}
		return exitFor(err), err
	}
	fmt.Fprintf(r.env.Stdout, "removed %s of %s (%s)\n", plural(rep.Count(), "kept document", "kept documents"), show(batch), safefile.Size(rep.Bytes))
	return ExitOK, nil
}

// days says a retention in days when it is whole days ("14 days"), else
// as a Go duration.
func days(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return plural(int(d/(24*time.Hour)), "day", "days")
	}
	return d.String()
}
