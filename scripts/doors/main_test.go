package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A package's interfaces are counted with what they embed from it, and
// an assertion to one of them, or to an interface literal, is found; an
// assertion to a concrete type or to another package's interface is not.
func TestMeasureCountsEmbeddedMethodsAndFindsAssertions(t *testing.T) {
	dir := t.TempDir()
	src := `package ui

import "fyne.io/fyne/v2/driver/desktop"

type Documents interface {
	Document(id string) ([]byte, error)
	Pages(id string) int
}

type Workflow interface {
	Documents
	Sync() error
	Flush() error
}

type kept interface{ Keep(id string) error }

func look(wf Workflow, d any) {
	_, _ = wf.(kept)
	_, _ = d.(interface{ Close() error })
	_, _ = d.(desktop.Driver)
	_, _ = d.(*int)
	switch d.(type) {
	case Documents:
	case string:
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "ui.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	// A test file's assertions are its own business.
	if err := os.WriteFile(filepath.Join(dir, "ui_test.go"), []byte("package ui\n\nfunc f(x any) { _ = x.(kept) }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	is, asserts, err := measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"Documents": 2, "Workflow": 4, "kept": 1} {
		if got, foreign := is.methods(name, nil); got != want || len(foreign) != 0 {
			t.Errorf("%s: %d methods %v, want %d", name, got, foreign, want)
		}
	}
	got := strings.Join(asserts, "\n")
	for _, want := range []string{"ui.go:19:9 .(kept)", "ui.go:20:9 .(interface{…})", "case Documents"} {
		if !strings.Contains(got, want) {
			t.Errorf("assertions %q lack %q", got, want)
		}
	}
	if len(asserts) != 3 {
		t.Errorf("%d assertions found, want 3:\n%s", len(asserts), got)
	}
}
