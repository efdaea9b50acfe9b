package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
	"github.com/trustscreen/reviewer/store"
)

func (r *runner) sync(args []string) (int, error) {
	if _, err := r.parse(r.flags("sync"), args, 0); err != nil {
		return ExitUsage, err
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	p, err := svc.Sync.Sync(ctx, nil)
	if err != nil {
		if _, ok := client.AsError(err); ok || ctx.Err() != nil {
			// The API did not give the page: a failed read, whatever the
			// fault (unreachable, reset, timeout, a truncated page), or
			// the reviewer's Ctrl-C stopped it; either way nothing is
			// queued and running it again resumes it.
			err = readError{err: err}
		} else if ce := store.Explain(r.path, err); ce != nil && ce.Problem == store.ProblemDiskFull {
			// A read that could not be kept: nothing is queued, the
			// pages before it are kept, and running it again resumes it.
			ce.Next = "free space on it (" + filepath.Dir(r.path) + ")"
			err = readError{err: ce}
		}
		return exitFor(err), err
	}
	// What this sync took in; another sync of the cache at the same time
	// may have written some of it first, and says so for its own.
	others := ""
	if p.ByOthers > 0 {
		others = fmt.Sprintf("; %s already written by another sync of this cache running at the same time",
			plural(p.ByOthers, "batch", "batches"))
	}
	fmt.Fprintf(r.env.Stdout, "synced %d pages: %d batches, %d items (%d changed, %d invalid answers stored as invalid%s)\n",
		p.Pages, p.Batches, p.Items, p.Changed, p.Invalid, others)
	if p.Ahead > 0 {
		fmt.Fprintf(r.env.Stdout, "warning: %d batches dated more than %v ahead of this computer's clock (the service's clock is wrong): kept, but the sync position was not moved to their date\n",
			p.Ahead, policy.MaxClockSkew)
	}
	if n := len(p.NewItems); n > 0 {
		fmt.Fprintln(r.env.Stdout, newItemsLine(p.NewItems))
	}
	return ExitOK, nil
}

// newsShown is how many ids of the new items a sync names.
const newsShown = 10

// newItemsLine says which items need the reviewer since the sync and did
// not before it: "3 new items need you: itm_a, itm_b, itm_c".
func newItemsLine(ids []string) string {
	head := fmt.Sprintf("%d new items need you: ", len(ids))
	if len(ids) == 1 {
		head = "1 new item needs you: "
	}
	if len(ids) <= newsShown {
		return head + strings.Join(ids, ", ")
	}
	return head + strings.Join(ids[:newsShown], ", ") +
		fmt.Sprintf(" and %d more (reviewer items --needs-action)", len(ids)-newsShown)
}

// itemJSON is the shape of `items --json`.
type itemJSON struct {
	ID             string             `json:"id"`
	BatchID        string             `json:"batch_id"`
	CustomerRef    string             `json:"customer_ref"`
	FileName       string             `json:"file_name"`
	Kind           string             `json:"kind"`
	Status         string             `json:"status"`
	RiskScore      *int               `json:"risk_score"`
	Recommendation *string            `json:"recommendation"`
	Layers         map[string]float64 `json:"layers,omitempty"`
	ErrorCode      *string            `json:"error_code"`
	ReportedCode   *string            `json:"reported_code"`
	Problem        string             `json:"problem,omitempty"`
	Raw            string             `json:"raw,omitempty"` // item only: what the service sent for an invalid item
	Retryable      bool               `json:"retryable"`
	NextAction     string             `json:"next_action"`
	WaitUntil      *time.Time         `json:"wait_until,omitempty"`
	OpenAction     *openActionJSON    `json:"open_action"`
	UpdatedAt      time.Time          `json:"updated_at"`
	Explanation    string             `json:"explanation"`
	Actions        []store.Action     `json:"actions,omitempty"`
	Attempts       []store.AttemptRow `json:"attempts,omitempty"`
	Audit          []store.AuditEntry `json:"audit,omitempty"`
	teamJSON
	// Decision is the item's current decision (contract 1.2; decide.go).
	Decision *decisionJSON `json:"decision,omitempty"`
}

type openActionJSON struct {
	Kind           string `json:"kind"`
	State          string `json:"state"`
	IdempotencyKey string `json:"idempotency_key"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toJSON(v review.ItemView) itemJSON {
	j := itemJSON{ID: v.ID, BatchID: v.BatchID, CustomerRef: v.CustomerRef, FileName: v.FileName, Kind: string(v.Kind),
		Status: string(v.Status), ErrorCode: strPtr(string(v.ErrorCode)), ReportedCode: strPtr(v.ReportedCode),
		Problem: v.Problem, Retryable: v.Retryable, NextAction: string(v.Next.Kind), UpdatedAt: v.UpdatedAt,
		Explanation: policy.Describe(v.Item)}
	if v.Checked() {
		j.RiskScore, j.Recommendation, j.Layers = v.RiskScore, strPtr(string(v.Recommendation)), v.Layers
	}
	if !v.Next.Until.IsZero() {
		u := v.Next.Until
		j.WaitUntil = &u
	}
	if st := v.OpenAction(); st != "" {
		j.OpenAction = &openActionJSON{Kind: string(v.Action.Kind), State: string(st), IdempotencyKey: v.Action.Key}
	}
	j.teamJSON = teamFields(v) // claims.go
	j.Decision = decisionFields(v.Item)
	return j
}

func (r *runner) printJSON(v any) error {
	enc := json.NewEncoder(r.env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// streamItemsJSON writes the items of a listing as one JSON array, in the
// layout of printJSON (what printJSON would write for a []itemJSON), one
// element at a time: a listing of any length is written in flat memory. A
// listing that fails part-way leaves the array unclosed, so that no reader
// takes it for the whole.
func (r *runner) streamItemsJSON(ctx context.Context, svc *review.Service, f store.ItemFilter) error {
	w := bufio.NewWriterSize(r.env.Stdout, 64<<10)
	var slow *slowItemJSON
	n := 0
	err := svc.Triage.EachItem(ctx, f, func(v review.ItemView) error {
		if w.Available() < 4<<10 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		out := w.AvailableBuffer()
		if n == 0 {
			out = append(out, "[\n  "...)
		} else {
			out = append(out, ",\n  "...)
		}
		head := len(out)
		out, ok := appendItemJSON(out, &v)
		if !ok {
			if slow == nil {
				slow = newSlowItemJSON()
			}
			var err error
			if out, err = slow.append(out[:head], v); err != nil {
				return err
			}
		}
		n++
		_, err := w.Write(out)
		return err
	})
	if err != nil {
		w.Flush()
		return err
	}
	if n == 0 {
		w.WriteString("[]\n")
	} else {
		w.WriteString("\n]\n")
	}
	return w.Flush()
}

// slowItemJSON writes an element of `items --json` the way appendItemJSON
// stands for: toJSON, encoding/json, appendIndent. It takes the rows that
// appendItemJSON cannot write exactly as it does, and gives its errors.
type slowItemJSON struct {
	elem bytes.Buffer
	enc  *json.Encoder
}

func newSlowItemJSON() *slowItemJSON {
	s := &slowItemJSON{}
	s.enc = json.NewEncoder(&s.elem) // compact; appendIndent lays it out
	return s
}

func (s *slowItemJSON) append(dst []byte, v review.ItemView) ([]byte, error) {
	s.elem.Reset()
	if err := s.enc.Encode(toJSON(v)); err != nil {
		return dst, err
	}
	return appendIndent(dst, bytes.TrimSuffix(s.elem.Bytes(), []byte("\n")), "  ", "  "), nil
}

func (r *runner) items(args []string) (int, error) {
	fs := r.flags("items")
	var f store.ItemFilter
	var status, code string
	fs.StringVar(&f.BatchID, "batch", "", "only this batch")
	fs.StringVar(&status, "status", "", "scored, error, pending, awaiting_file or invalid")
	fs.StringVar(&code, "code", "", "only this error code")
	fs.BoolVar(&f.Retryable, "retryable", false, "only errors a re-run may help")
	fs.BoolVar(&f.NeedsAction, "needs-action", false, "only items that need a reviewer")
	fs.BoolVar(&f.AwaitingConfirmation, "awaiting-my-confirmation", false, "only items whose decision, by another reviewer, awaits a second one (contract 1.2)")
	fs.StringVar(&f.Search, "search", "", "search id, file name, customer reference")
	fs.IntVar(&f.Limit, "limit", 0, "at most this many")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	if status != "" {
		valid := false
		for _, s := range policy.Statuses() {
			valid = valid || string(s) == status
		}
		if !valid {
			return ExitUsage, usagef("--status %q: want scored, error, pending, awaiting_file or invalid", status)
		}
	}
	f.Status, f.Code = policy.Status(status), policy.Code(code)
	r.reading = true
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	if *asJSON {
		if err := r.streamItemsJSON(ctx, svc, f); err != nil {
			return ExitFailure, err
		}
		return ExitOK, nil
	}
	// Row by row, in flat memory: a million items are a million rows.
	tw := newStreamTable(r.env.Stdout)
	tw.Row("ID", "BATCH", "FILE", "KIND", "STATUS", "SCORE", "REC", "CODE", "RETRYABLE", "NEXT", "ACTION")
	err = svc.Triage.EachItem(ctx, f, func(v review.ItemView) error {
		score, rec := "—", "—"
		if v.Checked() {
			score, rec = strconv.Itoa(*v.RiskScore), string(v.Recommendation)
		}
		act := "—"
		if v.Action != nil {
			act = string(v.Action.Kind) + ":" + string(v.Action.State)
		}
		return tw.Row(cell(v.ID), cell(v.BatchID), cell(v.FileName), cell(string(v.Kind)), string(v.Status), score, cell(rec),
			cell(dash(string(v.ErrorCode))), strconv.FormatBool(v.Retryable), string(v.Next.Kind), act)
	})
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return ExitFailure, err
	}
	return ExitOK, nil
}

// show and cell are how every value from outside (the service, the
// cache, a file name) is printed for people: escaped by safetext, on one
// line, cut to a line's or a column's length. JSON output is exact.
func show(s string) string { return safetext.Line(s, safetext.Value) }
func cell(s string) string { return safetext.Line(s, safetext.Cell) }

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (r *runner) item(args []string) (int, error) {
	fs := r.flags("item")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := r.parse(fs, args, 1)
	if err != nil {
		return ExitUsage, err
	}
	r.reading = true
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	d, err := svc.Triage.Item(ctx, pos[0])
	if err != nil {
		return exitFor(err), err
	}
	j := toJSON(d.ItemView)
	j.Actions, j.Attempts, j.Audit = d.Actions, d.Attempts, d.Audit
	j.Raw = d.Raw
	j.Notes = notesJSON(d.NoteRows) // notes.go
	if *asJSON {
		return ExitOK, r.printJSON(j)
	}
	w := r.env.Stdout
	fmt.Fprintf(w, "%s  %s  (%s, batch %s %s)\n", show(d.ID), show(d.FileName), show(string(d.Kind)), show(d.BatchID), show(d.CustomerRef))
	fmt.Fprintf(w, "status: %s\n%s\n", d.Status, safetext.Line(policy.Describe(d.Item), safetext.Message))
	if d.ReportedCode != "" && d.ReportedCode != string(d.ErrorCode) {
		fmt.Fprintf(w, "the service reported: %s\n", show(d.ReportedCode))
	}
	if d.Raw != "" {
		fmt.Fprintf(w, "the service sent: %s\n", safetext.Line(d.Raw, safetext.Message))
	}
	fmt.Fprintf(w, "next: %s\n", d.Next.Kind)
	r.printTeam(w, d)              // claims.go: revision, claim, notes
	printDecisions(w, d.Decisions) // decide.go
	if d.KeptFile != "" {
		fmt.Fprintf(w, "kept file: %s, from a replacement that failed ('reviewer replace %s --again' sends it, '--discard' drops it)\n",
			show(d.KeptFile), show(d.ID))
	}
	for _, a := range d.Actions {
		fmt.Fprintf(w, "action %d: %s %s key=%s sends=%d %s\n", a.ID, a.Kind, a.State, show(a.Key), a.Sends, show(string(a.LastErrorCode)))
	}
	for _, a := range d.Attempts {
		fmt.Fprintf(w, "attempt %s #%d at %s: connect %v request %v elapsed %v -> %s %s\n", show(a.Operation), a.Number,
			a.Start.Local().Format("15:04:05"), a.ConnectTimeout, a.RequestTimeout, a.Elapsed, a.Class, show(string(a.Code)))
	}
	for _, e := range d.Audit {
		fmt.Fprintf(w, "audit %s %s: %s %s\n", e.At.Local().Format("2006-01-02 15:04:05"), show(e.Reviewer), show(e.Event), show(e.Detail))
	}
	return ExitOK, nil
}

func (r *runner) action(cmd string, args []string) (int, error) {
	fs := r.flags(cmd)
	message := fs.String("message", "", "text for the customer (request-file)")
	again := fs.Bool("again", false, "upload again the file that the item's failed replacement kept (replace)")
	discard := fs.Bool("discard", false, "discard the file that the item's failed replacement kept (replace)")
	unchecked := fs.Bool("unchecked", false, "upload a file the console could not check, knowing it was not (replace)")
	pos, err := r.parse(fs, args, -1)
	if err != nil {
		return ExitUsage, err
	}
	kept := *again || *discard
	n := 1
	if cmd == "replace" && !kept {
		n = 2
	}
	if len(pos) != n {
		return ExitUsage, usagef("%s takes %d argument(s), got %d", cmd, n, len(pos))
	}
	if kept && (cmd != "replace" || (*again && *discard)) {
		return ExitUsage, usagef("--again or --discard (one of them) go with replace ID")
	}
	if *unchecked && (cmd != "replace" || *discard) {
		return ExitUsage, usagef("--unchecked goes with replace ID FILE or replace ID --again")
	}
	if cmd == "request-file" && *message == "" {
		return ExitUsage, usagef("request-file needs --message TEXT")
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	var res review.Result
	switch cmd {
	case "resubmit":
		res, err = svc.Actions.Resubmit(ctx, pos[0])
	case "request-file":
		res, err = svc.Actions.RequestFile(ctx, pos[0], *message)
	case "replace":
		switch {
		case *again:
			res, err = svc.Actions.ReplaceAgain(ctx, pos[0], review.ReplaceOptions{Unchecked: *unchecked})
		case *discard:
			k, derr := svc.Actions.DiscardKeptFile(ctx, pos[0])
			if derr != nil {
				return exitFor(derr), derr
			}
			fmt.Fprintf(r.env.Stdout, "replace %s: the kept file %s of action %d was discarded\n", show(pos[0]), show(k.FileName), k.ActionID)
			return ExitOK, nil
		default:
			res, err = svc.Actions.ReplaceFile(ctx, pos[0], pos[1], review.ReplaceOptions{Unchecked: *unchecked})
		}
	}
	if policy.ErrorCode(err) == policy.CodeFileUnchecked {
		err = policy.Errorf(policy.CodeFileUnchecked, "%s (add --unchecked to upload it all the same)", policy.ErrorMessage(err))
	}
	if err != nil {
		return exitFor(err), err
	}
	return r.report(res)
}

// report prints an action's outcome and returns its exit status.
func (r *runner) report(res review.Result) (int, error) {
	a := res.Action
	if res.Unleased == review.UnleasedBusy { // another process leased it between the intent and the send
		return ExitUnknown, fmt.Errorf("%s %s (key %s) is being sent by another process until %s; see 'reviewer outbox'",
			a.Kind, a.ItemID, a.Key, a.LeaseUntil.Local().Format("15:04:05"))
	}
	switch a.State {
	case policy.ActionDone:
		what := policy.StateWord(policy.ActionDone)
		if res.Item != nil {
			what = policy.Describe(*res.Item)
		}
		fmt.Fprintf(r.env.Stdout, "%s %s: %s\n", a.Kind, show(a.ItemID), safetext.Line(what, safetext.Message))
		return ExitOK, nil
	case policy.ActionQueued:
		if !a.NotBefore.IsZero() { // a 429: the service ran nothing and said when to come back
			return ExitQueued, fmt.Errorf("%s %s queued (key %s): the API is rate limiting until %s (%w); run 'reviewer flush' after then",
				a.Kind, a.ItemID, a.Key, a.NotBefore.Local().Format("15:04:05"), res.Err)
		}
		return ExitQueued, fmt.Errorf("%s %s queued (key %s): %w; run 'reviewer flush' when the API is reachable", a.Kind, a.ItemID, a.Key, res.Err)
	case policy.ActionUnknown:
		return ExitUnknown, fmt.Errorf("%s %s: outcome unknown (key %s): %w; run 'reviewer flush' to reconcile it with the same key", a.Kind, a.ItemID, a.Key, res.Err)
	case policy.ActionFailed:
		return ExitAnswerNo, fmt.Errorf("%s %s refused by the API: %w", a.Kind, a.ItemID, res.Err)
	}
	fmt.Fprintf(r.env.Stdout, "%s %s: %s\n", a.Kind, show(a.ItemID), a.State)
	return ExitOK, nil
}

func (r *runner) outbox(args []string) (int, error) {
	fs := r.flags("outbox")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	r.reading = true
	svc, ctx, done, err := r.session()
	if err != nil {
		return r.salvageOutbox(err, *asJSON)
	}
	defer done()
	actions, err := svc.Actions.Outbox(ctx)
	if err != nil {
		return r.salvageOutbox(err, *asJSON)
	}
	notes, err := svc.Actions.OutboxNotes(ctx)
	if err != nil {
		return r.salvageOutbox(err, *asJSON)
	}
	return ExitOK, r.printOutbox(outboxEntries(actions, notes), *asJSON)
}

// salvageOutbox is the outbox of a cache that cannot be opened or read as
// it is (damaged, or of another schema): the unsent actions and notes and
// their keys, read from the file as they can be (store.Salvage), so that
// the reviewer can save them before starting a new cache. The file is
// opened read-only and nothing in it changes. The exit status stays the
// cache's: what is printed may not be all of it.
func (r *runner) salvageOutbox(err error, asJSON bool) (int, error) {
	ce := store.Explain(r.path, err)
	if ce == nil || ce.Problem == store.ProblemReadOnly || ce.Problem == store.ProblemDiskFull {
		return exitFor(err), err
	}
	got, serr := store.Salvage(r.path)
	if serr != nil {
		ce.What += fmt.Sprintf("; its outbox could not be read at all (%v)", serr)
		return ExitCache, ce
	}
	// Nothing read is not an empty outbox: nothing is printed then.
	if len(got.Actions)+len(got.Notes) == 0 && len(got.Problems) > 0 {
		ce.What += "; nothing of its outbox could be read (" + strings.Join(got.Problems, "; ") + ")"
		ce.Next = "keep a copy of the file for whoever can recover it, move it away (mv " + r.path + " " + r.path +
			".damaged) and run 'reviewer sync' to start a new cache; check the items you had acted on before acting on them again"
		return ExitCache, ce
	}
	if perr := r.printOutbox(outboxEntries(got.Actions, got.Notes), asJSON); perr != nil {
		return ExitFailure, perr
	}
	what := fmt.Sprintf("; read from it: %s and %s not yet done (printed)",
		plural(len(got.Actions), "action", "actions"), plural(len(got.Notes), "note", "notes"))
	if len(got.Problems) > 0 {
		what += ", but not all of it could be read (" + strings.Join(got.Problems, "; ") + ")"
	}
	ce.What += what
	return ExitCache, ce
}

// printOutbox prints the outbox as JSON or as a table.
func (r *runner) printOutbox(out []outboxEntry, asJSON bool) error {
	if asJSON {
		return r.printJSON(out)
	}
	tw := tabwriter.NewWriter(r.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tITEM\tKIND\tCOST\tSTATE\tKEY\tCREATED\tLAST ERROR")
	for _, e := range out {
		cost := "free"
		if e.Paid {
			cost = "paid"
		}
		kind := string(e.Kind)
		if e.Outcome != "" { // a decision: what she decided (decide.go)
			kind += " " + string(e.Outcome)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Ref, cell(e.ItemID), kind, cost, queuedWords(e.Action, time.Now()), cell(e.Key),
			e.CreatedAt.Local().Format("2006-01-02 15:04"), cell(dash(string(e.LastErrorCode))))
	}
	return tw.Flush()
}

// queuedWords is an action's state, with the wait of one the service
// rate limited: "queued · rate limited until 14:05".
func queuedWords(a store.Action, now time.Time) string {
	if store.Waiting(a, now) {
		return fmt.Sprintf("%s · rate limited until %s", a.State, a.NotBefore.Local().Format("15:04"))
	}
	return string(a.State)
}

// outboxEntry is one line of the outbox: an action, or a note written here
// (contract 1.1, its own outbox: kind "note", ref "n" and its id). Ref is
// what 'reviewer cancel' takes; Paid says whether it runs the paid analysis.
type outboxEntry struct {
	store.Action
	Ref  string `json:"ref"`
	Text string `json:"text,omitempty"`
	Paid bool   `json:"paid"`
}

func outboxEntries(actions []store.Action, notes []store.NoteRow) []outboxEntry {
	out := make([]outboxEntry, 0, len(actions)+len(notes))
	for _, a := range actions {
		out = append(out, outboxEntry{Action: a, Ref: strconv.FormatInt(a.ID, 10), Paid: a.Kind.Paid()})
	}
	for _, n := range notes {
		out = append(out, outboxEntry{Action: store.Action{ID: n.ID, ItemID: n.ItemID, Kind: noteKind, Key: n.Key,
			State: n.State, Reviewer: n.Author, LastErrorCode: n.LastErrorCode, LastError: n.LastError, Sends: n.Sends,
			CreatedAt: n.CreatedAt, UpdatedAt: n.CreatedAt}, Ref: "n" + strconv.FormatInt(n.ID, 10), Text: n.Text})
	}
	return out
}

// noteKind is a note's kind in the outbox.
const noteKind policy.ActionKind = "note"

func (r *runner) flush(args []string) (int, error) {
	fs := r.flags("flush")
	wait := fs.Duration("wait", -1, "how long to wait for the outcome of actions another process is sending (REVIEWER_FLUSH_WAIT; default: one lease; 0: do not wait)")
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	if *wait < 0 {
		d, err := r.flushWait()
		if err != nil {
			return ExitUsage, err
		}
		*wait = d
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	fr, err := svc.Actions.Flush(ctx)
	if err != nil {
		return exitFor(err), err
	}
	if n, m := len(fr.Waiting), len(fr.NotesWaiting); n+m > 0 && *wait > 0 && !fr.WaitingUntil().After(time.Now().Add(*wait)) {
		// The API asked us to wait (429) for less than --wait: wait, then
		// send them (the actions, then the notes), each with its stored
		// key. Ctrl-C stops waiting.
		fmt.Fprintf(r.env.Stderr, "reviewer: %s queued: the API is rate limiting until %s; waiting to send them then; Ctrl-C stops waiting\n",
			waitingWords(n, m), fr.WaitingUntil().Local().Format("15:04:05"))
		if err := svc.Actions.AwaitRateLimit(ctx, &fr, time.Now().Add(*wait)); err != nil {
			return exitFor(err), err
		}
	}
	if n := len(fr.Busy); n > 0 && *wait > 0 {
		// Another process is sending them: its send is not a failure of
		// this flush. Wait for what it comes to (each at most until its
		// lease ends, all at most --wait); Ctrl-C stops waiting.
		fmt.Fprintf(r.env.Stderr, "reviewer: %s being sent by another process (until %s at the latest): waiting for the outcome; Ctrl-C stops waiting\n",
			plural(n, "action is", "actions are"), busyUntil(fr.Busy).Local().Format("15:04:05"))
		if err := svc.Actions.AwaitOthers(ctx, &fr, time.Now().Add(*wait)); err != nil {
			return exitFor(err), err
		}
	}
	fmt.Fprintln(r.env.Stdout, flushSummary(fr))
	notes := noteCounts(fr) // notes.go: a note left unsent is as much still to do as an action
	switch {
	case fr.Unknown > 0 || fr.TakenOver > 0 || len(fr.Busy) > 0 || notes.unknown > 0:
		return ExitUnknown, nil
	case fr.Queued > 0 || len(fr.Waiting) > 0 || notes.queued > 0:
		return ExitQueued, nil
	case fr.Failed > 0 || notes.refused > 0:
		return ExitAnswerNo, nil
	}
	return ExitOK, nil
}

// waitingWords are what a flush waits to send: "1 action is",
// "2 notes are", "1 action and 1 note are".
func waitingWords(actions, notes int) string {
	switch {
	case notes == 0:
		return plural(actions, "action is", "actions are")
	case actions == 0:
		return plural(notes, "note is", "notes are")
	}
	return plural(actions, "action", "actions") + " and " + plural(notes, "note are", "notes are")
}

// flushSummary is one line: what this flush sent and what came of it, then
// what it left alone and why.
func flushSummary(fr review.FlushResult) string {
	line := fmt.Sprintf("flushed %s: %d done, %d refused by the API, %d unknown, %d still queued",
		plural(fr.Sent(), "action", "actions"), fr.Done, fr.Failed, fr.Unknown, fr.Queued)
	if fr.TakenOver > 0 {
		line += fmt.Sprintf("; %s sent, then taken over by another process when this one's lease ran out (that process records the outcome)",
			plural(fr.TakenOver, "action was", "actions were"))
	}
	if n := len(fr.Waiting); n > 0 {
		line += fmt.Sprintf("; %s: the API is rate limiting until %s; run 'reviewer flush' after then",
			plural(n, "action still queued", "actions still queued"), fr.WaitingUntil().Local().Format("15:04:05"))
	}
	if n := len(fr.Busy); n > 0 {
		line += fmt.Sprintf("; %d skipped: being sent by another process until %s", n, busyUntil(fr.Busy).Local().Format("15:04:05"))
	}
	line += othersSummary(fr)
	line += notesSummary(fr) // notes.go
	return line
}

// flushWait is REVIEWER_FLUSH_WAIT, or one lease of the configured budget
// (the longest another process's send may hold an action).
func (r *runner) flushWait() (time.Duration, error) {
	v, ok := r.env.Lookup("REVIEWER_FLUSH_WAIT")
	if !ok || v == "" {
		return r.g.cfg.Budget().Lease(), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, usagef("REVIEWER_FLUSH_WAIT=%q is not a Go duration such as 45s (0: do not wait)", v)
	}
	return d, nil
}

// busyUntil is when the last lease of actions held by others ends.
func busyUntil(busy []store.Action) time.Time {
	var until time.Time
	for _, a := range busy {
		if a.LeaseUntil.After(until) {
			until = a.LeaseUntil
		}
	}
	return until
}

// othersSummary says what the actions that another process settled while
// this flush ran came to: sent by it (done or refused), or cancelled.
func othersSummary(fr review.FlushResult) string {
	var done, failed, cancelled int
	for _, a := range fr.ByOthers {
		switch a.State {
		case policy.ActionDone:
			done++
		case policy.ActionFailed:
			failed++
		case policy.ActionCancelled:
			cancelled++
		}
	}
	line := ""
	if sent := done + failed; sent > 0 {
		line += fmt.Sprintf("; %s sent by another process meanwhile: %d done, %d refused by the API", plural(sent, "action", "actions"), done, failed)
	}
	if cancelled > 0 {
		line += fmt.Sprintf("; %s cancelled by another process meanwhile", plural(cancelled, "action", "actions"))
	}
	if rest := fr.Settled - done - failed - cancelled; rest > 0 {
		line += fmt.Sprintf("; %s settled by another process meanwhile", plural(rest, "action", "actions"))
	}
	return line
}

// plural is "1 action", "2 actions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (r *runner) cancel(args []string) (int, error) {
	pos, err := r.parse(r.flags("cancel"), args, 1)
	if err != nil {
		return ExitUsage, err
	}
	ref, isNote := strings.CutPrefix(pos[0], "n")
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil || id <= 0 {
		return ExitUsage, usagef("cancel takes an action id, or n and a note id (see reviewer outbox)")
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	if isNote {
		n, err := svc.Actions.CancelNote(ctx, id)
		if err != nil {
			return exitFor(err), err
		}
		fmt.Fprintf(r.env.Stdout, "note n%d on %s cancelled (never sent)\n", n.ID, show(n.ItemID))
		return ExitOK, nil
	}
	a, err := svc.Actions.Cancel(ctx, id)
	if err != nil {
		return exitFor(err), err
	}
	fmt.Fprintf(r.env.Stdout, "action %d on %s cancelled\n", a.ID, show(a.ItemID))
	return ExitOK, nil
}

func (r *runner) export(args []string) (int, error) {
	fs := r.flags("export")
	file := fs.String("csv", "", "the CSV file to write (a new file, mode 0600)")
	batch := fs.String("batch", "", "only this batch")
	force := fs.Bool("force", false, "replace the file if it exists")
	if _, err := r.parse(fs, args, 0); err != nil {
		return ExitUsage, err
	}
	if *file == "" {
		return ExitUsage, usagef("export needs --csv FILE")
	}
	// Refused before anything is opened: a FIFO would block, a link would
	// be followed, an existing file would be lost.
	if err := safefile.CheckTarget(*file, *force); err != nil {
		var folder *safefile.FolderError
		if errors.As(err, &folder) { // a mistyped or not yet created folder: the reviewer's to fix
			return ExitUsage, usagef("export --csv %s: %v", *file, err)
		}
		return ExitRefused, exportError(err)
	}
	r.reading = true
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	var n int
	err = safefile.WriteNew(*file, *force, func(w io.Writer) error {
		var err error
		n, err = svc.Triage.ExportCSV(ctx, w, *batch)
		return err
	})
	if err != nil {
		if code := exitFor(exportError(err)); code == ExitRefused {
			return code, exportError(err)
		}
		return ExitFailure, fmt.Errorf("export: nothing written to %s: %w", *file, err)
	}
	fmt.Fprintf(r.env.Stdout, "wrote %d items to %s\n", n, show(*file))
	return ExitOK, nil
}

// exportError words a refused export target.
func exportError(err error) error {
	var exists *safefile.ExistsError
	var link *safefile.SymlinkError
	var nr *safefile.NotRegularError
	switch {
	case errors.As(err, &exists):
		return policy.Errorf(policy.CodeConflict, "%v; add --force to replace it", err)
	case errors.As(err, &link), errors.As(err, &nr):
		return policy.Errorf(policy.CodeInvalidFile, "%v; nothing written", err)
	}
	return err
}

// windowPageCacheKiB is the SQLite page cache of each of the window's
// connections: it reads a few hundred rows at a time, all day, and the
// default (2,000 KiB each) was a tenth of its memory above a bare window.
const windowPageCacheKiB = 512

// window opens the console; with --demo, on the reference service
// in-process on a free loopback port, with a throwaway cache and token.
// When the reviewer chose "Remove all local data" in the window, it is
// done once the window and its cache are closed (wipe.go).
func (r *runner) window() (int, error) {
	wipe := false
	r.wipeAtExit = func() { wipe = true }
	code, err := r.openWindow()
	if err != nil || code != ExitOK || !wipe {
		return code, err
	}
	return r.wipe([]string{"--yes"})
}

func (r *runner) openWindow() (int, error) {
	if r.env.OpenWindow == nil {
		return ExitFailure, fmt.Errorf("this build has no window")
	}
	r.storeOpts = append(r.storeOpts, store.PageCache(windowPageCacheKiB))
	r.tightenPreferences() // wipe.go
	desk, err := r.desk()  // desk.go
	if err != nil {
		return ExitUsage, err
	}
	if r.g.demo {
		dir, err := os.MkdirTemp("", "reviewer-demo-")
		if err != nil {
			return ExitFailure, err
		}
		defer os.RemoveAll(dir)
		// The built-in pair: this window is ana; ben may join from a
		// second console with the line printed here.
		pair := screenapi.DemoReviewers()
		tok := pair[0].Token
		srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: pair,
			Latency: 80 * time.Millisecond, AnalysisLatency: 1200 * time.Millisecond})
		if err != nil {
			return ExitFailure, err
		}
		defer srv.Close()
		r.printDemoReviewers(srv.URL(), pair[1:])
		r.g.cfg.BaseURL, r.g.cfg.Token, r.g.cfg.TokenFile = srv.URL(), client.Secret(tok), ""
		r.g.db = filepath.Join(dir, "cache.db")
		// The throwaway cache's documents key goes with it: never into,
		// nor out of, the system keyring that real use keeps its key in.
		r.env.Keyring = keyring.InMemory(keyring.AppID + ".demo")
		svc, done, err := r.open()
		if err != nil {
			return exitFor(err), err
		}
		defer done()
		return ExitOK, r.env.OpenWindow(Window{Service: svc, Config: r.g.cfg, Demo: true, TokenSource: r.tokenSource(), ReviewerSource: r.whoFrom,
			DocumentLimits: r.g.docLimits, Desk: desk, Warnings: r.warnings})
	}
	// No token known (none in the environment, the keyring or the file
	// written at sign-in): the window opens on its first-start screen,
	// and opens the workflow through the session once signed in.
	sess := &Session{r: r}
	defer sess.Close()
	if err := r.resolveToken(); err != nil {
		// A kept token that cannot be used (a token file made unreadable,
		// a keyring entry changed by hand): the first-start screen says so,
		// and signing in replaces it. Nobody reads a terminal here.
		sess.note = err
	}
	w := Window{Config: r.g.cfg, SignIn: sess, ReviewerSource: r.whoFrom, DocumentLimits: r.g.docLimits, Desk: desk}
	if sess.SignedIn() {
		svc, err := sess.Open()
		if err != nil {
			return exitFor(err), err
		}
		w.Service, w.Config = svc, r.g.cfg
	}
	w.TokenSource, w.Warnings, w.WipeAtExit = r.tokenSource(), r.warnings, r.wipeAtExit
	return ExitOK, r.env.OpenWindow(w)
}
