package ui

import (
	"testing"
	"time"
)

func TestSnoozeOffersTheNextSevenDaysByName(t *testing.T) {
	now := time.Date(2026, 11, 30, 15, 0, 0, 0, time.Local) // a Monday
	labels, days := snoozeDays(now)
	if len(labels) != 7 || labels[0] != "Tuesday 1 Dec" || labels[6] != "Monday 7 Dec" {
		t.Fatalf("%q", labels)
	}
	if days[0].Hour() != 9 || !days[0].After(now) {
		t.Fatalf("%v", days[0])
	}
}
