package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Bulk actions on the command line:
//
//	reviewer resubmit --retryable [--batch ID] [--code C] [--yes | --dry-run]
//	reviewer request-file --non-retryable [--batch ID] [--code C] [--message CODE=TEXT]... [--yes | --dry-run]
//
// The plan and its cost are printed first. On a terminal the reviewer is
// asked; --yes skips asking; --dry-run only prints the plan. Without a
// terminal and without --yes nothing is queued: spending paid analyses
// needs a person's yes (exit 2).

// isBulk reports whether an action command asks for a bulk action.
func isBulk(cmd string, args []string) bool {
	flagName := map[string]string{"resubmit": "retryable", "request-file": "non-retryable"}[cmd]
	if flagName == "" {
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && (name == flagName || strings.HasPrefix(name, flagName+"=")) {
			return true
		}
	}
	return false
}

// messageFlags collects --message CODE=TEXT.
type messageFlags map[policy.Code]string

func (m messageFlags) String() string { return "" }

func (m messageFlags) Set(v string) error {
	code, text, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(text) == "" {
		return fmt.Errorf("--message wants CODE=TEXT, such as DECODE_FAILED='Please send a sharper photo.'")
	}
	m[policy.Code(strings.TrimSpace(code))] = text
	return nil
}

// interactive reports whether the reviewer can be asked on a terminal.
func (r *runner) interactive() bool {
	if r.env.Interactive != nil {
		return r.env.Interactive()
	}
	f, ok := r.env.Stdin.(*os.File)
	return ok && isTerminal(f) // terminal.go
}

func (r *runner) bulk(cmd string, args []string) (int, error) {
	fs := r.flags(cmd)
	var sel bool
	if cmd == "resubmit" {
		fs.BoolVar(&sel, "retryable", false, "every item in error whose code a re-run may help")
	} else {
		fs.BoolVar(&sel, "non-retryable", false, "every item in error whose code needs a new file")
	}
	batch := fs.String("batch", "", "only this batch")
	code := fs.String("code", "", "only this error code")
	yes := fs.Bool("yes", false, "do not ask: confirm the plan as printed")
	dry := fs.Bool("dry-run", false, "only print the plan; queue nothing")
	concurrency := fs.Int("concurrency", review.DefaultBulkConcurrency, "actions in flight at once (REVIEWER_BULK_CONCURRENCY)")
	maxN := fs.Int("max", 0, "the most items this run may act on; a run over the bulk limit (REVIEWER_BULK_MAX) needs it, at least its count")
	messages := messageFlags{}
	if cmd == "request-file" {
		fs.Var(messages, "message", "CODE=TEXT: the message for the customers of one code (repeatable; default: the prefilled one)")
	}
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	if *yes && *dry {
		return ExitUsage, usagef("--yes and --dry-run contradict each other")
	}
	if err := r.bulkConcurrency(fs, concurrency); err != nil {
		return ExitUsage, err
	}
	if *maxN < 0 {
		return ExitUsage, usagef("--max %d: want a count of items", *maxN)
	}
	if *code != "" && !policy.IsItemCode(policy.Code(*code)) {
		return ExitUsage, usagef("--code %q is not an item error code", *code)
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	selection := review.Selection{Filter: store.ItemFilter{Status: policy.StatusError, BatchID: *batch, Code: policy.Code(*code)}}
	// resubmit or request-file: the kind's descriptor names its command.
	kind, _ := policy.KindForCommand(cmd)
	if *dry { // only printed: read twice in flat memory, never held
		return r.dryRun(ctx, svc, selection, kind, messages, *maxN)
	}
	// The plan holds the ids of what it acts on, nothing more per item: the
	// rows are printed as the cache is read back, and the confirmation, the
	// sends and the report go a chunk or a page at a time.
	plan, err := svc.Runs.PlanToConfirm(ctx, selection, kind)
	if err != nil {
		return exitFor(err), err
	}
	if err := setMessages(&plan, messages); err != nil {
		return ExitUsage, err
	}
	r.printPlanHead(plan)
	tw := newStreamTable(r.env.Stdout)
	err = svc.Runs.EachPlanItem(ctx, plan, func(it review.PlanItem) error { return planRow(tw, it) })
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return exitFor(err), err
	}
	if err := countGiven(plan, *maxN); err != nil {
		return ExitUsage, err
	}
	plan.CountConfirmed = *maxN
	switch {
	case plan.Len() == 0:
		fmt.Fprintln(r.env.Stdout, "nothing to do: no call made")
		return ExitOK, nil
	case !*yes && !r.interactive():
		return ExitUsage, usagef("not confirmed: %s; run it on a terminal to be asked, or pass --yes (--dry-run only prints the plan)",
			strings.ToLower(plan.Headline()[:1])+plan.Headline()[1:])
	case !*yes:
		ok, err := r.ask(plan)
		if err != nil {
			return ExitFailure, err
		}
		if !ok {
			fmt.Fprintln(r.env.Stdout, "not confirmed: nothing queued, no call made")
			return ExitRefused, nil
		}
	}
	run, err := svc.Runs.ConfirmEach(ctx, plan, func(f store.Refusal) {
		fmt.Fprintf(r.env.Stdout, "%s: left out, %s\n", show(f.ItemID), show(policy.ErrorMessage(f.Err)))
	})
	if err != nil {
		return confirmFailed(run, err), err
	}
	fmt.Fprintf(r.env.Stdout, "bulk run %d: %d queued (undo what is not sent yet: reviewer cancel-run %d)\n", run.ID, run.Queued, run.ID)
	res, err := svc.Runs.SendRun(ctx, run.ID, review.RunOptions{Concurrency: *concurrency, CountsOnly: true})
	var unread *review.SummaryError
	if errors.As(err, &unread) {
		return r.unsummed(run, res, unread, err)
	}
	status, rerr := r.reportRun(ctx, svc, run, res)
	if err != nil { // an outcome could not be recorded: the counts printed are the cache's
		return exitFor(err), errors.Join(err, rerr)
	}
	return status, rerr
}

