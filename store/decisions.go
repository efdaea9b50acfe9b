package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/policy"
)

// A reviewer's decision on an item (contract 1.2, migration 00017). The
// decisions table holds each decision as the service keeps it; the item's
// row carries the current one (its id, outcome, reason, state, author and
// confirmer) and whether the service sends decisions at all, so that
// "needs the reviewer" and the listing stay one query over items. The
// store follows the decision's life as the service reports it
// (policy.DecisionTransition), and the audit log records every new
// decision and every change of its state, hers and a sync's.

// decisionDetail is what the audit log says of a decision or a
// confirmation she queued.
func decisionDetail(a Action) string {
	switch a.Kind {
	case policy.ActionDecision:
		return strings.TrimSpace(fmt.Sprintf("%s, reason %s %s", a.Outcome, a.ReasonCode, a.Comment))
	case policy.ActionConfirmation:
		word := "agrees"
		if !a.Agree {
			word = "returns it"
		}
		return strings.TrimSpace(fmt.Sprintf("decision %s: %s %s", a.DecisionID, word, a.Comment))
	}
	return ""
}

// offersDecisions is 1 for an answer from a service that sends decisions:
// the cache holds such an answer only once it holds its decisions (a
// cache migrated from 1.1 gets them from the full sync that follows).
func offersDecisions(it policy.Item) int {
	if it.Team.DecisionsOffered {
		return 1
	}
	return 0
}

