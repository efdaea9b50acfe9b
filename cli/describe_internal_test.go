package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/screenapi"
)

// Stderr leads with words and names the code once; the
// parser's text follows as details.
func TestDescribeLeadsWithWordsAndKeepsDetailsAfter(t *testing.T) {
	err := &client.Error{Code: policy.CodeInvalidResponse, HTTPStatus: 200, Class: client.ClassBadAnswer,
		Message: "decoding the answer: unexpected end of JSON input"}
	msg := describe(err)
	head, details, ok := strings.Cut(msg, "; details: ")
	if !ok || strings.Count(msg, "INVALID_RESPONSE") != 1 || strings.Contains(head, "JSON") ||
		!strings.Contains(head, "cannot read") || !strings.Contains(details, "unexpected end of JSON input") {
		t.Fatalf("%q", msg)
	}
}

// demo-api's help lists only its own flags; it says which
// faults are on.
func TestDemoAPIHelpAndFaults(t *testing.T) {
	var out bytes.Buffer
	code := Run([]string{"demo-api", "-h"}, Env{Stdout: &out, Stderr: &out, Lookup: func(string) (string, bool) { return "", false }})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	flags := out.String()[strings.Index(out.String(), "flags of demo-api"):]
	for _, clientOnly := range []string{"-db", "-reserve", "-connect-timeout", "-retry-sleep"} {
		if strings.Contains(flags, clientOnly+" ") || strings.Contains(flags, clientOnly+"\n") {
			t.Fatalf("demo-api -h lists %s:\n%s", clientOnly, flags)
		}
	}
	if !strings.Contains(flags, "-fault") {
		t.Fatalf("no -fault in\n%s", flags)
	}
	d := describeFault(screenapi.Fault{Kind: screenapi.FaultHang, Endpoint: screenapi.EPResubmit, Times: 1})
	if d != "hang on the resubmit endpoint, for the next request" {
		t.Fatal(d)
	}
	if !strings.Contains(usage, "REVIEWER_DB") {
		t.Fatal("the usage does not say --demo ignores REVIEWER_DB")
	}
}
