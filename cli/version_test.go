package cli_test

import (
	"bytes"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/trustscreen/reviewer/cli"
)

func TestVersionPrintsVersionAndCommit(t *testing.T) {
	b, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := cli.ParseAppMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run([]string{"--version"}, cli.Env{Stdout: &out, Stderr: &errb, Meta: func() cli.AppMeta { return meta },
		Lookup:     func(string) (string, bool) { return "", false },
		OpenWindow: func(cli.Window) error { t.Fatal("--version opened the window"); return nil }})
	if code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// A test binary carries no VCS information: the commit is unknown.
	want := "TrustScreen Reviewer " + meta.Details.Version + " (build 1), commit unknown\n"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				want = "" // built with it after all: checked below
			}
		}
	}
	if want != "" && out.String() != want {
		t.Fatalf("--version: %q, want %q", out.String(), want)
	}
	if !strings.HasPrefix(out.String(), "TrustScreen Reviewer 0.1.0 (build 1), commit ") {
		t.Fatalf("--version: %q", out.String())
	}
	if cli.OpensWindow([]string{"--version"}) {
		t.Fatal("--version keeps the window's thread")
	}
}

func TestAppMetaNeedsEveryField(t *testing.T) {
	for _, toml := range []string{
		"[Details]\nName = \"X\"\nID = \"a.b\"\nVersion = \"1.0.0\"\n",         // no build
		"[Details]\nName = \"X\"\nVersion = \"1.0.0\"\nBuild = 1\n",            // no id
		"[Details]\nID = \"a.b\"\nVersion = \"1.0.0\"\nBuild = 1\n",            // no name
		"[Details]\nName = \"X\"\nID = \"a.b\"\nBuild = 1\n",                   // no version
		"[Details\nName = \"X\"\nID = \"a.b\"\nVersion = \"1.0.0\"\nBuild = 1", // not TOML
	} {
		if _, err := cli.ParseAppMeta([]byte(toml)); err == nil {
			t.Errorf("accepted %q", toml)
		}
	}
}
