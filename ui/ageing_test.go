package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// triageRows: a score in each band, and items that were not checked, one
// of them with a band the view should never have carried.
func triageRows() []review.ItemView {
	band := func(v review.ItemView, b policy.Band) review.ItemView { v.Band = b; return v }
	aged := func(v review.ItemView, level policy.AgeLevel, age string) review.ItemView {
		v.AgeLevel, v.Age = level, age
		return v
	}
	awaiting := errorItem("await", "DECODE_FAILED")
	awaiting.Status, awaiting.ErrorCode, awaiting.Next = policy.StatusAwaitingFile, "", policy.Next{Kind: policy.NextWait}
	invalid := review.ItemView{ItemRow: store.ItemRow{Item: policy.MarkInvalid(policy.Item{ID: "inv", BatchID: "bat_1",
		FileName: "inv.jpg", ReportedCode: "CLASSIFIER_TIMEOUT"}, "error with a score")}}
	stray := errorItem("err", "CLASSIFIER_TIMEOUT")
	stray.Band = policy.BandCritical // a bug upstream must not make an error look checked
	return []review.ItemView{
		band(scoredItem("low", 12, policy.RecommendForward), policy.BandLow),
		band(scoredItem("medium", 69, policy.RecommendReview), policy.BandMedium),
		band(scoredItem("high", 73, policy.RecommendReview), policy.BandHigh),
		band(scoredItem("critical", 100, policy.RecommendReject), policy.BandCritical),
		aged(stray, policy.AgeOverdue, "12 d · overdue"),
		aged(awaiting, policy.AgeOverdue, "6 d · overdue"),
		aged(invalid, policy.AgeWarn, "3 d"),
	}
}

var bandWords = []string{"low", "medium", "high", "critical"}

// whole fails unless the cell's text fits its column: a word cut to "…"
// is a word the reviewer does not see.
func whole(t *testing.T, c *Console, row, col int) *widget.Label {
	t.Helper()
	l := c.cell(row, col)
	need := fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
	if have := c.items.cols[col].width; need > have {
		t.Fatalf("row %d, %s: %q needs %.0f px, the column has %.0f", row, c.items.cols[col].title, l.Text, need, have)
	}
	return l
}

// At the default 1280×800 with the panel open, every score has
// its band beside it, in words and colour, whole; an item that was not
// checked has none and never a pass colour; the age and "overdue" are in
// words at that width too; and the recommendation and action stay.
func TestTheBandSitsBesideEveryScoreAndTheAgeBesideTheStatus(t *testing.T) {
	wf := &fakeWorkflow{items: triageRows()}
	c := newTestConsole(t, wf)
	for _, all := range []bool{false, true} {
		c.apply(func() { c.batches.all.SetChecked(all) })
		c.Settle()
		if !c.panel.content.Visible() || c.win.Canvas().Size().Width != 1280 {
			t.Fatal("not the default window: 1280 wide with the panel open")
		}
		if !all {
			for _, title := range []string{"Rec.", "Action", "Code"} {
				c.col(t, title)
			}
		}
		score, status := c.col(t, "Score"), c.col(t, "Status")
		want := map[string]struct {
			text string
			imp  widget.Importance
		}{
			"low": {"12 · low", widget.SuccessImportance}, "medium": {"69 · medium", widget.MediumImportance},
			"high": {"73 · high", widget.WarningImportance}, "critical": {"100 · critical", widget.DangerImportance},
		}
		for r, v := range c.items.rows {
			sc, st := whole(t, c, r, score), whole(t, c, r, status)
			if w, ok := want[v.ID]; ok {
				if sc.Text != w.text || sc.Importance != w.imp {
					t.Fatalf("all=%v %s: score cell %q (importance %v), want %q (%v)", all, v.ID, sc.Text, sc.Importance, w.text, w.imp)
				}
				continue
			}
			if sc.Text != "—" || sc.Importance == widget.SuccessImportance {
				t.Fatalf("all=%v %s was not checked, its score cell says %q", all, v.ID, sc.Text)
			}
			for _, b := range bandWords {
				if strings.Contains(sc.Text+" "+st.Text, b) {
					t.Fatalf("all=%v %s was not checked, yet shows the band %q: %q / %q", all, v.ID, b, sc.Text, st.Text)
				}
			}
			if st.Importance == widget.SuccessImportance {
				t.Fatalf("all=%v %s looks like a pass: %q", all, v.ID, st.Text)
			}
			if !strings.Contains(st.Text, v.Age) {
				t.Fatalf("all=%v %s: status cell %q has no age %q", all, v.ID, st.Text, v.Age)
			}
			if v.AgeLevel == policy.AgeOverdue && (!strings.Contains(st.Text, "overdue") || st.Importance != widget.DangerImportance) {
				t.Fatalf("all=%v %s: overdue is not said in words and colour: %q %v", all, v.ID, st.Text, st.Importance)
			}
		}
	}
}