// applyDecisions keeps the decisions an item answer carries, when the
// item's row holds that answer (an older answer than the cache's changes
// nothing). An answer from a service that sends no decisions (1.0, 1.1)
// leaves them as they are.
func applyDecisions(ctx context.Context, tx *sql.Tx, it policy.Item, now time.Time) error {
	if !it.Team.DecisionsOffered {
		return nil
	}
	var id, outcome, reason, state, by, confirmedBy any
	if d := it.CurrentDecision(); d != nil {
		id, outcome, reason, state, by = d.ID, string(d.Outcome), d.ReasonCode, string(d.State), d.By
		if d.Confirmation != nil {
			confirmedBy = d.Confirmation.By
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE items SET decisions_offered = 1, decision_id = ?, decision_outcome = ?,
		decision_reason = ?, decision_state = ?, decision_by = ?, decision_confirmed_by = ? WHERE id = ? AND updated_at = ?`,
		id, outcome, reason, state, by, confirmedBy, it.ID, ms(it.UpdatedAt))
	if err != nil {
		return fmt.Errorf("decisions of item %s: %w", it.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // the cache holds a newer answer
	}
	for i, d := range it.Team.Decisions {
		if err := applyDecision(ctx, tx, it.ID, i, d, now); err != nil {
			return fmt.Errorf("decision %s of item %s: %w", d.ID, it.ID, err)
		}
	}
	return nil
}

// applyDecision writes one decision and audits what is new of it: the
// decision itself, a confirmation or a return, and any other change of its
// state. A change the decision's life does not allow (a final decision
// awaiting confirmation again) is a service's answer the cache does not
// follow: the row keeps what it had, and the audit says so.
func applyDecision(ctx context.Context, tx *sql.Tx, itemID string, seq int, d policy.Decision, now time.Time) error {
	var confBy, confComment, agree any
	var confAt any
	if c := d.Confirmation; c != nil {
		confBy, confAt, agree, confComment = c.By, ms(c.At), c.Agree, nullStr(c.Comment)
	}
	var old struct {
		state  string
		confBy sql.NullString
	}
	err := tx.QueryRowContext(ctx, `SELECT state, confirmed_by FROM decisions WHERE id = ?`, d.ID).Scan(&old.state, &old.confBy)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO decisions(id, item_id, seq, outcome, reason_code, comment, by, at, state,
			confirmed_by, confirmed_at, agree, confirmation_comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.ID, itemID, seq, string(d.Outcome), d.ReasonCode, nullStr(d.Comment), d.By, ms(d.At), string(d.State),
			confBy, confAt, agree, confComment); err != nil {
			return err
		}
		if err := audit(ctx, tx, now, d.By, itemID, 0, "decision "+d.ID+": "+string(d.Outcome)+" ("+string(d.State)+")",
			strings.TrimSpace("reason "+d.ReasonCode+" "+d.Comment)); err != nil {
			return err
		}
		return auditConfirmation(ctx, tx, now, itemID, d)
	case err != nil:
		return err
	}
	from := policy.DecisionState(old.state)
	if from == d.State && old.confBy.Valid == (d.Confirmation != nil) {
		return nil
	}
	if from != d.State && !followsDecisionLife(from, d.State) {
		return audit(ctx, tx, now, "", itemID, 0, "decision "+d.ID+" not followed",
			fmt.Sprintf("the service says it is %s; the cache holds %s, and a decision's life does not lead there", d.State, from))
	}
	if _, err := tx.ExecContext(ctx, `UPDATE decisions SET state = ?, confirmed_by = ?, confirmed_at = ?, agree = ?,
		confirmation_comment = ? WHERE id = ?`, string(d.State), confBy, confAt, agree, confComment, d.ID); err != nil {
		return err
	}
	if !old.confBy.Valid && d.Confirmation != nil {
		return auditConfirmation(ctx, tx, now, itemID, d)
	}
	return audit(ctx, tx, now, "", itemID, 0, "decision "+d.ID+" "+string(d.State), "")
}

// followsDecisionLife reports whether some event of the decision's life
// (policy.DecisionTransition) leads from one state to the other.
func followsDecisionLife(from, to policy.DecisionState) bool {
	for _, ev := range []policy.DecisionEvent{policy.DecisionConfirmed, policy.DecisionReturnedBack, policy.DecisionSupersededBy} {
		if next, ok := policy.DecisionTransition(from, ev); ok && next == to {
			return true
		}
	}
	return false
}

func auditConfirmation(ctx context.Context, tx *sql.Tx, now time.Time, itemID string, d policy.Decision) error {
	c := d.Confirmation
	if c == nil {
		return nil
	}
	event := "decision " + d.ID + " confirmed"
	if !c.Agree {
		event = "decision " + d.ID + " returned"
	}
	return audit(ctx, tx, now, c.By, itemID, 0, event, c.Comment)
}

// currentDecision scans the item row's current decision.
type currentDecision struct {
	offered                                sql.NullInt64
	id, outcome, reason, state, by, confBy sql.NullString
}

func (cd *currentDecision) dest() []any {
	return []any{&cd.offered, &cd.id, &cd.outcome, &cd.reason, &cd.state, &cd.by, &cd.confBy}
}

func (cd *currentDecision) apply(it *policy.Item) {
	it.Team.DecisionsOffered = cd.offered.Int64 == 1
	if !cd.id.Valid {
		return
	}
	d := policy.Decision{ID: cd.id.String, Outcome: policy.Outcome(cd.outcome.String), ReasonCode: cd.reason.String,
		State: policy.DecisionState(cd.state.String), By: cd.by.String}
	if cd.confBy.Valid {
		d.Confirmation = &policy.Confirmation{By: cd.confBy.String}
	}
	it.Team.Decisions = []policy.Decision{d}
}

const decisionItemColumns = `i.decisions_offered, i.decision_id, i.decision_outcome, i.decision_reason, i.decision_state,
	i.decision_by, i.decision_confirmed_by`

// Decisions lists an item's decisions, oldest first, as the cache keeps
// them (the listing carries only the current one).
func (s *ItemStore) Decisions(ctx context.Context, itemID string) ([]policy.Decision, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, outcome, reason_code, COALESCE(comment, ''), by, at, state,
		confirmed_by, COALESCE(confirmed_at, 0), COALESCE(agree, 0), COALESCE(confirmation_comment, '')
		FROM decisions WHERE item_id = ? ORDER BY seq`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []policy.Decision
	for rows.Next() {
		var d policy.Decision
		var at, confAt int64
		var confBy sql.NullString
		var agree bool
		var confComment string
		if err := rows.Scan(&d.ID, &d.Outcome, &d.ReasonCode, &d.Comment, &d.By, &at, &d.State, &confBy, &confAt, &agree, &confComment); err != nil {
			return nil, err
		}
		d.At = fromMS(at)
		if confBy.Valid {
			d.Confirmation = &policy.Confirmation{By: confBy.String, At: fromMS(confAt), Agree: agree, Comment: confComment}
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// SetReasonCodes keeps the service's list of reason codes, for offline
// work: it replaces the last one.
func (s *SyncStore) SetReasonCodes(ctx context.Context, list []policy.ReasonCode) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM reason_codes`); err != nil {
			return err
		}
		for i, r := range list {
			os := make([]string, len(r.Outcomes))
			for j, o := range r.Outcomes {
				os[j] = string(o)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO reason_codes(position, code, label, outcomes) VALUES (?, ?, ?, ?)
				ON CONFLICT(code) DO NOTHING`, i, r.Code, r.Label, strings.Join(os, ",")); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReasonCodes is the last list of reason codes the service gave (empty:
// none read yet).
func (s *SyncStore) ReasonCodes(ctx context.Context) ([]policy.ReasonCode, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT code, label, outcomes FROM reason_codes ORDER BY position`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []policy.ReasonCode
	for rows.Next() {
		var r policy.ReasonCode
		var os string
		if err := rows.Scan(&r.Code, &r.Label, &os); err != nil {
			return nil, err
		}
		for _, o := range strings.Split(os, ",") {
			if oc := policy.Outcome(o); oc.Known() && !slices.Contains(r.Outcomes, oc) {
				r.Outcomes = append(r.Outcomes, oc)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// needsSQL is "needs the reviewer" for reviewer me, as SQL over an item
// (i) and its newest action (a), with its arguments: on a service that
// takes decisions (1.2), policy.NeedsReviewerDecisions; elsewhere, and for
// an invalid answer, policy.NeedsReviewer (needsActionSQL). Every set of
// states, statuses and recommendations in it is read from policy over
// every case (needsDecisionCases); TestNeedsActionFollowsPolicy holds it
// to policy on a real cache. It reads only the item's own columns and its
// newest action: no subquery per row.
func needsSQL(me string) (string, []any) {
	var ors []string
	var args []any
	for _, c := range needsDecisionCases() {
		cond := "i.decision_state IS NULL"
		if c.state != "" {
			cond = "i.decision_state = " + sqlState(c.state)
		}
		if c.mine != nil {
			if *c.mine {
				cond += " AND i.decision_by = ?"
			} else {
				cond += " AND i.decision_by IS NOT ?"
			}
			args = append(args, me)
		}
		ors = append(ors, "("+cond+" AND "+c.items+")")
	}
	dec := "FALSE"
	if len(ors) > 0 {
		dec = strings.Join(ors, " OR ")
	}
	q := `(a.state IN ` + sqlStates(statesWhere(func(s policy.ActionState) bool {
		return s.Open() && policy.NeedsReviewer(policy.Situation{OpenAction: s})
	})) + ` OR ((a.state IS NULL OR a.state NOT IN ` + openSQL + `) AND (` +
		`(NOT ` + takesDecisionsSQL + ` AND i.status IN ` + sqlStatuses(needingStatuses()) + `)` +
		` OR (` + takesDecisionsSQL + ` AND (` + dec + `)))))`
	return q, args
}

// takesDecisionsSQL: the item's answer came from a service that takes
// decisions and is valid (an invalid answer is judged as on 1.1).
var takesDecisionsSQL = `(i.decisions_offered = 1 AND i.status <> ` + sqlState(policy.StatusInvalid) + `)`

// needsCase is a current decision's state ("": none), whose author is me
// or not (nil: either), and the items (status, recommendation) that need
// the reviewer then, as SQL.
type needsCase struct {
	state policy.DecisionState
	mine  *bool
	items string
}

// needsDecisionCases reads policy.NeedsReviewerDecisions over every
// state of the current decision (and none), its author, every status and
// every recommendation, with no open action, and writes what needs her.
func needsDecisionCases() []needsCase {
	const me, other = "me", "other"
	recs := []policy.Recommendation{policy.RecommendForward, policy.RecommendReview, policy.RecommendReject}
	needing := func(state policy.DecisionState, by string) string {
		var parts []string
		for _, st := range policy.Statuses() {
			if st == policy.StatusInvalid {
				continue
			}
			var yes []policy.Recommendation
			forRecs := []policy.Recommendation{""}
			if st == policy.StatusScored {
				forRecs = recs
			}
			for _, r := range forRecs {
				it := policy.Item{ID: "x", Status: st, Recommendation: r}
				it.Team.DecisionsOffered = true
				if state != "" {
					it.Team.Decisions = []policy.Decision{{ID: "d", State: state, By: by}}
				}
				if policy.NeedsReviewerDecisions(policy.Situation{Item: it}, me) {
					yes = append(yes, r)
				}
			}
			switch {
			case len(yes) == 0:
			case len(yes) == len(forRecs):
				parts = append(parts, "i.status = "+sqlState(st))
			default:
				parts = append(parts, "(i.status = "+sqlState(st)+" AND i.recommendation IN "+sqlStates(yes)+")")
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	var out []needsCase
	add := func(state policy.DecisionState, mine *bool, items string) {
		if items != "" {
			out = append(out, needsCase{state: state, mine: mine, items: items})
		}
	}
	add("", nil, needing("", other))
	yes, no := true, false
	for _, ds := range policy.DecisionStates() {
		mineItems, otherItems := needing(ds, me), needing(ds, other)
		if mineItems == otherItems {
			add(ds, nil, mineItems)
			continue
		}
		add(ds, &yes, mineItems)
		add(ds, &no, otherItems)
	}
	return out
}
