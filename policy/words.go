package policy

import "strings"

// codeWords says in words what a code of the API, or of the console, means
// for a person. The code itself is named once, in brackets, by headline.
var codeWords = map[Code]string{
	CodeAPIUnreachable:          "The screening API could not be reached",
	CodeCircuitOpen:             "The screening API stopped answering, so calls are paused for a while",
	CodeOutcomeUnknown:          "The request went out but no answer came back",
	CodeDeadlineExceeded:        "There was no time left to make the call",
	CodeTLSUntrusted:            "The screening API's certificate is not trusted, so nothing was sent",
	CodeInvalidResponse:         "The screening API sent an answer the console cannot read",
	CodeRateLimited:             "The screening API asked the console to slow down",
	CodeUnauthenticated:         "The screening API did not accept the console's token",
	CodeForbidden:               "The screening API does not allow this reviewer to do that",
	CodeNotFound:                "The screening API does not know this item",
	CodeValidationFailed:        "The screening API found the request malformed",
	CodeNotRetryable:            "The screening API says a re-run cannot help this item",
	CodeIdempotencyKeyInUse:     "The first request with this key is still running at the screening API",
	CodeIdempotencyKeyReused:    "The screening API saw this key with a different request",
	CodeServiceUnavailable:      "The screening API is unavailable for now",
	CodeInternal:                "Something failed inside the console or the service",
	CodeItemChanged:             "The item changed since you saw it",
	CodeClaimed:                 "Another reviewer holds this item",
	CodeNotOffered:              "This service does not offer it",
	CodeNotChecked:              "An item that could not be checked can never be cleared",
	CodeNotDecidable:            "The item cannot be decided while its analysis runs",
	CodeSameReviewer:            "A second reviewer must confirm a decision, never its author",
	CodeNotAwaitingConfirmation: "The decision does not await a confirmation",
	CodeActionOpen:              "The item already has an open action",
	CodeRateLimitWait:           "The screening API asked the console to wait before the next call",
	CodeInvalidFile:             "The file was refused before anything was sent",
	CodeFileUnchecked:           "The console could not check the file, so nothing was sent",
	CodeConflict:                "The item or the action is not in a state that allows this",
	CodeInvalidInput:            "The input or the configuration is not valid",
	CodeCacheBusy:               "The cache was busy with another process's writing for too long, so nothing was written",
	CodeCancelled:               "You cancelled it",
}

// Headline is one sentence for a person about a code: what happened, in
// words, naming the code once in brackets ("" for no code). The window's
// messages and the command line's stderr both lead with it; raw parser,
// driver or SQL text goes after it, as details, never in it.
func Headline(code Code) string {
	if code == "" {
		return ""
	}
	w, ok := codeWords[code]
	if !ok {
		if info := Info(code); info.Code == code {
			return info.Explanation
		}
		w = "The screening API answered with an error"
	}
	return w + " (" + string(code) + ")."
}

// ActionWord names an action's kind for a person, the same in the window,
// the command line and the workflow's messages: its descriptor's Word
// (kinds.go); "action" for a kind this console does not know.
func ActionWord(k ActionKind) string {
	if d, ok := DescribeKind(k); ok {
		return d.Word
	}
	return "action"
}

// StatusWord is the one word for an item's status shown to a person: the
// window's rows, panel and status filter use it.
func StatusWord(s Status) string {
	switch s {
	case StatusScored:
		return "scored"
	case StatusError:
		return "error"
	case StatusInvalid:
		return "invalid answer"
	case StatusPending:
		return "pending"
	case StatusAwaitingFile:
		return "awaiting file"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// StateWord is the word for an action's state shown to a person: a failed
// action was refused (by the service, or turned away), an unknown one is
// "unknown".
func StateWord(s ActionState) string {
	switch s {
	case ActionFailed:
		return "refused"
	case ActionQueued, ActionSending, ActionUnknown, ActionDone, ActionCancelled:
		return string(s)
	}
	return strings.ReplaceAll(string(s), "_", " ")
}
