package ui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/screenapi"
)

// keptConsole is a window on a real workflow that keeps documents beside
// its cache, their key in secrets.
func keptConsole(t *testing.T, secrets *keyring.Keyring) (*Console, *review.Service, *screenapi.Server, string) {
	t.Helper()
	srv, err := screenapi.Start("127.0.0.1:0", screenapi.Options{Reviewers: screenapi.DemoReviewers()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.db")
	svc := realService(t, srv, "demo-token-ana-0001", dir, func(c *review.Config) { c.KeptDocuments = keptdocs.Open(cache, secrets) })
	if _, err := svc.Sync.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return realConsole(t, svc), svc, srv, cache
}

// prefsText is every label's text in the open dialog.
func prefsText(c *Console) string {
	var b strings.Builder
	for _, o := range test.LaidOutObjects(c.win.Canvas().Overlays().Top()) {
		if l, ok := asLabel(o); ok {
			b.WriteString(l.Text + "\n")
		}
	}
	return b.String()
}

func prefsButton(t *testing.T, c *Console, text string) *formButton {
	t.Helper()
	for _, o := range test.LaidOutObjects(c.win.Canvas().Overlays().Top()) {
		if b, ok := o.(*formButton); ok && b.Text == text {
			return b
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// "Available offline" on the open batch keeps its documents off the UI
// goroutine (progress and result in the strip), shows ticked for a kept
// batch, and unticked removes them; Preferences says how much is kept and
// where the key is, and removes them all.
func TestAvailableOfflineAndPreferences(t *testing.T) {
	keyring.MockInit()
	c, svc, _, _ := keptConsole(t, keyring.New("test.ui.kept"))
	ctx := context.Background()
	check := c.items.offline.check
	c.apply(func() { c.batches.all.SetChecked(true) })
	c.Settle()
	if check.Visible() {
		t.Fatal("the check shows across all batches")
	}
	c.apply(func() { c.batches.open(0) })
	c.Settle()
	batch := c.batches.batchID()
	if batch == "" || !check.Visible() || check.Checked || check.Disabled() {
		t.Fatalf("batch %q: visible %v checked %v", batch, check.Visible(), check.Checked)
	}

	c.apply(func() { test.Tap(check) })
	c.Settle()
	kb, err := svc.Kept.BatchKept(ctx, batch)
	if err != nil || kb.Documents == 0 || kb.ItemsKept != kb.Items {
		t.Fatalf("kept %+v %v", kb, err)
	}
	if !check.Checked || check.Disabled() || !strings.Contains(c.strip.pages.Text, "for offline review") || !strings.HasPrefix(c.strip.pages.Text, "Kept ") {
		t.Fatalf("after keeping: checked %v, strip %q", check.Checked, c.strip.pages.Text)
	}

	// Another batch: not kept; back: ticked, as read from what is kept.
	c.apply(func() { c.batches.open(1) })
	c.Settle()
	if check.Checked {
		t.Fatal("another batch shows as kept")
	}
	c.apply(func() { c.batches.open(0) })
	c.Settle()
	if !check.Checked {
		t.Fatal("the kept batch shows as not kept")
	}

	// Preferences: how much, and where the key is, in one line.
	use, _ := svc.Kept.KeptDocumentsUse()
	c.apply(func() { c.settings.show(c.win) })
	c.Settle()
	text := prefsText(c)
	if !strings.Contains(text, plural(use.Count, "document")+" (") || !strings.Contains(text, "their key is in the system keyring") ||
		!strings.Contains(text, "14 days") {
		t.Fatalf("preferences say %q (kept %+v)", text, use)
	}
	remove := prefsButton(t, c, "Remove all kept documents")
	if remove.Disabled() {
		t.Fatal("Remove all is off with documents kept")
	}
	c.apply(func() { test.Tap(remove) })
	c.Settle()
	if use, _ := svc.Kept.KeptDocumentsUse(); use.Count != 0 {
		t.Fatalf("%d kept after Remove all", use.Count)
	}
	if text := prefsText(c); !strings.Contains(text, "0 documents (0 bytes) kept") || !remove.Disabled() {
		t.Fatalf("after Remove all: %q", text)
	}
	if !strings.Contains(c.strip.pages.Text, "Removed "+plural(use.Count, "kept document")) || check.Checked {
		t.Fatalf("strip %q, checked %v", c.strip.pages.Text, check.Checked)
	}

	// Unticking removes the batch's; from the keyboard, Space on the
	// focused check ticks and unticks it.
	press(c, fyne.KeyEscape, 0) // closes Preferences
	if c.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc did not close Preferences")
	}
	c.apply(func() { c.win.Canvas().Focus(check) })
	typeText(c, " ")
	c.Settle()
	if kb, _ := svc.Kept.BatchKept(ctx, batch); kb.Documents == 0 || !check.Checked {
		t.Fatalf("Space did not keep the batch: %+v", kb)
	}
	typeText(c, " ")
	c.Settle()
	if kb, _ := svc.Kept.BatchKept(ctx, batch); kb.Documents != 0 || check.Checked || !strings.HasPrefix(c.strip.pages.Text, "Removed ") {
		t.Fatalf("unticked: %+v, strip %q", kb, c.strip.pages.Text)
	}
}

// Where no keyring answers, Preferences says that the key is in a file,
// and which.
func TestPreferencesSayTheKeyFile(t *testing.T) {
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(keyring.MockInit)
	c, svc, _, cache := keptConsole(t, keyring.New("test.ui.kept-file"))
	c.apply(func() { c.batches.open(0) })
	c.Settle()
	c.apply(func() { test.Tap(c.items.offline.check) })
	c.Settle()
	if use, _ := svc.Kept.KeptDocumentsUse(); use.Count == 0 {
		t.Fatal("nothing kept")
	}
	c.apply(func() { c.settings.show(c.win) })
	c.Settle()
	if text := prefsText(c); !strings.Contains(text, "their key is in the file "+keptdocs.KeyFile(cache)) || !strings.Contains(text, "as no keyring answers") {
		t.Fatalf("preferences say %q", text)
	}
}
