package pdfproto

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLinesAreShortPrintableAndWhole(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  error
	}{
		{"pages 2\n", "pages 2", nil},
		{"", "", io.EOF},
		{"pages 2", "", ErrGarbage},                             // no end
		{strings.Repeat("a", MaxLine+1) + "\n", "", ErrGarbage}, // too long
		{"page\x00 1\n", "", ErrGarbage},                        // not printable
		{"%PDF-\xe2\n", "", ErrGarbage},
	} {
		got, err := ReadLine(bufio.NewReader(strings.NewReader(tc.in)))
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Fatalf("%q: %q %v", tc.in, got, err)
		}
	}
}

func TestFieldsAreExactlyTheNumbersAsked(t *testing.T) {
	if f, err := Fields("page 620 874", "page", 2, 8193); err != nil || f[0] != 620 || f[1] != 874 {
		t.Fatalf("%v %v", f, err)
	}
	for _, line := range []string{"page 620", "page 620 874 1", "page -1 2", "page 9000 1", "page 1e3 1", "pages 1 1", "page  1 1", "page 1 1 "} {
		if _, err := Fields(line, "page", 2, 8193); err == nil {
			t.Fatalf("%q taken", line)
		}
	}
	if ErrorKind("error undrawable") != KindUndrawable || ErrorKind("error the customer's name") != "" || ErrorKind("pages 1") != "" {
		t.Fatal("error kinds")
	}
}

func TestRequestsCarryTheirLength(t *testing.T) {
	var b bytes.Buffer
	WritePage(&b, 1, 60000000, []byte("%PDF-1"))
	WritePages(&b, []byte("%PDF-2"))
	if b.String() != "page 1 60000000 6\n%PDF-1pages 6\n%PDF-2" {
		t.Fatalf("%q", b.String())
	}
}
