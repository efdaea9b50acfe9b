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
