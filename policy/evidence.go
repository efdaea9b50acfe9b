package policy

import "time"

// Evidence: what one HTTP attempt was and how it ended. The client records
// it, the store keeps it, the workflow maps its class to an event of the
// action machine, and the window and the command line show it. One type for
// all of them, here, because the client and the store never import each
// other. Deciding a retry is not policy's: that is the client's alone.

// Class is the outcome class of one attempt or one call. Every call ends in
// exactly one.
type Class string

const (
	ClassOK           Class = "ok"            // a valid 2xx answer
	ClassNotConnected Class = "not_connected" // nothing of the request was written
	ClassUnknown      Class = "unknown"       // the request went out, no complete answer came back
	ClassAnsweredNo   Class = "answered_no"   // the service answered with an error code
	ClassRateLimited  Class = "rate_limited"  // 429
	ClassUntrusted    Class = "untrusted"     // the certificate failed verification
	ClassBadAnswer    Class = "bad_answer"    // a 2xx that breaks the contract
	ClassNotStarted   Class = "not_started"   // no budget, circuit open, cancelled before sending
)

// Attempt is the evidence of one HTTP attempt.
type Attempt struct {
	Number         int           `json:"number"`
	Start          time.Time     `json:"start"`
	Deadline       time.Time     `json:"deadline"`        // the operation's deadline
	SpentBefore    time.Duration `json:"spent_before"`    // time the operation had used before this attempt
	ConnectTimeout time.Duration `json:"connect_timeout"` // allocated
	RequestTimeout time.Duration `json:"request_timeout"` // allocated
	Elapsed        time.Duration `json:"elapsed"`
	Class          Class         `json:"class"`
	Code           Code          `json:"code,omitempty"`
	HTTPStatus     int           `json:"http_status,omitempty"`
	Detail         string        `json:"detail,omitempty"` // what went wrong, token-free
}
