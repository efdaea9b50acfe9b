package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
)

// fyneRows is what Fyne's own word wrapping draws of text at a label's
// width: its rows, top to bottom.
func fyneRows(t *testing.T, text string, width float32, style fyne.TextStyle) []string {
	t.Helper()
	l := widget.NewLabel(text)
	l.Wrapping, l.TextStyle = fyne.TextWrapWord, style
	// Laid out twice: the first at one line's height, the second at the
	// height of the rows the width gave.
	l.Resize(fyne.NewSize(width, l.MinSize().Height))
	l.Resize(fyne.NewSize(width, l.MinSize().Height))
	return drawnRows(l)
}

// drawnRows are the texts a label draws, top to bottom.
func drawnRows(o fyne.CanvasObject) []string {
	var rows []string
	for _, x := range test.LaidOutObjects(o) {
		if tx, ok := x.(*canvas.Text); ok && tx.Visible() && tx.Text != "" {
			rows = append(rows, tx.Text)
		}
	}
	return rows
}

// The panel's sentences break where Fyne's own wrapping breaks them, at
// every width from the panel's narrowest to wider than the window, in both
// of the panel's styles; each line fits and the words are all there.
func TestWrappedLabelsBreakWhereFyneDoes(t *testing.T) {
	test.NewTempApp(t)
	var texts []string
	for _, code := range policy.ItemCodes() {
		texts = append(texts, policy.Describe(policy.Item{Status: policy.StatusError, ErrorCode: code})+" (code "+string(code)+")")
	}
	texts = append(texts,
		"ID document · itm_0100_02 · CUST-7100 · attempt 1",
		"✓ scored · forward · risk 24 · low",
		"Re-submit is off: a new file is needed (DECODE_FAILED). Request one, or upload the one the customer sent.",
		"Who acts next: Ana Lima, the reviewer who holds it.",
		"a_single_word_far_wider_than_any_line_of_the_panel_so_it_is_cut_where_it_must_be",
		"two\nparagraphs, the second one long enough to wrap at the narrowest width",
	)
	pad := theme.Size(theme.SizeNameInnerPadding)
	size := theme.Size(theme.SizeNameText)
	for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
		for _, w := range []float32{120, 180, 274, 333, 420, 640, 1280} {
			for _, text := range texts {
				want := fyneRows(t, text, w, style)
				got := strings.Split(breakLines(text, w-2*pad, size, style), "\n")
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("width %v, bold %v, %q:\n ours %q\nFyne's %q", w, style.Bold, text, got, want)
				}
				for _, line := range got {
					if lw := fyne.MeasureText(line, size, style).Width; lw > w-2*pad && len([]rune(line)) > 1 {
						t.Errorf("width %v: %q is %v wide, more than %v", w, line, lw, w-2*pad)
					}
				}
			}
		}
	}
}

// A wrapped label keeps the words it was given, draws them in lines that
// fit, and breaks them again when its width changes: narrower, more lines
// and a taller least size; the width it asks for is none of its own.
func TestAWrappedLabelBreaksAgainAtANewWidth(t *testing.T) {
	test.NewTempApp(t)
	text := policy.Describe(policy.Item{Status: policy.StatusError, ErrorCode: policy.CodeDecodeFailed})
	l := wrapped(text)
	w := test.NewWindow(l)
	defer w.Close()
	l.Resize(fyne.NewSize(600, l.MinSize().Height))
	wide, wideH := drawnRows(l), l.MinSize().Height
	l.Resize(fyne.NewSize(200, l.MinSize().Height))
	narrow, narrowH := drawnRows(l), l.MinSize().Height
	if l.Text != text {
		t.Fatalf("the label's words changed: %q", l.Text)
	}
	if len(narrow) <= len(wide) || narrowH <= wideH {
		t.Fatalf("at 200 wide %d rows (%v high), at 600 %d rows (%v high)", len(narrow), narrowH, len(wide), wideH)
	}
	if strings.Join(narrow, " ") != text || strings.Join(wide, " ") != text {
		t.Fatalf("the rows lost words:\n%q\n%q", narrow, wide)
	}
	if mw := l.MinSize().Width; mw > 2*theme.Size(theme.SizeNameInnerPadding) {
		t.Fatalf("a wrapped label asks for %v of width", mw)
	}
	l.SetText("Checked by the service; nothing to re-submit.")
	if got := drawnRows(l); strings.Join(got, " ") != "Checked by the service; nothing to re-submit." {
		t.Fatalf("after SetText it draws %q", got)
	}
	// A label made to wrap after it was built breaks its own lines too; one
	// that does not wrap keeps Fyne's renderer.
	late := newLabel(text)
	late.Wrapping = fyne.TextWrapWord
	if _, ok := test.TempWidgetRenderer(t, late).(*linesRenderer); !ok {
		t.Fatal("a label given TextWrapWord after newLabel does not break its own lines")
	}
	if _, ok := test.TempWidgetRenderer(t, newLabel(text)).(*linesRenderer); ok {
		t.Fatal("a label that does not wrap breaks lines")
	}
	l.Importance = widget.DangerImportance
	l.Refresh()
	for _, x := range test.LaidOutObjects(l) {
		if tx, ok := x.(*canvas.Text); ok && tx.Text != "" && tx.Color != theme.Color(theme.ColorNameError) {
			t.Fatalf("a danger label draws %q in %v", tx.Text, tx.Color)
		}
	}
}

// A wrapped label whose renderer Fyne makes again (it frees the renderer
// of a widget it has not drawn for a minute, and lays nothing out after)
// breaks its lines at the width it has, not as one long line: the words
// drawn ahead for the rows beside hers (words.go) are hidden most of the
// time, and must break as the panel's do.
func TestAWrappedLabelsNewRendererBreaksAtItsWidth(t *testing.T) {
	test.NewTempApp(t)
	text := "Not checked: The file could not be decoded as an image or PDF. A new file is needed from the customer."
	l := wrapped(text)
	l.Resize(fyne.NewSize(274, 200))
	want := drawnRows(l)
	if len(want) < 2 {
		t.Fatalf("laid out at 274: %q", want)
	}
	r := l.CreateRenderer() // as Fyne makes it again, with no layout after
	got := drawnRows(r.Objects()[0])
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("a new renderer draws %q, the label laid out drew %q", got, want)
	}
}
