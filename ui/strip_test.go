package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// drawnSegment is the words a Fyne label's renderer draws: its rich
// text's one segment, which the label rewrites from its Text at each
// refresh.
func drawnSegment(t *testing.T, w fyne.Widget) *widget.TextSegment {
	t.Helper()
	for _, o := range test.WidgetRenderer(w).Objects() {
		if rt, ok := o.(*widget.RichText); ok && len(rt.Segments) == 1 {
			if seg, ok := rt.Segments[0].(*widget.TextSegment); ok {
				return seg
			}
		}
	}
	t.Fatalf("%T draws no one-segment rich text", w)
	return nil
}

// The strip is shown again every few seconds with the same words; Fyne
// redraws the whole window for a label refreshed, whatever its words
// (docs/performance.md, latency7). Each label is refreshed only when its
// words or colour change: a mark put on the drawn words stays through a
// show of the same state, and goes when the state changes.
func TestTheStripRedrawsOnlyWhatChanged(t *testing.T) {
	test.NewTempApp(t)
	s := newStatusStrip(false, stripHandlers{})
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(1280, 120))
	now := time.Date(2026, 12, 6, 9, 30, 0, 0, time.Local)
	st := review.Connectivity{LastSync: now.Add(-time.Minute), Conn: review.Connection{State: review.ConnOnline}}
	s.show(st, "ana", now)

	labels := map[string]fyne.Widget{"connection": s.conn, "last sync": s.synced, "reviewer": s.reviewer}
	mark := func() {
		for _, l := range labels {
			drawnSegment(t, l).Text = "marked"
		}
	}
	marked := func(name string) bool { return drawnSegment(t, labels[name]).Text == "marked" }

	mark()
	s.show(st, "ana", now.Add(5*time.Second))
	for name := range labels {
		if !marked(name) {
			t.Errorf("the %s was redrawn with the same words", name)
		}
	}

	// The outbox changes: the last sync's line is redrawn, nothing else.
	st.Outbox = store.OutboxCount{Queued: 1}
	s.show(st, "ana", now.Add(10*time.Second))
	if marked("last sync") || !marked("connection") || !marked("reviewer") {
		t.Errorf("a queued action: redrawn connection %v, last sync %v, reviewer %v; want the last sync only",
			!marked("connection"), !marked("last sync"), !marked("reviewer"))
	}
	if got := drawnSegment(t, s.synced).Text; got != "synced "+clock(st.LastSync)+" · 1 queued" {
		t.Errorf("last sync drawn %q", got)
	}

	// The service goes: the connection's words and colour change.
	mark()
	st.Conn.State = review.ConnOffline
	s.show(st, "ana", now.Add(15*time.Second))
	if marked("connection") || s.conn.Importance != widget.WarningImportance {
		t.Errorf("offline: connection drawn %q in %v", drawnSegment(t, s.conn).Text, s.conn.Importance)
	}
	// The colour alone changes (the words are the same): redrawn.
	mark()
	s.conn.Importance = widget.SuccessImportance
	s.show(st, "ana", now.Add(20*time.Second))
	if marked("connection") || s.conn.Importance != widget.WarningImportance {
		t.Errorf("the colour alone changed: connection drawn %q in %v", drawnSegment(t, s.conn).Text, s.conn.Importance)
	}
	// Another reviewer's name: redrawn.
	s.show(st, "ben", now.Add(25*time.Second))
	if marked("reviewer") {
		t.Error("another reviewer: the name is not redrawn")
	}
}
