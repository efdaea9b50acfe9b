package cli_test

import "testing"

func TestDemoAPITeamFlags(t *testing.T) {
	h := newHarness(t)
	for _, bad := range [][]string{{"demo-api", "--reviewer", "ana"}, {"demo-api", "--reviewer", "=tok"},
		{"demo-api", "--reviewer", "ana=a", "--reviewer", "ana=b"}, {"demo-api", "--api-version", "2.0"}} {
		h.want(2, bad...)
	}
}
