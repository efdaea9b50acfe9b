package policy

import "time"

// ActionKind is what a reviewer asked for.
type ActionKind string

const (
	ActionResubmit    ActionKind = "resubmit"
	ActionFileRequest ActionKind = "file_request"
	ActionReplacement ActionKind = "replacement"
	// ActionDecision is a reviewer's decision on an item (contract 1.2).
	ActionDecision ActionKind = "decision"
	// ActionConfirmation is a second reviewer's confirmation, or return,
	// of a decision awaiting one (contract 1.2).
	ActionConfirmation ActionKind = "confirmation"
)

// KindSpec is everything the console's rules say about one kind of
// action, in one place: every place that treats kinds differently reads
// it (the workflow's send and "queue again", the words, the cost, the
// window's attempt lines, the command line's bulk commands). A new kind
// is one more row of actionKinds, one migration (the actions table's
// CHECK), and its screens: docs/architecture.md lists what it touches.
type KindSpec struct {
	Kind ActionKind
	// Word names the kind for a person: "re-submission" (ActionWord).
	Word string
	// Paid: the action runs the service's paid analysis (rule 8 weighs it).
	Paid bool
	// IfMatch: the action is a decision on what the reviewer saw, and
	// carries the revision she saw as If-Match (contract 1.1). A note,
	// which is no decision, carries none.
	IfMatch bool
	// Endpoint is the contract's endpoint, for messages and the docs.
	Endpoint string
	// Command is the command line's name for it ("request-file").
	Command string
	// BulkSkip, for a kind that may be planned over many items (the
	// command line's and the window's bulk runs), says why a plan leaves
	// an item out ("" keeps it); nil for a kind taken one item at a time.
	BulkSkip func(Situation) Skip
	// Message: the action carries the reviewer's message to the customer
	// (CheckCustomerMessage keeps it).
	Message bool
	// Check says whether a reviewer may take it on an item now (nil) or
	// why not; policy.CanResubmit and the like.
	Check func(Situation) error
	// AfterDone is the item once the service accepted the action, for a
	// kind whose answer is not the item (a file request answers with the
	// request): before is the item as cached, sent the revision sent as
	// If-Match (0: none), at when the service says it was made. Nil for a
	// kind answered with the item itself.
	AfterDone func(before Item, sent int64, at time.Time) Item
	// Judge, for a kind that carries what the reviewer chose (a decision's
	// outcome, reason and comment; a confirmation's answer), says whether
	// she may take it with that intent on the item now, after Check, and
	// returns the intent as it will be sent (a comment trimmed, the
	// decision a confirmation answers). Nil for a kind whose Check says all.
	Judge func(Situation, Intent) (Intent, error)
}

// Intent is what a reviewer chose for an action of a kind that carries
// it: a decision's outcome, reason code and comment, or a confirmation's
// answer (Agree, Comment) to the decision DecisionID. Me is who she is,
// Reasons the service's list of reason codes as the console keeps it.
type Intent struct {
	Outcome    Outcome
	Reason     string
	Comment    string
	Agree      bool
	DecisionID string
	Me         string
	Reasons    []ReasonCode
}

// Allowed says whether a reviewer may take an action of this kind with
// intent in on the item now: the kind's Check, then its Judge. It returns
// the intent as it will be sent.
func (d KindSpec) Allowed(s Situation, in Intent) (Intent, error) {
	if d.Check != nil {
		if err := d.Check(s); err != nil {
			return in, err
		}
	}
	if d.Judge != nil {
		return d.Judge(s, in)
	}
	return in, nil
}

var actionKinds = []KindSpec{
	{Kind: ActionResubmit, Word: "re-submission", Paid: true, IfMatch: true,
		Endpoint: "POST /v1/items/{id}/resubmissions", Command: "resubmit", BulkSkip: ResubmitSkip, Check: CanResubmit},
	{Kind: ActionFileRequest, Word: "request for a new file", Paid: false, IfMatch: true,
		Endpoint: "POST /v1/items/{id}/file-requests", Command: "request-file", BulkSkip: RequestFileSkip, Check: CanRequestFile,
		Message: true, AfterDone: awaitingFile},
	{Kind: ActionReplacement, Word: "replacement upload", Paid: true, IfMatch: true,
		Endpoint: "POST /v1/items/{id}/replacement", Command: "replace", Check: CanReplace},
	{Kind: ActionDecision, Word: "decision", Paid: false, IfMatch: true,
		Endpoint: "POST /v1/items/{id}/decisions", Command: "decide", Check: takesDecisions, Judge: judgeDecision},
	{Kind: ActionConfirmation, Word: "confirmation", Paid: false, IfMatch: true,
		Endpoint: "POST /v1/items/{id}/decisions/{decision_id}/confirmation", Command: "confirm", Check: takesDecisions, Judge: judgeConfirmation},
}

// ActionKinds lists the descriptors of every kind of action, in the
// order the console offers them.
func ActionKinds() []KindSpec { return append([]KindSpec(nil), actionKinds...) }

// DescribeKind is the descriptor of kind k; false for a kind this console
// does not know.
func DescribeKind(k ActionKind) (KindSpec, bool) {
	for _, d := range actionKinds {
		if d.Kind == k {
			return d, true
		}
	}
	return KindSpec{}, false
}

// KindForCommand is the kind the command line's command names; false for
// a command that names none.
func KindForCommand(cmd string) (ActionKind, bool) {
	for _, d := range actionKinds {
		if d.Command == cmd {
			return d.Kind, true
		}
	}
	return "", false
}

// Paid reports whether the action runs the service's paid analysis: a
// re-submission and a replacement file do; a file request (and a note)
// costs nothing. An unknown kind is not said to be paid.
func (k ActionKind) Paid() bool {
	d, ok := DescribeKind(k)
	return ok && d.Paid
}

// awaitingFile is an item after the service accepted a request for a new
// file: awaiting the file, its error gone, exactly one change on top of
// the revision sent as If-Match (none sent: the cached one stands), and
// changed when the request was made if that is later.
func awaitingFile(before Item, sent int64, at time.Time) Item {
	it := before
	it.Status, it.ErrorCode, it.ErrorMessage = StatusAwaitingFile, "", ""
	if sent > 0 {
		it.Revision = sent + 1
	}
	if at.After(it.UpdatedAt) {
		it.UpdatedAt = at
	}
	return it
}