// unsummed ends a confirmed run whose sending or summary failed: it was
// confirmed, and says so, with what this process saw of it. Its status is
// never success: unknown when a send's outcome may be unknown, else queued
// (the actions are durable, each with its key; the next flush sends or
// reconciles them).
func (r *runner) unsummed(run review.Run, res review.RunResult, unread *review.SummaryError, err error) (int, error) {
	fmt.Fprintf(r.env.Stdout, "bulk run %d: confirmed: %d actions queued; the summary could not be read: %s; 'reviewer outbox' shows them, 'reviewer flush' sends what is left\n",
		run.ID, run.Queued, safetext.Sentence(policy.ErrorMessage(unread.Err)))
	if p := res.Progress; p.Unknown > 0 || p.Sending > 0 {
		return ExitUnknown, err
	}
	return ExitQueued, err
}

// bulkConcurrency settles how many actions of a bulk run are in flight at
// once: --concurrency when given, else REVIEWER_BULK_CONCURRENCY, else the
// default; 1 to 16. A refusal names where the bad value came from.
func (r *runner) bulkConcurrency(fs *flag.FlagSet, n *int) error {
	flagged := false
	fs.Visit(func(f *flag.Flag) { flagged = flagged || f.Name == "concurrency" })
	if flagged {
		if *n < 1 || *n > 16 {
			return usagef("--concurrency %d: want 1 to 16", *n)
		}
		return nil
	}
	v, ok := r.env.Lookup("REVIEWER_BULK_CONCURRENCY")
	if !ok || v == "" {
		return nil
	}
	c, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || c < 1 || c > 16 {
		return usagef("REVIEWER_BULK_CONCURRENCY=%q: want a whole number from 1 to 16 (or --concurrency N)", v)
	}
	*n = c
	return nil
}

// countGiven checks --max against a plan: a plan over the bulk limit needs
// it, and no plan may act on more items than it says.
func countGiven(p review.Plan, maxN int) error {
	n := p.Len()
	switch {
	case maxN > 0 && n > maxN:
		return usagef("--max %d: the plan acts on %d items; nothing queued, no call made", maxN, n)
	case p.NeedsCount() && maxN == 0:
		return usagef("the plan acts on %d items, more than the bulk limit of %d (REVIEWER_BULK_MAX, --bulk-max): add --max %d to confirm that many; nothing queued, no call made",
			n, p.Max, n)
	}
	return nil
}

