package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/screenapi"
)

// TestExposureWarning decides, without listening anywhere, when demo-api
// warns: on an address other computers can reach, with the public demo
// tokens or with no token at all; never on loopback.
func TestExposureWarning(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8001": true, "127.9.9.9:8001": true, "[::1]:8001": true, "localhost:8001": true, "LOCALHOST:1": true,
		"0.0.0.0:8001": false, ":8001": false, "[::]:8001": false, "192.0.2.10:8001": false, "reviewer.example.org:8001": false,
	} {
		if got := loopbackOnly(addr); got != want {
			t.Errorf("loopbackOnly(%q) = %v", addr, got)
		}
	}
	demo := screenapi.Options{Reviewers: screenapi.DemoReviewers()}
	own := screenapi.Options{Reviewers: []screenapi.Reviewer{{Name: "cara", Token: "a-secret-of-cara-0123"}}}
	open := screenapi.Options{}
	for _, opts := range []screenapi.Options{demo, own, open} {
		if w := exposureWarning("127.0.0.1:8001", opts); w != "" {
			t.Fatalf("a warning on loopback: %s", w)
		}
	}
	w := exposureWarning("0.0.0.0:8001", demo)
	for _, want := range []string{"0.0.0.0:8001", "reachable from other computers", "ana and ben", "public", "127.0.0.1"} {
		if !strings.Contains(w, want) {
			t.Fatalf("demo tokens on 0.0.0.0: %q lacks %q", w, want)
		}
	}
	for _, d := range screenapi.DemoReviewers() {
		if strings.Contains(w, d.Token) {
			t.Fatal("the warning repeats a token")
		}
	}
	if w := exposureWarning(":8001", open); !strings.Contains(w, "no token is asked") {
		t.Fatalf("no token on every interface: %q", w)
	}
	if w := exposureWarning(":8001", own); w != "" {
		t.Fatalf("own tokens: %q", w)
	}
}

// TestReviewersFile: NAME=TOKEN lines, comments and blank lines skipped;
// refused when others may read it, or a line is bad, naming the line and
// never a token.
func TestReviewersFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	parse := func(args ...string) (*teamOptions, error) {
		r := &runner{}
		fs := r.demoFlags()
		team := r.teamFlags(fs)
		_, err := r.parse(fs, args, 0)
		if err == nil {
			err = team.apply(&screenapi.Options{}, false)
		}
		return team, err
	}
	good := write("team", "# the team\nana = tok-ana-0123456789\n\nben=tok-ben-0123456789\n", 0o600)
	team, err := parse("--reviewers-file", good, "--reviewer", "cara=tok-cara-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	var opts screenapi.Options
	if err := team.apply(&opts, false); err != nil {
		t.Fatal(err)
	}
	if len(opts.Reviewers) != 3 || opts.Reviewers[0].Name != "ana" || opts.Reviewers[0].Token != "tok-ana-0123456789" ||
		opts.Reviewers[1].Name != "ben" || opts.Reviewers[0].DisplayName != "Ana" || opts.Reviewers[2].Name != "cara" {
		t.Fatalf("reviewers %+v", opts.Reviewers)
	}
	for _, c := range []struct {
		path, want string
	}{
		{write("readable", "ana=tok-ana-0123456789\n", 0o644), "chmod 600"},
		{write("group", "ana=tok-ana-0123456789\n", 0o640), "chmod 600"},
		{write("bad", "ana=tok-ana-0123456789\nben tok-ben-0123456789\n", 0o600), "line 2: want NAME=TOKEN"},
		{write("twice", "ana=tok-ana-0123456789\nana=tok-other-0123456789\n", 0o600), "line 2"},
		{write("empty", "# nobody\n", 0o600), "names no reviewer"},
		{filepath.Join(dir, "missing"), "cannot read"},
		{dir, "not a regular file"},
	} {
		_, err := parse("--reviewers-file", c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "tok-") {
			t.Fatalf("%s: %v", c.path, err)
		}
		if _, ok := err.(usageError); !ok {
			t.Fatalf("%s: not a usage error: %T", c.path, err)
		}
	}
}

// TestDemoAPIFlagErrorsNeverShowATokenGiven: a refused --reviewer names the
// reviewer and what is wrong, never the token it carried (each case is
// refused before anything listens).
func TestDemoAPIFlagErrorsNeverShowATokenGiven(t *testing.T) {
	for _, args := range [][]string{
		{"--reviewer", "ana=tok-secret-one", "--reviewer", "ana=tok-secret-two"},
		{"--reviewer", "ana=tok-secret-one", "--reviewer", "ben=tok-secret-one"},
		{"--reviewer", "=tok-secret-one"},
		{"--reviewer", "tok-secret-one"},
	} {
		var out, errb bytes.Buffer
		code := Run(append([]string{"demo-api"}, args...), Env{Stdout: &out, Stderr: &errb,
			Lookup: func(string) (string, bool) { return "", false }})
		if code != ExitUsage || !strings.Contains(errb.String(), "--reviewer") || strings.Contains(out.String()+errb.String(), "tok-secret") {
			t.Fatalf("%v: exit %d: %s%s", args, code, out.String(), errb.String())
		}
	}
}

// TestDemoAPIServesEachContractVersion: --api-version takes 1.0, 1.1 and
// 1.2 (decisions), and refuses the rest in words.
func TestDemoAPIServesEachContractVersion(t *testing.T) {
	for _, c := range []struct{ v, want string }{{"", "1.1"}, {"1.0", "1.0"}, {"1.1", "1.1"}, {"1.2", "1.2"}, {"1.3", ""}} {
		r := &runner{}
		fs := r.demoFlags()
		team := r.teamFlags(fs)
		args := []string{}
		if c.v != "" {
			args = append(args, "--api-version", c.v)
		}
		if _, err := r.parse(fs, args, 0); err != nil {
			t.Fatal(err)
		}
		var opts screenapi.Options
		err := team.apply(&opts, true)
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), "want 1.0, 1.1 or 1.2") {
				t.Errorf("%s: %v", c.v, err)
			}
			continue
		}
		if err != nil || opts.APIVersion != c.want || len(opts.Reviewers) != 2 {
			t.Errorf("%q: %v %+v", c.v, err, opts)
		}
	}
}
