package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/trustscreen/reviewer/internal/keptdocs"
	"github.com/trustscreen/reviewer/keyring"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/store"
)

// `reviewer wipe` removes the console's own files and nothing else: the
// cache with its -wal, -shm and -journal, the window's preferences (Fyne's
// preferences.json of the app id and of its demo), and the token in the
// system's keyring (through Env.Keyring). Every other file in those
// folders stays, even when the cache sits in the home folder. It refuses
// while actions or notes are unsent, unless --export-outbox FILE first
// writes them, with their Idempotency-Keys, to a new file; and while
// another process has the cache open.

// DefaultAppID is the console's app id (FyneApp.toml), when main hands
// no FyneApp.toml over; the demo's is this with ".demo".
const DefaultAppID = "com.trustscreen.reviewer"

// appIDs are the ids whose preferences the console writes.
func (r *runner) appIDs() []string {
	id := r.meta().Details.ID
	if id == "" {
		id = DefaultAppID
	}
	return []string{id, id + ".demo"}
}

// fyneRoot is where Fyne keeps every app's preferences, as Fyne decides it
// (fyne.io/fyne/v2/internal/app: config_xdg.go, config_desktop_darwin.go,
// config_windows.go): the app's are in <root>/<app id>/preferences.json.
func fyneRoot() (string, error) {
	switch runtime.GOOS {
	case "darwin":
		home, err := os.UserHomeDir()
		return filepath.Join(home, "Library", "Preferences", "fyne"), err
	case "windows":
		home, err := os.UserHomeDir()
		return filepath.Join(home, "AppData", "Roaming", "fyne"), err
	}
	dir, err := os.UserConfigDir()
	return filepath.Join(dir, "fyne"), err
}

// ownedFiles are the files the console owns, whether they exist or not:
// the cache's, then the preferences'. Kept documents (encrypted offline
// copies) and their key join this list when the console keeps them. dirs
// are the folders the console made for them, removed when left empty.
func (r *runner) ownedFiles(cache string) (files, dirs []string, err error) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		files = append(files, cache+suffix)
	}
	if def, derr := store.DefaultPath(); derr == nil && filepath.Clean(def) == filepath.Clean(cache) {
		dirs = append(dirs, filepath.Dir(cache)) // the console's own folder, not one the reviewer named
	}
	// The documents kept for offline review, and their key where no
	// keyring answered (internal/keptdocs): every file in their folder is
	// the console's.
	if ents, err := os.ReadDir(keptdocs.Dir(cache)); err == nil {
		for _, e := range ents {
			files = append(files, filepath.Join(keptdocs.Dir(cache), e.Name()))
		}
		dirs = append(dirs, keptdocs.Dir(cache))
	}
	files = append(files, keptdocs.KeyFile(cache))
	if tf := r.ownTokenFile(); tf != "" {
		files = append(files, tf) // the token kept where no keyring answered (signin.go)
	}
	root, err := fyneRoot()
	if err != nil {
		return nil, nil, err
	}
	for _, id := range r.appIDs() {
		files = append(files, filepath.Join(root, id, "preferences.json"))
		dirs = append(dirs, filepath.Join(root, id, "Documents"), filepath.Join(root, id))
	}
	return files, dirs, nil
}

// tightenPreferences makes the window's preferences private: Fyne makes
// the app's folder 0755 and its preferences.json 0644, and they hold the
// API's address and where the reviewer left off. The folder 0700 is what
// counts (nobody else can reach the file); the file is made 0600 too.
func (r *runner) tightenPreferences() {
	root, err := fyneRoot()
	if err != nil {
		return
	}
	for _, id := range r.appIDs() {
		for p, mode := range map[string]os.FileMode{filepath.Join(root, id): 0o700, filepath.Join(root, id, "preferences.json"): 0o600} {
			if fi, err := os.Lstat(p); err == nil && fi.Mode().Type()&os.ModeSymlink == 0 && fi.Mode().Perm()&^mode != 0 {
				os.Chmod(p, mode)
			}
		}
	}
}

