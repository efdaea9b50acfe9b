package ui

import (
	"errors"
	"fmt"
	"log"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

func clock(t time.Time) string { return t.Local().Format("15:04") }

func dayClock(t time.Time) string { return t.Local().Format("Jan 2 15:04") }

// scoreText is the score cell: a dash unless the item was checked. Never 0.
func scoreText(it policy.Item) string {
	if !it.Checked() {
		return "—"
	}
	return strconv.Itoa(*it.RiskScore)
}

func recommendationText(it policy.Item) string {
	if !it.Checked() {
		return "—"
	}
	return string(it.Recommendation)
}

// statusWord is the one vocabulary for an item's status (policy's): the
// rows, the panel and the status filter all use it.
func statusWord(s policy.Status) string { return policy.StatusWord(s) }

// statusLook is the text and importance of an item's status. Only a checked
// item may look like a pass; an error or an invalid answer never does.
func statusLook(it policy.Item) (string, widget.Importance) {
	switch it.Status {
	case policy.StatusScored:
		if !it.Checked() {
			return "? " + statusWord(policy.StatusInvalid), widget.WarningImportance
		}
		switch it.Recommendation {
		case policy.RecommendForward:
			return "✓ scored", widget.SuccessImportance
		case policy.RecommendReject:
			return "■ scored", widget.DangerImportance
		}
		return "▲ scored", widget.WarningImportance
	case policy.StatusError:
		return "✗ error", widget.DangerImportance
	case policy.StatusInvalid:
		return "? invalid answer", widget.WarningImportance
	case policy.StatusPending:
		return "… pending", widget.MediumImportance
	case policy.StatusAwaitingFile:
		return "→ awaiting file", widget.MediumImportance
	}
	return statusWord(it.Status), widget.WarningImportance
}

// actionText is the row's action cell: the state of the newest action
// (the panel names its kind).
func actionText(v review.ItemView) string {
	if v.Action == nil {
		return ""
	}
	if v.Action.State == policy.ActionQueued && !v.Action.NotBefore.IsZero() {
		// A 429: the service ran nothing and said when to come back.
		return stateWord(v.Action.State) + " · rate limited until " + clock(v.Action.NotBefore)
	}
	return stateWord(v.Action.State)
}

func stateWord(s policy.ActionState) string { return policy.StateWord(s) }

// headlineFor is one sentence naming the code once.
func headlineFor(code policy.Code) string { return policy.Headline(code) }

// explain turns an error into a headline for a person (what happened, in
// words, with the code named once) and the raw text (parser, driver or SQL
// messages) that belongs in a Details area and the log, never the headline.
func explain(err error) (headline, details string) {
	if err == nil {
		return "", ""
	}
	var pe *policy.Error
	if errors.As(err, &pe) && !isClientError(err) {
		// The console's own refusals are written for people already.
		return capitalize(safetext.Sentence(pe.Message)), ""
	}
	code := policy.ErrorCode(err)
	headline = headlineFor(code)
	if _, ok := client.AsError(err); !ok && code == policy.CodeInternal {
		headline = "The console failed to read or write its local cache (INTERNAL_ERROR)."
	}
	details = safetext.Sentence(oneLine(err.Error()))
	log.Printf("reviewer: %s", details)
	return headline, details
}

func isClientError(err error) bool { _, ok := client.AsError(err); return ok }

// sentence turns an error into one sentence for a person.
func sentence(err error) string {
	h, _ := explain(err)
	return h
}

// actionNote says what became of an item's newest action, drawn from its
// state now (never from what was said before), and the raw error text for
// the Details area.
func actionNote(kind policy.ActionKind, state policy.ActionState, code policy.Code, lastErr string, at time.Time) (headline, details string) {
	what := policy.ActionWord(kind)
	switch state {
	case policy.ActionQueued:
		headline = "The " + what + " is queued: nothing of it reached the API. It goes out by itself when the API answers again."
		if h := headlineFor(code); h != "" {
			headline = h + " " + headline
		}
	case policy.ActionSending:
		headline = "The " + what + " is being sent."
	case policy.ActionUnknown:
		headline = "The " + what + " went out, but no answer came back. The console checks it with the same key when the API answers; it will not run twice."
		if code != "" && code != policy.CodeOutcomeUnknown {
			headline = headlineFor(code) + " " + headline
		}
	case policy.ActionFailed:
		headline = "The screening API refused the " + what + "."
		if h := headlineFor(code); h != "" {
			headline = h + " " + headline
		}
	case policy.ActionDone:
		headline = "The " + what + " is done"
		if !at.IsZero() {
			headline += " (" + dayClock(at) + ")"
		}
		headline += "."
	case policy.ActionCancelled:
		headline = "The " + what + " was cancelled before it was sent; nothing of it reached the API."
	default:
		headline = "The " + what + " is " + string(state) + "."
	}
	if state != policy.ActionDone && state != policy.ActionCancelled {
		details = shownLong(lastErr)
	}
	return headline, details
}

// capitalize makes a lower-case error message a sentence.
func capitalize(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// humanDuration rounds a duration for a person: "30 s", "1.5 s", "250 ms".
func humanDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < time.Second:
		return strconv.Itoa(int(d.Round(time.Millisecond)/time.Millisecond)) + " ms"
	case d < 10*time.Second:
		s := strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64)
		return s + " s"
	case d < 2*time.Minute:
		return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
	}
	return fmt.Sprintf("%d min", int(d.Round(time.Minute)/time.Minute))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
