package store

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/policy"
)

// The schema cannot call policy, so it spells state sets once more: the
// CHECK on actions.state and the partial indexes of open actions. This
// test holds them to the action machine.
func TestSchemaFollowsTheActionMachine(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqlOf := func(typ, name string) string {
		var q string
		if err := db.db.QueryRowContext(context.Background(), `SELECT sql FROM sqlite_master WHERE type = ? AND name = ?`, typ, name).Scan(&q); err != nil {
			t.Fatalf("%s %s: %v", typ, name, err)
		}
		return q
	}
	states := func(list string) []policy.ActionState {
		var out []policy.ActionState
		for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(list, -1) {
			out = append(out, policy.ActionState(m[1]))
		}
		slices.Sort(out)
		return out
	}
	inList := regexp.MustCompile(`state IN \(([^)]*)\)`)
	check := inList.FindStringSubmatch(sqlOf("table", "actions"))
	if check == nil || !slices.Equal(states(check[1]), policy.ActionStates()) {
		t.Errorf("CHECK on actions.state %v, the machine's states %v", check, policy.ActionStates())
	}
	for _, idx := range []string{"actions_one_open", "actions_pending"} {
		m := inList.FindStringSubmatch(sqlOf("index", idx))
		if m == nil || !slices.Equal(states(m[1]), policy.OpenActionStates()) {
			t.Errorf("index %s covers %v, the machine's open states are %v", idx, m, policy.OpenActionStates())
		}
	}
	// The purge of a replacement's file when its action ends (00003,
	// 00012): on exactly the states that drop it, and never a way back
	// into an open one.
	var closed []policy.ActionState
	for _, st := range policy.ActionStates() {
		if st.DropsFile() {
			closed = append(closed, st)
		}
	}
	when := regexp.MustCompile(`NEW\.state IN \(([^)]*)\)`)
	for trig, want := range map[string][]policy.ActionState{"action_files_purge": closed, "action_files_no_reopen": policy.OpenActionStates()} {
		m := when.FindStringSubmatch(sqlOf("trigger", trig))
		if m == nil || !slices.Equal(states(m[1]), want) {
			t.Errorf("trigger %s fires on %v, the machine says %v", trig, m, want)
		}
	}
	if got := states(openSQL); !slices.Equal(got, policy.OpenActionStates()) {
		t.Errorf("openSQL %s", openSQL)
	}
	if !strings.Contains(leasableSQL, "'queued'") || strings.Contains(leasableSQL, "'done'") {
		t.Errorf("leasableSQL %s", leasableSQL)
	}
}

// The notes table spells the note machine's sets too: the CHECK on
// notes.state (every state a note keeps its row in) and the partial index
// of notes still on their way. This test holds them, and the store's own
// SQL sets, to policy's note machine.
func TestSchemaFollowsTheNoteMachine(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqlOf := func(typ, name string) string {
		var q string
		if err := db.db.QueryRowContext(context.Background(), `SELECT sql FROM sqlite_master WHERE type = ? AND name = ?`, typ, name).Scan(&q); err != nil {
			t.Fatalf("%s %s: %v", typ, name, err)
		}
		return q
	}
	states := func(list string) []policy.ActionState {
		var out []policy.ActionState
		for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(list, -1) {
			out = append(out, policy.ActionState(m[1]))
		}
		slices.Sort(out)
		return out
	}
	inList := regexp.MustCompile(`state IN \(([^)]*)\)`)
	kept := noteStatesWhere(policy.NoteKept)
	if check := inList.FindStringSubmatch(sqlOf("table", "notes")); check == nil || !slices.Equal(states(check[1]), kept) {
		t.Errorf("CHECK on notes.state %v, the note machine keeps a row in %v", check, kept)
	}
	if m := inList.FindStringSubmatch(sqlOf("index", "notes_pending")); m == nil || !slices.Equal(states(m[1]), policy.OpenNoteStates()) {
		t.Errorf("index notes_pending covers %v, the note machine's open states are %v", m, policy.OpenNoteStates())
	}
	// "done" needs the service's id: the state the machine answers with,
	// and the one a synced note enters.
	if !strings.Contains(sqlOf("table", "notes"), "state <> "+sqlState(policy.SyncedNoteState)+" OR remote_id IS NOT NULL") {
		t.Errorf("the notes table does not tie %s to the service's id", policy.SyncedNoteState)
	}
	if to, _ := policy.NoteTransition(policy.ActionSending, policy.EventAnswered); to != policy.SyncedNoteState {
		t.Errorf("an answered note is %s, a synced one %s", to, policy.SyncedNoteState)
	}
	for name, c := range map[string]struct {
		sql  string
		want []policy.ActionState
	}{
		"noteLeasableSQL": {noteLeasableSQL, policy.NoteStatesAllowing(policy.EventLease)},
		"noteOpenSQL":     {noteOpenSQL, policy.OpenNoteStates()},
		"noteCountsSQL":   {noteCountsSQL, noteStatesWhere(policy.NoteCounts)},
	} {
		if got := states(c.sql); !slices.Equal(got, c.want) || len(got) == 0 {
			t.Errorf("%s %s, the note machine says %v", name, c.sql, c.want)
		}
	}
}

// TestSchemaKnowsEveryKindOfAction: a kind of action is one descriptor in
// policy (policy.ActionKinds) and one migration; the CHECK on actions.kind
// holds exactly the descriptors' kinds, and the bulk runs' CHECK exactly
// those that may be planned in bulk.
func TestSchemaKnowsEveryKindOfAction(t *testing.T) {
	db, err := Open(t.TempDir() + "/c.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	kindsIn := func(table string) []string {
		var q string
		if err := db.db.QueryRowContext(context.Background(), `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&q); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		m := regexp.MustCompile(`kind\s+TEXT NOT NULL CHECK \(kind IN \(([^)]*)\)\)`).FindStringSubmatch(q)
		if m == nil {
			t.Fatalf("no CHECK on %s.kind in %s", table, q)
		}
		var out []string
		for _, k := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(m[1], -1) {
			out = append(out, k[1])
		}
		slices.Sort(out)
		return out
	}
	var all, bulk []string
	for _, d := range policy.ActionKinds() {
		all = append(all, string(d.Kind))
		if d.BulkSkip != nil {
			bulk = append(bulk, string(d.Kind))
		}
	}
	slices.Sort(all)
	slices.Sort(bulk)
	if got := kindsIn("actions"); !slices.Equal(got, all) {
		t.Errorf("CHECK on actions.kind %v, the descriptors' kinds %v", got, all)
	}
	if got := kindsIn("bulk_runs"); !slices.Equal(got, bulk) {
		t.Errorf("CHECK on bulk_runs.kind %v, the bulk kinds %v", got, bulk)
	}
}
