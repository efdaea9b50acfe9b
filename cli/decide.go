package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// Decisions on the command line (contract 1.2): decide, confirm and
// reason-codes. Policy refuses before anything is queued (exit 3); the
// rest is an action's life as for any other kind (report: 0 done, 4
// unknown, 5 queued, 6 the API said no).

func (r *runner) decide(args []string) (int, error) {
	fs := r.flags("decide")
	reason := fs.String("reason", "", "the reason code (see 'reviewer reason-codes')")
	comment := fs.String("comment", "", "why (required to reject or escalate)")
	pos, err := r.parse(fs, args, 2)
	if err != nil {
		return ExitUsage, err
	}
	outcome := policy.Outcome(pos[1])
	if !outcome.Known() {
		return ExitUsage, usagef("decide ID clear|reject|escalate --reason CODE [--comment TEXT]: %q is not a decision", pos[1])
	}
	if *reason == "" {
		return ExitUsage, usagef("decide needs --reason CODE (see 'reviewer reason-codes')")
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	res, err := svc.Decisions.Decide(ctx, pos[0], outcome, *reason, *comment)
	if err != nil {
		return exitFor(err), err
	}
	return r.reportDecision(res)
}

func (r *runner) confirm(args []string) (int, error) {
	fs := r.flags("confirm")
	disagree := fs.Bool("disagree", false, "return the decision to its author (needs --comment)")
	comment := fs.String("comment", "", "why (required with --disagree)")
	pos, err := r.parse(fs, args, 1)
	if err != nil {
		return ExitUsage, err
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	res, err := svc.Decisions.Confirm(ctx, pos[0], !*disagree, *comment)
	if err != nil {
		return exitFor(err), err
	}
	return r.reportDecision(res)
}

// reportDecision is report, and the item's decision as the service
// answered it.
func (r *runner) reportDecision(res review.Result) (int, error) {
	code, err := r.report(res)
	if res.Item != nil {
		if d := res.Item.CurrentDecision(); d != nil {
			fmt.Fprintf(r.env.Stdout, "decision: %s\n", show(decisionWords(*d)))
		}
	}
	return code, err
}

// decisionWords says a decision and where it stands: "reject
// (DOC_TAMPERED) by ana · awaiting a second reviewer".
func decisionWords(d policy.Decision) string {
	s := fmt.Sprintf("%s (%s) by %s", d.Outcome, d.ReasonCode, d.By)
	switch {
	case d.State == policy.DecisionAwaiting:
		return s + " · awaiting a second reviewer"
	case d.Confirmation != nil && d.Confirmation.Agree:
		return s + ", confirmed by " + d.Confirmation.By
	case d.Confirmation != nil:
		return s + ", returned by " + d.Confirmation.By
	}
	return s + " · " + string(d.State)
}

func (r *runner) reasonCodes(args []string) (int, error) {
	fs := r.flags("reason-codes")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	list, offline, err := svc.Decisions.ReasonCodes(ctx)
	if err != nil {
		return exitFor(err), err
	}
	if *asJSON {
		return ExitOK, r.printJSON(list)
	}
	if offline {
		fmt.Fprintln(r.env.Stderr, "the service could not be reached: the list the last sync kept")
	}
	printReasonCodes(r.env.Stdout, list)
	return ExitOK, nil
}

func printReasonCodes(w io.Writer, list []policy.ReasonCode) {
	for _, rc := range list {
		os := make([]string, len(rc.Outcomes))
		for i, o := range rc.Outcomes {
			os[i] = string(o)
		}
		fmt.Fprintf(w, "%-20s %-18s %s\n", show(rc.Code), strings.Join(os, ","), safetext.Line(rc.Label, safetext.Message))
	}
}

// decisionJSON is an item's current decision in `item` and `items --json`.
type decisionJSON struct {
	ID          string  `json:"id"`
	Outcome     string  `json:"outcome"`
	ReasonCode  string  `json:"reason_code"`
	By          string  `json:"by"`
	State       string  `json:"state"`
	ConfirmedBy *string `json:"confirmed_by"`
}

func decisionFields(it policy.Item) *decisionJSON {
	d := it.CurrentDecision()
	if d == nil {
		return nil
	}
	j := &decisionJSON{ID: d.ID, Outcome: string(d.Outcome), ReasonCode: d.ReasonCode, By: d.By, State: string(d.State)}
	if d.Confirmation != nil {
		j.ConfirmedBy = strPtr(d.Confirmation.By)
	}
	return j
}

// appendDecisionJSON appends the "decision" member as encoding/json
// writes decisionFields (itemjson.go), nothing when there is none.
func appendDecisionJSON(dst []byte, it policy.Item) []byte {
	j := decisionFields(it)
	if j == nil {
		return dst
	}
	dst = append(dst, ",\n    \"decision\": {\n      \"id\": "...)
	dst = appendJSONString(dst, j.ID)
	dst = append(dst, ",\n      \"outcome\": "...)
	dst = appendJSONString(dst, j.Outcome)
	dst = append(dst, ",\n      \"reason_code\": "...)
	dst = appendJSONString(dst, j.ReasonCode)
	dst = append(dst, ",\n      \"by\": "...)
	dst = appendJSONString(dst, j.By)
	dst = append(dst, ",\n      \"state\": "...)
	dst = appendJSONString(dst, j.State)
	dst = append(dst, ",\n      \"confirmed_by\": "...)
	if j.ConfirmedBy != nil {
		dst = appendJSONString(dst, *j.ConfirmedBy)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, "\n    }"...)
}

// printDecisions writes an item's decisions for `item`, oldest first.
func printDecisions(w io.Writer, ds []policy.Decision) {
	for _, d := range ds {
		fmt.Fprintf(w, "decision %s: %s", show(d.ID), show(decisionWords(d)))
		if d.Comment != "" {
			fmt.Fprintf(w, ": %s", show(d.Comment))
		}
		if c := d.Confirmation; c != nil && c.Comment != "" {
			fmt.Fprintf(w, " (%s: %s)", show(c.By), show(c.Comment))
		}
		fmt.Fprintln(w)
	}
}