// The panel says the band next to the risk score, and its own
// line in the band's colour; an error shows its age instead, never a band.
func TestThePanelShowsTheBandBesideTheRiskScore(t *testing.T) {
	c := newTestConsole(t, &fakeWorkflow{items: triageRows()})
	open := func(id string) {
		t.Helper()
		for r, v := range c.items.rows {
			if v.ID == id {
				c.apply(func() { c.items.table.Select(widget.TableCellID{Row: r}) })
				c.Settle()
			}
		}
		if !c.panel.ready() || c.panel.detail.ID != id {
			t.Fatalf("the panel did not open %s", id)
		}
	}
	open("high")
	if !strings.Contains(c.panel.verdict.Text, "risk score 73 · high") {
		t.Fatalf("verdict %q", c.panel.verdict.Text)
	}
	if !c.panel.triage.Visible() || c.panel.triage.Text != "Risk band: high." || c.panel.triage.Importance != widget.WarningImportance {
		t.Fatalf("band line %q (%v)", c.panel.triage.Text, c.panel.triage.Importance)
	}
	open("err")
	text := c.panel.verdict.Text + " " + c.panel.triage.Text
	for _, b := range bandWords {
		if strings.Contains(text, b) {
			t.Fatalf("an error shows the band %q: %q", b, text)
		}
	}
	if c.panel.triage.Text != "In this status for 12 d · overdue." || c.panel.triage.Importance != widget.DangerImportance {
		t.Fatalf("age line %q (%v)", c.panel.triage.Text, c.panel.triage.Importance)
	}
}

// Where the age sits in the status cell, the status header sorts
// by the status and then by the age, and says which.
func TestTheStatusHeaderAlsoSortsByAge(t *testing.T) {
	wf := &fakeWorkflow{items: triageRows()}
	c := newTestConsole(t, wf)
	if c.items.hasColumn("Age") {
		t.Fatal("at the default width the age has a column of its own: nothing to merge")
	}
	col := c.items.cols[c.col(t, "Status")]
	var got []string
	for range 4 {
		c.apply(func() { c.items.onHeader(col) })
		c.Settle()
		f := wf.filters[len(wf.filters)-1]
		got = append(got, f.SortBy+map[bool]string{true: " desc", false: ""}[f.Desc]+" "+c.items.headerText(col))
	}
	want := "status Status ▲ · age|status desc Status ▼ · age|since Status · age ▲|since desc Status · age ▼"
	if strings.Join(got, "|") != want {
		t.Fatalf("header cycle:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// agesFake adds the oldest wait per batch to the window tests' fake.
type agesFake struct{ *fakeWorkflow }

func (agesFake) OldestWaiting(context.Context, []string) (map[string]review.Aged, error) {
	return map[string]review.Aged{
		"bat_48": {AgeLevel: policy.AgeOverdue, Age: "6 d · overdue"},
		"bat_43": {AgeLevel: policy.AgeFresh, Age: "3 h"},
	}, nil
}

func TestTheBatchListShowsTheOldestOverdueAge(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1280, 800))
	c := NewConsole(w, workflowOf(agesFake{twoBatches()}), Options{Prefs: a.Preferences()})
	c.apply(c.reload)
	c.Settle()
	second := func(i int) string {
		row := c.batches.list.CreateItem()
		c.batches.list.UpdateItem(i, row)
		l := row.(*fyne.Container).Objects[3].(*textLabel)
		if !l.Visible() {
			return ""
		}
		return l.Text
	}
	if got := second(0); got != "oldest 6 d · overdue" {
		t.Fatalf("overdue batch: %q", got)
	}
	if got := second(1); got != "" {
		t.Fatalf("a fresh batch shows an age: %q", got)
	}
	// With a second line of its own, the age goes on a third: each whole.
	if second, third := withAge("1 awaiting file", review.Aged{AgeLevel: policy.AgeOverdue, Age: "8 d · overdue"}); second != "1 awaiting file" || third != "oldest 8 d · overdue" {
		t.Fatalf("%q / %q", second, third)
	}
}
