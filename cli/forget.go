package cli

import (
	"fmt"
	"github.com/trustscreen/reviewer/internal/safefile"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// Forgetting on time: `reviewer purge` applies the cache's retention
// (REVIEWER_RETENTION), `reviewer wipe` removes the console's own files
// (wipe.go).

// Range of the retention: a standing setting of at least an hour (a
// mistyped "30s" for 30 days would empty the cache daily) and at most ten
// years. `purge --older-than` is a person's decision of the moment: from
// one second.
const (
	minRetention = time.Hour
	maxRetention = 10 * 365 * 24 * time.Hour
	minOlderThan = 0 // 0s: every kept document, every batch nothing holds
)

// retentionFromEnv reads REVIEWER_RETENTION (0: the default).
func retentionFromEnv(lookup func(string) (string, bool)) (time.Duration, error) {
	v, ok := lookup("REVIEWER_RETENTION")
	if !ok || strings.TrimSpace(v) == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, policy.Errorf(policy.CodeInvalidInput, "REVIEWER_RETENTION=%q is not a Go duration such as 720h", v)
	}
	if d < minRetention || d > maxRetention {
		return 0, policy.Errorf(policy.CodeInvalidInput, "REVIEWER_RETENTION %v: want %v to %v", d, minRetention, maxRetention)
	}
	return d, nil
}

func (r *runner) purge(args []string) (int, error) {
	fs := r.flags("purge")
	olderThan := fs.Duration("older-than", 0, "remove batches nobody touched, and documents kept for offline review, older than this "+
		"(default: REVIEWER_RETENTION, 720h, and REVIEWER_KEPT_DOCUMENT_RETENTION, 336h; 0s: every kept document)")
	dryRun := fs.Bool("dry-run", false, "only say what would be removed")
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	if flagSet(fs, "older-than") && (*olderThan < minOlderThan || *olderThan > maxRetention) {
		return ExitUsage, usagef("purge --older-than %v: want %v to %v", *olderThan, minOlderThan, maxRetention)
	}
	r.reading = *dryRun
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	keep, age := svc.Retention.Period(), time.Duration(-1) // each its own retention
	if flagSet(fs, "older-than") {
		keep, age = *olderThan, *olderThan
	}
	p, err := svc.Retention.Purge(ctx, age, *dryRun)
	if err != nil {
		return exitFor(err), err
	}
	verb := "Removed"
	if *dryRun {
		verb = "Would remove"
	}
	fmt.Fprintf(r.env.Stdout, "%s %s (%s) that nobody touched for %s and nothing holds (no open action or note, no item that needs you)",
		verb, plural(len(p.Batches), "batch", "batches"), plural(p.Items(), "item", "items"), keep)
	if !*dryRun {
		fmt.Fprintf(r.env.Stdout, "; %s of failed replacements past their retention deleted", plural(p.KeptFiles, "kept file", "kept files"))
	}
	fmt.Fprintf(r.env.Stdout, "; %s kept for offline review (%s)", plural(p.KeptDocuments.Count(), "document", "documents"), safefile.Size(p.KeptDocuments.Bytes))
	fmt.Fprintln(r.env.Stdout, ".")
	for _, b := range p.Batches {
		fmt.Fprintf(r.env.Stdout, "  %s  %s  %s, untouched since %s\n", cell(b.ID), cell(b.CustomerRef), plural(b.Items, "item", "items"), b.TouchedAt.Local().Format("2006-01-02 15:04"))
	}
	return ExitOK, nil
}
