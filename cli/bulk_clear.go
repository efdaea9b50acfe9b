package cli

import (
	"strings"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// A bulk clear on the command line (issue 29, item 8):
//
//	reviewer bulk clear --reason CODE [--comment TEXT] [--batch ID | --ids ID,ID...] [--yes | --dry-run] [--max N]
//
// The decision kind of the table, planned as the other bulk kinds are
// (planAndRun): the plan printed first with what it leaves out and why,
// the same confirmation, run, report and exit statuses. A reason the
// service's list (the cache's, offline) does not give for a clear is
// refused before anything is queued (exit 3), as a service that takes no
// decisions is. There is no bulk reject or escalation.

// idList collects --ids ID,ID... (repeatable).
type idList []string

func (l *idList) String() string { return strings.Join(*l, ",") }

func (l *idList) Set(v string) error {
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			*l = append(*l, id)
		}
	}
	return nil
}

func (r *runner) bulkCommand(args []string) (int, error) {
	if len(args) == 0 || args[0] != string(policy.OutcomeClear) {
		what := "nothing"
		if len(args) > 0 {
			what = show(args[0])
		}
		return ExitUsage, usagef("bulk takes clear (got %s): a reject or an escalation is decided one item at a time ('reviewer decide')", what)
	}
	fs := r.flags("bulk clear")
	reason := fs.String("reason", "", "the reason code of every clear of the run (see 'reviewer reason-codes')")
	comment := fs.String("comment", "", "a comment for every clear of the run (optional)")
	batch := fs.String("batch", "", "only this batch")
	var ids idList
	fs.Var(&ids, "ids", "ID,ID...: only these items (repeatable)")
	yes := fs.Bool("yes", false, "do not ask: confirm the plan as printed")
	dry := fs.Bool("dry-run", false, "only print the plan; queue nothing")
	concurrency := fs.Int("concurrency", review.DefaultBulkConcurrency, "actions in flight at once (REVIEWER_BULK_CONCURRENCY)")
	maxN := fs.Int("max", 0, "the most items this run may act on; a run over the bulk limit (REVIEWER_BULK_MAX) needs it, at least its count")
	if _, err := r.parse(fs, args[1:], 0); err != nil {
		return ExitUsage, err
	}
	switch {
	case *reason == "":
		return ExitUsage, usagef("bulk clear needs --reason CODE (see 'reviewer reason-codes')")
	case *yes && *dry:
		return ExitUsage, usagef("--yes and --dry-run contradict each other")
	case *batch != "" && len(ids) > 0:
		return ExitUsage, usagef("--batch and --ids: give one of them")
	case *maxN < 0:
		return ExitUsage, usagef("--max %d: want a count of items", *maxN)
	}
	if err := r.bulkConcurrency(fs, concurrency); err != nil {
		return ExitUsage, err
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	// Only a scored item can be cleared: the listing reads no other; the
	// plan judges each one (policy.ClearSkip) and says what it leaves out.
	selection := review.Selection{Filter: store.ItemFilter{Status: policy.StatusScored, BatchID: *batch}}
	if len(ids) > 0 {
		selection = review.Selection{IDs: ids}
	}
	prepare := func(p *review.Plan) (int, error) {
		if err := p.SetDecision(*reason, *comment); err != nil {
			return exitFor(err), err
		}
		return ExitOK, nil
	}
	return r.planAndRun(ctx, svc, selection, policy.ActionDecision, prepare,
		bulkRun{yes: *yes, dry: *dry, maxN: *maxN, concurrency: *concurrency})
}
