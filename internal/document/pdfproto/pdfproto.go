// Package pdfproto is the small, versioned protocol between the console and
// its PDF renderer (cmd/reviewer-pdf), a child process on a pair of pipes.
// The console links only this package, never the renderer itself.
//
// Version 2, every header a line of at most MaxLine bytes:
//
//	child → parent, once ready:  "reviewer-pdf 2 ready" (any other first
//	                              line, or none, is a renderer that
//	                              could not start)
//	parent → child:              "pages <n>" then n bytes of PDF
//	child → parent:              "pages <count>"
//	parent → child:              "page <index> <max-pixels> <n>" then n bytes of PDF
//	child → parent:              "page <width> <height> <fonts>" then width×height×4 bytes
//	                              of RGBA; fonts is 1 when text of the page is in a
//	                              font the PDF does not embed (drawn in another), else 0
//	child → parent, on a refusal: "error <kind>" (a word of Kinds, never any
//	                              document content)
//
// The parent writes the words a reviewer reads from the kind; a line it
// does not expect, a size over what it asked for, or an early end is a
// garbage answer, and the child is killed.
package pdfproto

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/trustscreen/reviewer/policy"
)

// Version is the protocol's version, in the ready line.
// 2: the page's answer says whether a font was substituted.
const Version = 2

// Ready is the child's first line once its renderer has started.
var Ready = fmt.Sprintf("reviewer-pdf %d ready", Version)

// MaxLine bounds a header line.
const MaxLine = 128

// MaxInput is the largest PDF the child takes (the console's file limit).
const MaxInput = policy.MaxFileSize

// The kinds of refusal the child may answer.
const (
	KindUnopenable = "unopenable" // not a PDF the renderer can open
	KindPassword   = "password"   // a PDF that needs a password to open
	KindNoPages    = "nopages"    // opened, but no page
	KindNoSize     = "nosize"     // the page has no usable size
	KindUndrawable = "undrawable" // the page cannot be drawn
	KindTooLarge   = "toolarge"   // the input is over MaxInput
	KindBadRequest = "badrequest" // the request is not one of the protocol
)

// Kinds are the words an "error" line may carry.
var Kinds = map[string]bool{KindUnopenable: true, KindPassword: true, KindNoPages: true, KindNoSize: true, KindUndrawable: true, KindTooLarge: true, KindBadRequest: true}

// ErrGarbage is an answer that is not one of the protocol.
var ErrGarbage = errors.New("the PDF renderer's answer is not one of its protocol")

// ReadLine reads one header line (without its newline); a longer line,
// or one that ends early, is garbage.
func ReadLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return "", ErrGarbage
			}
			return "", err
		}
		if c == '\n' {
			return string(b), nil
		}
		if len(b) >= MaxLine || c < 0x20 || c > 0x7e {
			return "", ErrGarbage
		}
		b = append(b, c)
	}
}

// Fields splits a line into its command and numbers; it refuses a line
// whose command is not cmd or that has not exactly n numbers, each from 0
// to max.
func Fields(line, cmd string, n int, max int64) ([]int64, error) {
	f := strings.Split(line, " ")
	if len(f) != n+1 || f[0] != cmd {
		return nil, ErrGarbage
	}
	out := make([]int64, n)
	for i, s := range f[1:] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > max {
			return nil, ErrGarbage
		}
		out[i] = v
	}
	return out, nil
}

// ErrorKind is the kind of an "error" line, or "" when line is not one.
func ErrorKind(line string) string {
	k, ok := strings.CutPrefix(line, "error ")
	if !ok || !Kinds[k] {
		return ""
	}
	return k
}

// WritePages asks for a PDF's page count.
func WritePages(w io.Writer, pdf []byte) error {
	return writeWithBody(w, fmt.Sprintf("pages %d\n", len(pdf)), pdf)
}

// WritePage asks for page index drawn within maxPixels.
func WritePage(w io.Writer, index int, maxPixels int64, pdf []byte) error {
	return writeWithBody(w, fmt.Sprintf("page %d %d %d\n", index, maxPixels, len(pdf)), pdf)
}

func writeWithBody(w io.Writer, head string, body []byte) error {
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}
