package policy

// Code is an error code: an item code of the contract, a code of the API's
// error answers, or a code the console itself produces.
type Code string

// Item error codes of the contract. The first five can be helped by a re-run
// of the same file; the last three need a new file.
const (
	CodeClassifierTimeout     Code = "CLASSIFIER_TIMEOUT"
	CodeClassifierUnavailable Code = "CLASSIFIER_UNAVAILABLE"
	CodeForensicsUnreachable  Code = "FORENSICS_UNREACHABLE"
	CodeSourceUnreachable     Code = "SOURCE_UNREACHABLE"
	CodeInternal              Code = "INTERNAL_ERROR"
	CodeDecodeFailed          Code = "DECODE_FAILED"
	CodePayloadTooLarge       Code = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType  Code = "UNSUPPORTED_MEDIA_TYPE"
)

// Codes of the API's error answers.
const (
	CodeUnauthenticated      Code = "UNAUTHENTICATED"
	CodeForbidden            Code = "FORBIDDEN"
	CodeNotFound             Code = "NOT_FOUND"
	CodeValidationFailed     Code = "VALIDATION_FAILED"
	CodeNotRetryable         Code = "NOT_RETRYABLE"
	CodeIdempotencyKeyInUse  Code = "IDEMPOTENCY_KEY_IN_USE"
	CodeIdempotencyKeyReused Code = "IDEMPOTENCY_KEY_REUSED"
	CodeRateLimited          Code = "RATE_LIMITED"
	CodeServiceUnavailable   Code = "SERVICE_UNAVAILABLE"
)

// Codes the console produces.
const (
	CodeAPIUnreachable   Code = "API_UNREACHABLE"   // no connection could be made, even after the retry
	CodeOutcomeUnknown   Code = "OUTCOME_UNKNOWN"   // the request went out, no complete answer came back
	CodeTLSUntrusted     Code = "TLS_UNTRUSTED"     // the server's certificate failed verification
	CodeInvalidResponse  Code = "INVALID_RESPONSE"  // an answer that breaks the contract
	CodeDeadlineExceeded Code = "DEADLINE_EXCEEDED" // no time left in the budget: the call was not started
	CodeCircuitOpen      Code = "CIRCUIT_OPEN"      // the API stopped answering; calls paused
	CodeActionOpen       Code = "ACTION_OPEN"       // the item already has an open action
	CodeRateLimitWait    Code = "RATE_LIMIT_WAIT"   // a rate-limit wait is running
	CodeInvalidFile      Code = "INVALID_FILE"      // a replacement file refused locally
	CodeFileUnchecked    Code = "FILE_UNCHECKED"    // a replacement file the console could not check, not sent unless the reviewer says so
	CodeInvalidInput     Code = "INVALID_INPUT"     // bad usage or configuration
	CodeConflict         Code = "CONFLICT"          // the action is not in a state that allows this
	CodeCacheBusy        Code = "CACHE_BUSY"        // another process held the cache's write lock too long: nothing written
	CodeCancelled        Code = "CANCELLED"         // the reviewer stopped it (Cancel, Ctrl-C): not a failure, nothing lost
)

// Codes of version 1.1, and the console's own for a feature a 1.0 service
// does not have.
const (
	CodeItemChanged Code = "ITEM_CHANGED" // 412: the item is not at the revision the reviewer saw
	CodeClaimed     Code = "CLAIMED"      // 409: another reviewer holds the item
	CodeNotOffered  Code = "NOT_OFFERED"  // the service (a 1.0 one) does not offer this
)

// Actor is who acts next on an item.
type Actor string

const (
	ActorReviewer Actor = "reviewer"
	ActorCustomer Actor = "customer"
	ActorService  Actor = "screening service"
	ActorNobody   Actor = "nobody"
)

// CodeInfo is what the console knows about an item error code.
type CodeInfo struct {
	Code Code
	// Retryable: a person may re-submit the same file, and it may help.
	Retryable bool
	// Explanation is one plain sentence for a reviewer.
	Explanation string
	// NextActor is who acts next.
	NextActor Actor
	// CustomerMessage pre-fills the request for a new file.
	CustomerMessage string
}

var itemCodes = map[Code]CodeInfo{
	CodeClassifierTimeout: {Retryable: true, NextActor: ActorReviewer,
		Explanation: "The AI-generation classifier ran out of time (10 s budget). A re-run of the same file may help."},
	CodeClassifierUnavailable: {Retryable: true, NextActor: ActorReviewer,
		Explanation: "The AI-generation classifier was down. A re-run of the same file may help."},
	CodeForensicsUnreachable: {Retryable: true, NextActor: ActorReviewer,
		Explanation: "The screening API could not reach its forensics service. A re-run of the same file may help."},
	CodeSourceUnreachable: {Retryable: true, NextActor: ActorReviewer,
		Explanation: "The file could not be fetched from storage. A re-run of the same file may help."},
	CodeInternal: {Retryable: true, NextActor: ActorReviewer,
		Explanation: "The screening service failed in an unexpected way. A re-run of the same file may help."},
	CodeDecodeFailed: {Retryable: false, NextActor: ActorCustomer,
		Explanation:     "The file could not be decoded as an image or PDF. A new file is needed from the customer.",
		CustomerMessage: "We could not open the file you sent. Please send a new photo or scan of the document (JPEG, PNG, WebP or PDF)."},
	CodePayloadTooLarge: {Retryable: false, NextActor: ActorCustomer,
		Explanation:     "The file is over the service's 10 MiB limit. A new, smaller file is needed from the customer.",
		CustomerMessage: "The file you sent is larger than 10 MiB. Please send a smaller photo or scan of the document."},
	CodeUnsupportedMediaType: {Retryable: false, NextActor: ActorCustomer,
		Explanation:     "The file is not a JPEG, PNG, WebP or PDF. A new file is needed from the customer.",
		CustomerMessage: "We cannot read the type of file you sent. Please send the document as a JPEG, PNG, WebP or PDF."},
	CodeInvalidResponse: {Retryable: false, NextActor: ActorService,
		Explanation: "The service's answer for this item broke its contract, so it is not a result. Sync again; if it stays, report it to the screening team."},
}

// ItemCodes lists the item error codes of the contract, retryable first.
func ItemCodes() []Code {
	return []Code{
		CodeClassifierTimeout, CodeClassifierUnavailable, CodeForensicsUnreachable,
		CodeSourceUnreachable, CodeInternal,
		CodeDecodeFailed, CodePayloadTooLarge, CodeUnsupportedMediaType,
	}
}

// IsItemCode reports whether c is one of the contract's item error codes.
func IsItemCode(c Code) bool {
	_, ok := itemCodes[c]
	return ok && c != CodeInvalidResponse
}

// NormalizeItemCode maps a code reported by the service to the console's code:
// a known item code maps to itself, anything else to INTERNAL_ERROR. The
// caller keeps the reported code beside it.
func NormalizeItemCode(reported string) Code {
	c := Code(reported)
	if IsItemCode(c) {
		return c
	}
	return CodeInternal
}

// Info returns what the console knows about an item code. Unknown codes are
// described as INTERNAL_ERROR; it never fails.
func Info(c Code) CodeInfo {
	info, ok := itemCodes[c]
	if !ok {
		info = itemCodes[CodeInternal]
		c = CodeInternal
	}
	info.Code = c
	return info
}

// Retryable reports whether a person may re-submit an item with this code.
func Retryable(c Code) bool {
	info, ok := itemCodes[c]
	return ok && info.Retryable
}