// dryRun prints a plan without holding it: its summary first (one read of
// the selection, counting), then its items as a second read streams them.
func (r *runner) dryRun(ctx context.Context, svc *review.Service, sel review.Selection, kind policy.ActionKind,
	messages messageFlags, maxN int) (int, error) {
	plan, err := svc.Runs.PlanSummary(ctx, sel, kind)
	if err != nil {
		return exitFor(err), err
	}
	if err := setMessages(&plan, messages); err != nil {
		return ExitUsage, err
	}
	r.printPlanHead(plan)
	tw := newStreamTable(r.env.Stdout)
	err = svc.Runs.EachPlanned(ctx, sel, kind, func(it review.PlanItem) error { return planRow(tw, it) })
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return exitFor(err), err
	}
	if plan.Len() == 0 {
		fmt.Fprintln(r.env.Stdout, "nothing to do: no call made")
		return ExitOK, nil
	}
	if err := countGiven(plan, maxN); err != nil {
		fmt.Fprintf(r.env.Stdout, "to confirm it: %s\n", safetext.Sentence(err.Error()))
	}
	fmt.Fprintln(r.env.Stdout, "dry run: nothing queued, no call made")
	return ExitOK, nil
}

func planRow(tw *streamTable, it review.PlanItem) error {
	return tw.Row("  "+cell(it.ItemID), cell(it.BatchID), cell(it.FileName), cell(string(it.Code)))
}

// printPlanHead prints what a plan costs and leaves out, and its messages.
func (r *runner) printPlanHead(p review.Plan) {
	w := r.env.Stdout
	fmt.Fprintln(w, p.Headline())
	if lines := p.SkipLines(); len(lines) > 0 {
		fmt.Fprintf(w, "left out: %s\n", safetext.Sentence(strings.Join(lines, "; ")))
	}
	if !p.WaitUntil.IsZero() {
		fmt.Fprintf(w, "the API asked us to wait until %s: the actions stay queued until then\n", p.WaitUntil.Local().Format("15:04:05"))
	}
	for _, c := range p.Codes() {
		if msg, ok := p.Messages[c]; ok {
			fmt.Fprintf(w, "message for %s: %s\n", show(string(c)), safeMessage(msg))
		}
	}
}

func safeMessage(s string) string { return show(s) }

