package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

var fyneShortcutCtrlF = desktopShortcut{key: fyne.KeyF}

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

// statusLook is the text and importance of an item's status. Only a checked
// item may look like a pass; an error or an invalid answer never does.
func statusLook(it policy.Item) (string, widget.Importance) {
	switch it.Status {
	case policy.StatusScored:
		if !it.Checked() {
			return "? invalid", widget.WarningImportance
		}
		switch it.Recommendation {
		case policy.RecommendForward:
			return "✓ forward", widget.SuccessImportance
		case policy.RecommendReject:
			return "■ reject", widget.DangerImportance
		}
		return "▲ review", widget.WarningImportance
	case policy.StatusError:
		return "✗ error", widget.DangerImportance
	case policy.StatusInvalid:
		return "? invalid answer", widget.WarningImportance
	case policy.StatusPending:
		return "… pending", widget.LowImportance
	case policy.StatusAwaitingFile:
		return "→ awaiting file", widget.MediumImportance
	}
	return string(it.Status), widget.WarningImportance
}

// actionText is the row's action cell: the state of the newest action
// (the panel names its kind).
func actionText(v review.ItemView) string {
	if v.Action == nil {
		return ""
	}
	switch v.Action.State {
	case policy.ActionUnknown:
		return "checking…"
	case policy.ActionFailed:
		return "refused"
	}
	return string(v.Action.State)
}

// sentence turns an error into one sentence for a person.
func sentence(err error) string {
	var pe *policy.Error
	if errors.As(err, &pe) {
		return capitalize(pe.Message)
	}
	code := policy.ErrorCode(err)
	switch code {
	case policy.CodeAPIUnreachable:
		return "The screening API could not be reached."
	case policy.CodeCircuitOpen:
		return "The screening API stopped answering; calls are paused for a while."
	case policy.CodeOutcomeUnknown:
		return "The request went out but no answer came back."
	case policy.CodeDeadlineExceeded:
		return "There was no time left to make the call."
	case policy.CodeTLSUntrusted:
		return "The screening API's certificate is not trusted; nothing was sent."
	}
	return fmt.Sprintf("%s: %s", code, policy.ErrorMessage(err))
}

// resultSentence says what became of an action.
func resultSentence(res review.Result) string {
	a := res.Action
	switch a.State {
	case policy.ActionDone:
		if res.Item != nil {
			return "Done. " + policy.Describe(*res.Item)
		}
		return "Done."
	case policy.ActionQueued:
		return "Not sent: " + sentence(res.Err) + " It is queued and goes out with the next sync."
	case policy.ActionUnknown:
		return "Sent, but the outcome is unknown: " + sentence(res.Err) + " The next sync checks it with the same key; it will not run twice."
	case policy.ActionFailed:
		return "The screening API refused it: " + sentence(res.Err)
	}
	return "The action is " + string(a.State) + "."
}

// capitalize makes a lower-case error message a sentence.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
