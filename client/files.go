package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-resty/resty/v2"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: the document itself, GET /v1/items/{id}/files/{version}.
//
// The bytes are a customer's identity document and are not trusted. Whatever
// Content-Length says, at most MaxDocumentSize bytes are read (a larger
// answer is refused, never cut to size); the declared Content-Type must be
// one of the contract's four and must agree with the first bytes; a body
// that ends before its announced length is an error, never partial bytes.
// Each refusal is a *DamagedFileError inside the call's *Error (class
// bad_answer): it names what was wrong, never any of the content.

// MaxDocumentSize is the most bytes of a document the client reads: the
// contract's 10 MiB.
const MaxDocumentSize = policy.MaxFileSize

// Document is a file version's bytes as the service served them.
type Document struct {
	MediaType string // checked against the bytes
	ETag      string
	Data      []byte
}

// FileProblem is why a document's answer was refused.
type FileProblem string

const (
	FileTypeMismatch FileProblem = "type_mismatch" // the declared type is not what the bytes are
	FileUnknownType  FileProblem = "unknown_type"  // neither JPEG, PNG, WebP nor PDF
	FileTooLarge     FileProblem = "too_large"     // over MaxDocumentSize
	FileTruncated    FileProblem = "truncated"     // the body ended before its announced length
	FileEmpty        FileProblem = "empty"
)

// DamagedFileError says why a document was refused. Declared and Actual are
// media types from a fixed set (or "" when unknown): never the service's
// text, never the content.
type DamagedFileError struct {
	Problem  FileProblem
	Declared string
	Actual   string
}

func (e *DamagedFileError) Error() string {
	switch e.Problem {
	case FileTypeMismatch:
		return fmt.Sprintf("the file is damaged: it is declared %s but its bytes are %s", orUnknown(e.Declared), orUnknown(e.Actual))
	case FileUnknownType:
		return "the file is damaged: it is not a JPEG, PNG, WebP or PDF"
	case FileTooLarge:
		return fmt.Sprintf("the file is damaged: it is over %d MiB", MaxDocumentSize>>20)
	case FileTruncated:
		return "the file is damaged: it ended before its announced length"
	case FileEmpty:
		return "the file is damaged: it is empty"
	}
	return "the file is damaged"
}

func orUnknown(mt string) string {
	if mt == "" {
		return "an unsupported type"
	}
	return mt
}

// AsDamagedFile returns the *DamagedFileError in err's chain, if any.
func AsDamagedFile(err error) (*DamagedFileError, bool) {
	var d *DamagedFileError
	ok := errors.As(err, &d)
	return d, ok
}

// CheckDocumentType checks a declared Content-Type against the first bytes
// of data. It returns the media type, or a *DamagedFileError.
func CheckDocumentType(declared string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", &DamagedFileError{Problem: FileEmpty}
	}
	actual := policy.SniffMediaType(data)
	mt, _, err := mime.ParseMediaType(declared)
	if err != nil || !knownDocumentType(mt) {
		mt = ""
	}
	switch {
	case actual == "":
		return "", &DamagedFileError{Problem: FileUnknownType, Declared: mt}
	case mt != actual:
		return "", &DamagedFileError{Problem: FileTypeMismatch, Declared: mt, Actual: actual}
	}
	return actual, nil
}

func knownDocumentType(mt string) bool {
	for _, t := range policy.DocumentTypes {
		if mt == t {
			return true
		}
	}
	return false
}

// fileBody is the out of a document's call: it takes the raw answer.
type fileBody struct{ doc Document }

func (f *fileBody) decodeAnswer(resp *resty.Response) error {
	body := resp.Body()
	if int64(len(body)) > MaxDocumentSize {
		return &DamagedFileError{Problem: FileTooLarge}
	}
	mt, err := CheckDocumentType(resp.Header().Get("Content-Type"), body)
	if err != nil {
		return err
	}
	f.doc = Document{MediaType: mt, ETag: resp.Header().Get("ETag"), Data: body}
	return nil
}

// File fetches the bytes of version (1 is the first) of an item's file.
// A version the item does not have is a NOT_FOUND answer; a 1.0 service
// answers the same way, and lists no versions (see FileVersions).
func (c *Client) File(ctx context.Context, id string, version int) (Document, []policy.Attempt, error) {
	if version < 1 {
		return Document{}, nil, &Error{Code: policy.CodeInvalidInput, Class: ClassNotStarted,
			Message: fmt.Sprintf("refused before any request: file version %d (the first is 1)", version)}
	}
	var out fileBody
	attempts, err := c.do(ctx, request{method: "GET", path: itemPath(id, "/files/"+strconv.Itoa(version)), out: &out,
		maxBody: MaxDocumentSize, setup: func(r *resty.Request) {
			r.SetHeader("Accept", strings.Join(policy.DocumentTypes, ", ")+", application/json")
		}})
	if err != nil {
		return Document{}, attempts, err
	}
	return out.doc, attempts, nil
}

// FileVersions reads an item from the service for its file versions. A
// service that lists none (1.0) offers no documents: NOT_OFFERED.
func (c *Client) FileVersions(ctx context.Context, id string) (policy.Item, []policy.Attempt, error) {
	it, attempts, err := c.GetItem(ctx, id)
	if err != nil {
		return it, attempts, err
	}
	if !it.FilesOffered {
		return it, attempts, &Error{Code: policy.CodeNotOffered, Class: ClassAnsweredNo, HTTPStatus: http.StatusOK,
			Message: "this service does not offer documents (its items list no file versions: a 1.0 service)", Attempts: attempts}
	}
	return it, attempts, nil
}

// fileAnswerError turns what went wrong in reading a document's answer into
// a DamagedFileError, when it was the answer's size or length: the answer
// came (it is not an unknown outcome), and it is bad.
func fileAnswerError(err error) *DamagedFileError {
	switch {
	case errors.Is(err, resty.ErrResponseBodyTooLarge):
		return &DamagedFileError{Problem: FileTooLarge}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &DamagedFileError{Problem: FileTruncated}
	}
	return nil
}
