package ui

import (
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// Triage columns (issue 12): the risk band beside the score, and how long
// the item has been in its status. Both are words first; colour only adds
// to them. They need the room the panel leaves when hidden (or a wide
// window): a narrow table drops them first, so that issue 9's layout
// (the file name widest, the recommendation kept) holds.

func init() {
	allColumns = insertAfter(allColumns, "Score", column{"Band", "score", 60, 5, bandCell})
	allColumns = insertAfter(allColumns, "Status", column{"Age", "since", 80, 6, ageCell})
}

func insertAfter(cols []column, title string, c column) []column {
	for i, col := range cols {
		if col.title == title {
			out := append([]column{}, cols[:i+1]...)
			out = append(out, c)
			return append(out, cols[i+1:]...)
		}
	}
	return append(cols, c)
}

// bandCell is the band in words; an item with no verdict has none ("—").
func bandCell(v review.ItemView) (string, widget.Importance) {
	switch v.Band {
	case policy.BandCritical:
		return "critical", widget.DangerImportance
	case policy.BandHigh:
		return "high", widget.WarningImportance
	case policy.BandMedium:
		return "medium", widget.MediumImportance
	case policy.BandLow:
		return "low", widget.MediumImportance
	}
	return "—", widget.MediumImportance
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
	switch v.AgeLevel {
	case policy.AgeOverdue:
		return text, widget.DangerImportance
	case policy.AgeWarn:
		return text, widget.WarningImportance
	}
	return text, widget.MediumImportance
}