func (r *runner) wipe(args []string) (int, error) {
	flags := r.flags("wipe")
	yes := flags.Bool("yes", false, "do not ask (needed without a terminal)")
	export := flags.String("export-outbox", "", "first write the unsent actions and notes, with their keys, as JSON to this new file (0600)")
	if _, err := r.parse(flags, args, 0); err != nil {
		return ExitUsage, err
	}
	if err := r.g.checkScale(); err != nil {
		return ExitUsage, err
	}
	cache := r.g.db
	if cache == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return ExitFailure, err
		}
		cache = p
	}
	r.path = cache
	if *export != "" {
		if err := safefile.CheckTarget(*export, false); err != nil {
			var folder *safefile.FolderError
			if errors.As(err, &folder) {
				return ExitUsage, usagef("wipe --export-outbox %s: %v", *export, err)
			}
			return ExitRefused, policy.Errorf(policy.CodeConflict, "wipe --export-outbox: %v; name a new file: nothing was removed", err)
		}
	}
	unsent, err := r.unsent(cache)
	if err != nil {
		return exitFor(err), err
	}
	if len(unsent) > 0 && *export == "" {
		return ExitRefused, policy.Errorf(policy.CodeConflict,
			"the cache holds %s not yet sent (%s): nothing was removed; send them first ('reviewer flush'), or keep them with "+
				"'reviewer wipe --export-outbox FILE', which writes them with their Idempotency-Keys so they can be reconciled later",
			plural(len(unsent), "action or note", "actions and notes"), nameEntries(unsent))
	}
	files, dirs, err := r.ownedFiles(cache)
	if err != nil {
		return ExitFailure, err
	}
	var present []string
	for _, f := range files {
		if _, err := os.Lstat(f); err == nil {
			present = append(present, f)
		}
	}
	keyring := "the token in the system's keyring"
	if _, err := r.secrets().Get(keyringToken); keyringGone(err) {
		keyring = "" // nothing kept there, or no keyring answers: nothing to remove
	}
	what := strings.Join(present, ", ")
	if keyring != "" {
		what = strings.Join(append(append([]string{}, present...), keyring), ", ")
	}
	if what == "" {
		fmt.Fprintln(r.env.Stdout, "nothing to remove: the console has no files here")
		return ExitOK, nil
	}
	switch {
	case !*yes && !r.interactive():
		return ExitUsage, usagef("not confirmed: wipe removes %s; run it on a terminal to be asked, or pass --yes", what)
	case !*yes:
		fmt.Fprintf(r.env.Stdout, "This removes %s. Nothing else is touched. Go ahead? [y/N] ", what)
		if !r.yes() {
			fmt.Fprintln(r.env.Stdout, "not confirmed: nothing was removed")
			return ExitRefused, nil
		}
	}
	if err := inUse(cache); err != nil {
		return ExitCacheBusy, err
	}
	if *export != "" {
		if err := safefile.WriteNew(*export, false, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(unsent)
		}); err != nil {
			return ExitFailure, fmt.Errorf("wipe --export-outbox %s: %w; nothing was removed", *export, err)
		}
		fmt.Fprintf(r.env.Stdout, "wrote %s with their Idempotency-Keys to %s\n", plural(len(unsent), "unsent action or note", "unsent actions and notes"), *export)
	}
	var removed []string
	for _, f := range present {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ExitFailure, fmt.Errorf("removing %s: %w (removed so far: %s)", f, err, strings.Join(removed, ", "))
		}
		removed = append(removed, f)
	}
	for _, d := range dirs {
		os.Remove(d) // only when empty: anything else in it stays
	}
	if keyring != "" {
		if err := r.secrets().Forget(); err != nil {
			return ExitFailure, fmt.Errorf("the files are removed (%s), but the token could not be removed from the system's keyring: %w",
				strings.Join(removed, ", "), err)
		}
		removed = append(removed, keyring)
	}
	fmt.Fprintf(r.env.Stdout, "removed %s\n", strings.Join(removed, ", "))
	return ExitOK, nil
}

// yes reads a person's answer: only y or yes goes ahead.
func (r *runner) yes() bool {
	if r.env.Stdin == nil {
		return false
	}
	var line string
	b := make([]byte, 1)
	for {
		n, err := r.env.Stdin.Read(b)
		if n == 1 && b[0] != '\n' {
			line += string(b)
		}
		if err != nil || (n == 1 && b[0] == '\n') || len(line) > 16 {
			break
		}
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// unsent reads the cache's actions and notes not yet sent (queued,
// sending, unknown), without creating a cache that is not there. A cache
// that cannot be opened as it is (damaged, newer, of an older schema) is
// read as far as it can be (store.Salvage); one whose outbox cannot be
// read at all is not wiped.
func (r *runner) unsent(cache string) ([]outboxEntry, error) {
	if _, err := os.Lstat(cache); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	// Read-only: a wipe never writes to the cache it checks (no migration,
	// no checkpoint that would fold its -wal away before it is removed).
	db, err := store.Open(cache, store.ReadOnly())
	if err == nil {
		defer db.Close()
		ctx, cancel := signalContext()
		defer cancel()
		actions, err := db.Outbox.Outbox(ctx)
		if err != nil {
			return nil, err
		}
		notes, err := db.Notes.OpenNotes(ctx)
		if err != nil {
			return nil, err
		}
		return outboxEntries(actions, notes), nil
	}
	got, serr := store.Salvage(cache)
	if serr != nil || (len(got.Problems) > 0 && len(got.Actions)+len(got.Notes) == 0) {
		ce := store.Explain(cache, err)
		if ce == nil {
			return nil, fmt.Errorf("reading the cache %s to find unsent work: %w; nothing was removed", cache, err)
		}
		ce.What += "; its unsent actions and notes cannot be read, so nothing was removed"
		ce.Next = "keep a copy of the file for whoever can recover it, then remove it yourself"
		return nil, ce
	}
	return outboxEntries(got.Actions, got.Notes), nil
}

// nameEntries names unsent actions and notes: the first few, and a count.
func nameEntries(es []outboxEntry) string {
	var names []string
	for i, e := range es {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more: 'reviewer outbox' lists them", len(es)-5))
			break
		}
		what := string(e.Kind)
		if e.Kind == noteKind {
			what = "note " + e.Ref
		} else {
			what += " " + e.Ref
		}
		names = append(names, fmt.Sprintf("%s on %s, %s", what, cell(e.ItemID), e.State))
	}
	return strings.Join(names, "; ")
}

// keyringToken is the secret whose presence says the keyring holds the
// console's entries.
const keyringToken = keyring.TokenName

// keyringGone reports whether a keyring read found nothing to remove: no
// entry, or no keyring at all.
func keyringGone(err error) bool {
	return errors.Is(err, keyring.ErrNotFound) || keyring.IsUnavailable(err)
}