// ask asks the reviewer on the terminal; only "y" or "yes" is a yes.
func (r *runner) ask(p review.Plan) (bool, error) {
	fmt.Fprintf(r.env.Stdout, "%s. Go ahead? [y/N] ", p.Headline())
	if r.env.Stdin == nil {
		return false, nil
	}
	line, err := bufio.NewReader(r.env.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// reportRun prints each item's outcome, read back from the cache a page
// at a time, and returns the worst exit status: unknown, then queued, then
// refused by the API (as flush does). The list is read even after a
// Ctrl-C stopped the sends: the reviewer is owed it (a second one ends
// the process).
func (r *runner) reportRun(ctx context.Context, svc *review.Service, run review.Run, res review.RunResult) (int, error) {
	w := r.env.Stdout
	err := svc.Runs.EachRunAction(context.WithoutCancel(ctx), run.ID, func(a store.Action) error {
		line := fmt.Sprintf("%s: %s", show(a.ItemID), a.State)
		switch a.State {
		case policy.ActionQueued:
			line = fmt.Sprintf("%s: still queued, nothing sent; 'reviewer flush' sends it, 'reviewer cancel-run %d' withdraws it", show(a.ItemID), run.ID)
			if !a.NotBefore.IsZero() {
				line = fmt.Sprintf("%s: queued · rate limited until %s (the API ran nothing); 'reviewer flush' sends it after then, 'reviewer cancel-run %d' withdraws it",
					show(a.ItemID), a.NotBefore.Local().Format("15:04:05"), run.ID)
			}
		case policy.ActionUnknown:
			line = fmt.Sprintf("%s: outcome unknown (key %s); 'reviewer flush' reconciles it with the same key", show(a.ItemID), a.Key)
		case policy.ActionFailed:
			line = fmt.Sprintf("%s: refused by the API: %s %s", show(a.ItemID), show(string(a.LastErrorCode)), show(a.LastError))
			if policy.MayQueueAgain(a.State, a.LastErrorCode) {
				line = fmt.Sprintf("%s: turned away for now by the API (%s); it may have run: to queue it again as a new intent, run the command again for it",
					show(a.ItemID), show(string(a.LastErrorCode)))
			}
		case policy.ActionCancelled:
			line = fmt.Sprintf("%s: cancelled, nothing sent", show(a.ItemID))
		}
		_, err := fmt.Fprintln(w, line)
		return err
	})
	p := res.Progress
	// Every action of the run is counted: what cancel-run withdrew too, so
	// that the counts add up to the run.
	summary := fmt.Sprintf("bulk run %d: %d done, %d refused by the API, %d unknown, %d still queued, %d cancelled",
		run.ID, p.Done, p.Failed, p.Unknown, p.Queued, p.Cancelled)
	if res.Stopped != "" {
		summary += "; stopped sending: " + safetext.Sentence(res.Stopped)
	}
	fmt.Fprintln(w, summary)
	code := ExitOK
	switch {
	case p.Unknown > 0:
		code = ExitUnknown
	case p.Queued > 0:
		code = ExitQueued
	case p.Failed > 0:
		code = ExitAnswerNo
	case run.LeftOut > 0:
		code = ExitRefused
	}
	if err != nil { // the counts above were read; the list of items was cut short
		if code == ExitOK {
			code = ExitFailure
		}
		return code, fmt.Errorf("bulk run %d: the list of its items could not be read to the end (the counts above are the cache's): %w", run.ID, err)
	}
	return code, nil
}

// cancelRun withdraws the actions of a bulk run that are still queued.
func (r *runner) cancelRun(args []string) (int, error) {
	pos, err := r.parse(r.flags("cancel-run"), args, 1)
	if err != nil {
		return ExitUsage, err
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil {
		return ExitUsage, usagef("cancel-run takes a bulk run id")
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	out, err := svc.Runs.CancelRun(ctx, id)
	if err != nil {
		return exitFor(err), err
	}
	fmt.Fprintf(r.env.Stdout, "bulk run %d: %s not yet sent cancelled\n", id, plural(len(out), "action", "actions"))
	return ExitOK, nil
}

// configureTriage reads the triage numbers from the environment:
// REVIEWER_RISK_BANDS (lower bounds of medium, high, critical: 40,70,85),
// REVIEWER_AGE_WARN (48h) and REVIEWER_AGE_OVERDUE (120h).
func (r *runner) configureTriage(cfg *review.Config) error {
	t := review.DefaultTriageSettings()
	if v, ok := r.env.Lookup("REVIEWER_RISK_BANDS"); ok && v != "" {
		b, err := policy.ParseBands(v)
		if err != nil {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_RISK_BANDS: %s", policy.ErrorMessage(err))
		}
		t.Bands = b
	}
	for name, dst := range map[string]*time.Duration{"REVIEWER_AGE_WARN": &t.Ageing.Warn, "REVIEWER_AGE_OVERDUE": &t.Ageing.Overdue} {
		if v, ok := r.env.Lookup(name); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return policy.Errorf(policy.CodeInvalidInput, "%s=%q is not a positive Go duration such as 48h", name, v)
			}
			*dst = d
		}
	}
	if err := t.Bands.Check(); err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_AGE_WARN, REVIEWER_AGE_OVERDUE: %s", policy.ErrorMessage(err))
	}
	if err := t.Ageing.Check(); err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_AGE_WARN, REVIEWER_AGE_OVERDUE: %s", policy.ErrorMessage(err))
	}
	cfg.Triage = t
	return nil
}

// confirmFailed is the exit status of a confirmation that failed: one that
// stopped part-way queued actions, which stay queued (its error says how
// to send or withdraw them), so it is never "nothing written" (exit 8).
func confirmFailed(run review.Run, err error) int {
	if run.Queued > 0 {
		return ExitQueued
	}
	return exitFor(err)
}

// setMessages puts the --message texts into a plan, each checked as the
// workflow checks a customer message.
func setMessages(plan *review.Plan, messages messageFlags) error {
	for c, text := range messages {
		if err := plan.SetMessage(c, text); err != nil {
			return usagef("--message %s: %s", c, policy.ErrorMessage(err))
		}
	}
	return nil
}
