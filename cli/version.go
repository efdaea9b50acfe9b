package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/BurntSushi/toml"
)

// AppMeta is what FyneApp.toml says of the console: the one place its
// name, app id, version and build number are kept (main embeds the file;
// Fyne's packager reads it too), and the Fyne migrations it has made.
type AppMeta struct {
	Website string
	Details struct {
		Icon    string
		Name    string
		ID      string
		Version string
		Build   int
	}
	// Migrations are the Fyne changes the console has made ("fyneDo":
	// every widget update runs on the UI goroutine). `fyne build` passes
	// them to the binary as build tags; main hands them to Fyne at run
	// time, so that a plain `go build` carries them too.
	Migrations map[string]bool
}

// ParseAppMeta reads FyneApp.toml, and refuses one that lacks any of
// name, id, version or build.
func ParseAppMeta(b []byte) (AppMeta, error) {
	var m AppMeta
	if _, err := toml.Decode(string(b), &m); err != nil {
		return m, fmt.Errorf("FyneApp.toml: %w", err)
	}
	d := m.Details
	if d.Name == "" || d.ID == "" || d.Version == "" || d.Build < 1 {
		return m, fmt.Errorf("FyneApp.toml: [Details] needs Name, ID, Version and a Build from 1 (got %q, %q, %q, %d)", d.Name, d.ID, d.Version, d.Build)
	}
	return m, nil
}

// versionLine is what `reviewer --version` prints: the version and build
// of FyneApp.toml, and the commit the binary was built from (Go records it
// when it builds in a git checkout; "unknown" otherwise, as in `go run`
// or a test binary).
func versionLine(m AppMeta, info *debug.BuildInfo, ok bool) string {
	name, version := m.Details.Name, m.Details.Version
	if name == "" {
		name = "TrustScreen Reviewer"
	}
	if version == "" {
		version = "unknown"
	}
	commit, modified := "unknown", false
	if ok && info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += " (with uncommitted changes)"
	}
	return fmt.Sprintf("%s %s (build %d), commit %s", name, version, m.Details.Build, commit)
}
