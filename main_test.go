package main

import (
	"testing"

	"github.com/trustscreen/reviewer/cli"
)

// TestFyneAppTomlIsComplete: the embedded FyneApp.toml names the console,
// its app id, version and build, and the binary uses its app id.
func TestFyneAppTomlIsComplete(t *testing.T) {
	m, err := cli.ParseAppMeta(fyneAppToml)
	if err != nil {
		t.Fatal(err)
	}
	if m.Details.Name != "TrustScreen Reviewer" || m.Details.ID != cli.DefaultAppID || m.Details.Icon == "" {
		t.Fatalf("FyneApp.toml: %+v", m.Details)
	}
	if appID() != m.Details.ID || meta().Details.Version != m.Details.Version {
		t.Fatalf("main uses app id %q, version %q", appID(), meta().Details.Version)
	}
}
