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

// TestTheBinaryCarriesFyneAppTomlsMigrations: FyneApp.toml's fyneDo
// migration reaches the app's metadata as `fyne build` would compile it,
// so a plain `go build` skips Fyne's stack trace on every widget update.
func TestTheBinaryCarriesFyneAppTomlsMigrations(t *testing.T) {
	m, err := cli.ParseAppMeta(fyneAppToml)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Migrations["fyneDo"] {
		t.Fatalf("FyneApp.toml's migrations as read: %v", m.Migrations)
	}
	md := appMetadata(meta(), appID())
	if !md.Migrations["fyneDo"] || md.ID != cli.DefaultAppID || md.Name != m.Details.Name || md.Version != m.Details.Version || md.Build != m.Details.Build {
		t.Fatalf("the app's metadata: %+v", md)
	}
}
