package ui

import (
	"context"

	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Triage columns: the risk band beside the score, and how long
// the item has been in its status. Both are words first; colour only adds
// to them. When the table is wide they have columns of their own; when it
// is narrow (the default 1280-pixel window with the panel open) those
// columns go first, and their words move into the score and status cells
// ("73 · high", "→ awaiting file · 6 d · overdue"), so that they are never
// lost: the table's layout (the file name widest, the recommendation kept)
// holds around them. The columns themselves are defined with the others
// (items.go, allColumns).

// merges: a dropped column's words go into its host column, which grows by
// grow and shows text instead of its own.
var merges = map[string]struct {
	host string
	grow float32
	text func(review.ItemView) (string, widget.Importance)
	// wrap, when set, adds to the host's words (whatever merged in
	// before) instead of replacing them.
	wrap func(func(review.ItemView) (string, widget.Importance)) func(review.ItemView) (string, widget.Importance)
}{
	"Band": {"Score", 53, scoreBandCell, nil},  // "69 · medium" whole
	"Age":  {"Status", 97, statusAgeCell, nil}, // "→ awaiting file · 6 d · overdue" whole
	// Who holds the item stays in its row when the Action column goes
	// (the default 1280-pixel window with the panel open, across all
	// batches): "held: Ben · ✗ error · 6 d" (claims.go), first, so that a
	// cut cell never hides it; the column grows to its rows' words (fit).
	"Action": {"Status", 0, nil, withHolder},
}

// mergeInto moves a dropped column's words into its host, if it has one.
func (t *itemTable) mergeInto(cols []column, gone column) {
	m, ok := merges[gone.title]
	if !ok {
		return
	}
	for i := range cols {
		if cols[i].title == m.host {
			cols[i].width += m.grow
			if m.wrap != nil {
				cols[i].text = m.wrap(cols[i].text)
			} else {
				cols[i].text = m.text
			}
			if gone.sort != "" && gone.sort != cols[i].sort {
				t.alts[m.host] = gone.sort
			}
		}
	}
}

// bandLook is a band's word and colour: low green, medium plain, high
// amber, critical red. An item with no verdict has no band ("").
func bandLook(b policy.Band) (string, widget.Importance) {
	switch b {
	case policy.BandCritical:
		return "critical", widget.DangerImportance
	case policy.BandHigh:
		return "high", widget.WarningImportance
	case policy.BandMedium:
		return "medium", widget.MediumImportance
	case policy.BandLow:
		return "low", widget.SuccessImportance
	}
	return "", widget.MediumImportance
}

// band is the item's band, only for a checked item: whatever the view
// says, an error, an invalid answer or a missing one has none.
func band(v review.ItemView) policy.Band {
	if !v.Checked() {
		return ""
	}
	return v.Band
}

// bandCell is the band in words; an item with no verdict has none ("—").
func bandCell(v review.ItemView) (string, widget.Importance) {
	if text, imp := bandLook(band(v)); text != "" {
		return text, imp
	}
	return "—", widget.MediumImportance
}

// scoreBandCell is the score with its band beside it, coloured by the
// band: "73 · high". An item that was not checked shows a dash, plain.
func scoreBandCell(v review.ItemView) (string, widget.Importance) {
	word, imp := bandLook(band(v))
	if word == "" {
		return scoreText(v.Item), widget.MediumImportance
	}
	return scoreText(v.Item) + " · " + word, imp
}

// ageCell is the age in words, "overdue" spelled out; a snoozed item says so.
func ageCell(v review.ItemView) (string, widget.Importance) {
	if v.Age == "" {
		return "—", widget.MediumImportance
	}
	text := v.Age
	if v.Snoozed {
		text += " · snoozed"
	}
	return text, ageImportance(v.AgeLevel)
}

func ageImportance(l policy.AgeLevel) widget.Importance {
	switch l {
	case policy.AgeOverdue:
		return widget.DangerImportance
	case policy.AgeWarn:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

// statusAgeCell is the status with the age after it ("✗ error · 6 d ·
// overdue"); the cell takes the stronger of the two colours (an age only
// ever warns, never passes). Another reviewer's claim is the Action
// cell's (actionCell).
func statusAgeCell(v review.ItemView) (string, widget.Importance) {
	text, imp := statusLook(v.Item)
	if age, aimp := ageCell(v); v.Age != "" {
		text += " · " + age
		if severity(aimp) > severity(imp) {
			imp = aimp
		}
	}
	return text, imp
}

func severity(imp widget.Importance) int {
	switch imp {
	case widget.DangerImportance:
		return 3
	case widget.WarningImportance:
		return 2
	case widget.SuccessImportance:
		return 1
	}
	return 0
}

// headerText is a column's header with its sort mark; a column with
// another merged in names both ("Status · age ▲" sorts by age).
func (t *itemTable) headerText(col column) string {
	alt, ok := t.alts[col.title]
	if !ok {
		return col.title + t.sortMark(col.sort)
	}
	return col.title + t.sortMark(col.sort) + " · " + mergedWord(alt) + t.sortMark(alt)
}

func mergedWord(sortKey string) string {
	if sortKey == "since" {
		return "age"
	}
	return sortKey
}

// onHeader sorts by a column; the header of a column with another merged
// in goes round both: its own key up, down, then the other's up, down.
func (t *itemTable) onHeader(col column) {
	alt, ok := t.alts[col.title]
	if !ok {
		t.onSort(col.sort)
		return
	}
	switch {
	case t.sortBy == col.sort && !t.desc:
		t.desc = true
	case t.sortBy == col.sort:
		t.sortBy, t.desc = alt, false
	case t.sortBy == alt && !t.desc:
		t.desc = true
	default:
		t.sortBy, t.desc = col.sort, false
	}
	t.refresh()
}

// panelTriage is the panel's line under the verdict: the band of a risk
// score in its colour ("Risk band: high"), or how long a
// waiting item has been in its status ("In this status for 6 d ·
// overdue"); "" for neither. A checked item has no age and an unchecked
// one no band, so one line says either.
func panelTriage(v review.ItemView) (widget.Importance, string) {
	if word, imp := bandLook(band(v)); word != "" {
		return imp, "Risk band: " + word + "."
	}
	if v.Age == "" {
		return widget.MediumImportance, ""
	}
	text := "In this status for " + v.Age
	if v.Snoozed {
		text += " · snoozed"
	}
	return ageImportance(v.AgeLevel), text + "."
}

// withBand puts the band beside the risk score in the panel's verdict:
// "risk score 73 · high".
func withBand(verdict string, v review.ItemView) string {
	if word, _ := bandLook(band(v)); word != "" {
		return verdict + " · " + word
	}
	return verdict
}

// batchAges reads the oldest waiting age of the listed batches; nil when
// the read fails.
func (c *Console) batchAges(ctx context.Context, rows []store.BatchSummary) map[string]review.Aged {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	ages, err := c.wf.Listing.OldestWaiting(ctx, ids)
	if err != nil {
		return nil
	}
	return ages
}

// withAge adds a batch's oldest wait when it is past the warning
// threshold ("oldest 6 d · overdue"): in place of an empty second line, or
// on a line of its own below it, so that both fit the narrow list whole.
func withAge(line string, a review.Aged) (second, third string) {
	if a.AgeLevel != policy.AgeWarn && a.AgeLevel != policy.AgeOverdue {
		return line, ""
	}
	if line == "" {
		return "oldest " + a.Age, ""
	}
	return line, "oldest " + a.Age
}
