// Package cli is the command line of the reviewer binary: the same workflow
// as the window, without it. It parses flags and the environment, opens the
// cache and the client, runs one command, and turns its outcome into one of
// the documented exit statuses. main.go hands it a function that opens the
// window, so this package never imports Fyne's app driver.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/trustscreen/reviewer/internal/document"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/trustscreen/reviewer/client"
	"github.com/trustscreen/reviewer/internal/safetext"
	"github.com/trustscreen/reviewer/keyring"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
	"github.com/trustscreen/reviewer/store"
)

// Exit statuses.
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitUsage    = 2
	ExitRefused  = 3 // refused locally by policy: no call made
	ExitUnknown  = 4 // outcome unknown: recorded, flush reconciles it
	ExitQueued   = 5 // not sent, queued: unreachable, circuit open, no budget
	ExitAnswerNo = 6 // the API answered no
	// ExitReadFailed: a read from the API (sync) failed. Nothing is queued
	// and nothing changed at the service; the pages before the failure are
	// kept; run the read again.
	ExitReadFailed = 7
	// ExitCache: the cache cannot be used as it is for this command: it
	// cannot be written (reads still work), it is damaged, a newer console
	// made it, or the disk that holds it is full; or another process (a
	// bulk confirmation, a sync) held its write lock longer than
	// REVIEWER_CACHE_WAIT. Nothing was sent; the message says what to do.
	ExitCache = 8
	// ExitCacheBusy is ExitCache for a cache busy with another process's
	// writing: nothing was written, queued or sent; run the command again.
	ExitCacheBusy = ExitCache
)

// Window is what the console window needs to open.
type Window struct {
	Service *review.Service
	Config  client.Config
	Demo    bool
	// TokenSource says where the token came from, never what it is.
	TokenSource string
	// ReviewerSource says where the reviewer's name came from: the
	// system user, --reviewer or REVIEWER_NAME.
	ReviewerSource string
	// SignIn signs the reviewer in when no token is known (Service is
	// nil then), and out again (signin.go); nil for the demo.
	SignIn *Session
	// DocumentLimits bound the decoding of the items' documents.
	DocumentLimits document.Limits
	// Warnings are what opening the cache found wrong and put right
	// (permissions wider than private), for the window to say.
	Warnings []string
	// WipeAtExit asks that all local data be removed once the window has
	// closed (Preferences' "Remove all local data"; nil in the demo).
	WipeAtExit func()
	// Desk: the background sync and the notifications (desk.go).
	Desk Desk
}

// Keys of the window's saved preferences. They apply when the window
// opens, unless a flag or the environment says otherwise; the token is
// never among them, nor the reviewer's name: the audit trail's author comes
// from the system user, --reviewer or REVIEWER_NAME, never from a saved
// free-text field that could leak from one run into the next.
const (
	PrefReviewer = "reviewer" // no longer read; kept so old values are recognisable
	PrefAPIURL   = "api_url"
)

// Env is the program's outside world.
type Env struct {
	Stdout, Stderr io.Writer
	Lookup         func(string) (string, bool)
	OpenWindow     func(Window) error
	// Saved reads a saved window preference (PrefReviewer, PrefAPIURL);
	// nil when there are none. Only the window command asks.
	Saved func(key string) string
	// Stdin is where a bulk action's confirmation is read; Interactive
	// says whether it is a terminal (nil: Stdin is checked).
	Stdin       io.Reader
	Interactive func() bool
	// Keyring keeps the token that login and the window's sign-in check,
	// and loses every secret of the console in 'reviewer wipe' (nil: the
	// system's, under the app ID); TokenFile is where they
	// write it instead when asked to, as no keyring answers ("": the
	// console's folder in the user's configuration folder).
	Keyring   *keyring.Keyring
	TokenFile string
	// Meta reads FyneApp.toml as main embedded it (nil: none), when a
	// command needs it rather than at every start: reviewer --version,
	// and 'reviewer wipe', which removes the preferences of its app id
	// (DefaultAppID when none) and its demo's.
	Meta func() AppMeta
}

// meta is Env.Meta's FyneApp.toml (empty without one).
func (r *runner) meta() AppMeta {
	if r.env.Meta == nil {
		return AppMeta{}
	}
	return r.env.Meta()
}

const usage = `usage: reviewer [global flags] [command] [flags]
       reviewer --version              the version and the commit it was built from

commands:
  (none)                          open the console window (--demo: on the built-in demo service,
                                  with a throwaway cache: REVIEWER_DB and --db are not used)
  sync                            pull changed batches into the cache
  items [--batch ID] [--status S] [--code C] [--retryable] [--needs-action] [--awaiting-my-confirmation] [--json]
  item ID [--json]                one item with its actions, attempts and audit trail
  resubmit ID                     re-run the analysis of an item whose code a re-run may help
  request-file ID --message TEXT  ask the customer for a new file
  replace ID FILE [--unchecked]   upload the file the customer sent, once the console has checked it as its
                                  viewer would (a damaged file is refused; --unchecked sends one it could not check)
  resubmit --retryable [--batch ID] [--code C] [--yes|--dry-run] [--max N] [--concurrency N]
                                  re-submit every retryable item in error, after showing the plan and its cost
  request-file --non-retryable [--batch ID] [--code C] [--message CODE=TEXT]... [--yes|--dry-run] [--max N]
                                  (a run over REVIEWER_BULK_MAX, default 1000 items, needs --max N of at least its count)
                                  ask the customers for new files, after showing the plan
  bulk clear --reason CODE [--comment TEXT] [--batch ID | --ids ID,ID...] [--yes|--dry-run] [--max N]
                                  clear every scored low-band item recommended forward, undecided, after
                                  showing the plan and what it leaves out (no bulk reject or escalate)
  cancel-run RUN_ID               cancel the actions of a bulk run not yet sent
  outbox [--json]                 actions and notes not done yet (paid or free)
  flush [--wait D]                send queued actions, reconcile unknown ones; wait for those another process sends
  replace ID --again | --discard  upload again the file a failed replacement kept, or discard it
                                  (REVIEWER_KEPT_FILE_RETENTION removes it, 168h by default)
  decide ID clear|reject|escalate --reason CODE [--comment TEXT]
                                  decide an item (contract 1.2): never clear one that was not checked;
                                  a reject or an escalation needs a comment; a reject, and a clear of an
                                  item recommended reject, wait for a second reviewer
  confirm ID [--disagree] [--comment TEXT]
                                  confirm another reviewer's decision awaiting a second reviewer, or
                                  return it (--disagree, with a comment)
  reason-codes [--json]           the service's reason codes (offline: the list the last sync kept)
  cancel ACTION_ID | nNOTE_ID     cancel a queued action, or a queued note (n12)
  export --csv FILE [--batch ID] [--force]
                                  write items as CSV to a new file (--force: replace it)
  file ID [--version N] --out FILE [--force]
                                  write an item's document (the newest version by default) to a new file
                                  (offline: from a copy kept for offline review)
  render FILE --out PNG [--full] [--page N] [--force]
                                  draw a local file as the viewer does (its first view; --full: full size;
                                  a PDF's page N) to a new PNG; a file the viewer refuses exits 3, in its words
  keep BATCH                      keep a batch's documents for offline review, encrypted at rest
                                  (REVIEWER_KEPT_DOCUMENT_RETENTION removes them, 336h by default)
  unkeep BATCH                    remove a batch's kept documents
  me [--json]                     who the service says you are (offline: as last known)
  claim ID [--ttl 15m]            claim an item, or renew your claim (REVIEWER_CLAIM_TTL)
  release ID                      release your claim on an item
  next [--json]                   claim and print the oldest item that needs a reviewer and nobody holds
  note ID TEXT                    add a note to an item (offline: queued, sent once by flush)
  login [--to-file]               read the API token from standard input, check it, keep it in the keyring
                                  (--to-file: in a file only you can read, where no keyring answers)
  logout                          remove the token from the keyring (the cache stays)
  purge [--older-than D] [--dry-run]
                                  remove from the cache the batches nobody touched for REVIEWER_RETENTION
                                  (720h) that nothing holds (no open action or note, no item that needs you)
  wipe [--yes] [--export-outbox FILE]
                                  remove the console's own files (the cache, its -wal and -shm, the window's
                                  preferences) and its keyring entry; refuses with unsent actions or notes
                                  unless --export-outbox first writes them with their keys
  demo-api [--addr 127.0.0.1:8001] [--batches N] [--items-per-batch K]
           [--reviewers-file FILE] [--reviewer NAME=TOKEN]... [--demo] [--api-version 1.0|1.1|1.2]
                                  serve the reference screening service

exit status: 0 done, 2 bad usage, 3 refused locally (no call made), 4 outcome unknown
(flush reconciles it), 5 not sent and queued, 6 the API answered no, 7 a sync (a read),
a claim or a release that never reached the API (nothing queued; run it again), 8 the cache cannot be
used as it is (read-only for this command, damaged, made by a newer console, its disk full, or busy with
another process's writing past REVIEWER_CACHE_WAIT; nothing sent; the message says what to do),
130 interrupted twice, 1 anything else.
`

// globals are the flags every command takes.
type globals struct {
	cfg      client.Config
	db       string
	reviewer string
	demo     bool
	// docCache is REVIEWER_DOCUMENT_CACHE, in bytes (documents.go).
	docCache int64
	// docLimits bound the decoding of a document (the window's preview).
	docLimits document.Limits
	// keptDocs is REVIEWER_KEPT_DOCUMENT_RETENTION (kept.go).
	keptDocs time.Duration
	// bulkMax is the largest bulk run confirmed without its count
	// (REVIEWER_BULK_MAX); cacheWait how long a write waits for another
	// process's (REVIEWER_CACHE_WAIT).
	bulkMax   int
	cacheWait time.Duration
	keptFiles time.Duration // REVIEWER_KEPT_FILE_RETENTION (0: the workflow's default)
	retention time.Duration // REVIEWER_RETENTION (0: the workflow's default; forget.go)
	syncPages int           // REVIEWER_SYNC_MAX_PAGES (0: the workflow's default)

	// claimAway is --claim-away ("": REVIEWER_CLAIM_AWAY, else 15m; claims.go).
	claimAway string
	// syncEvery is --sync-every ("": REVIEWER_SYNC_EVERY, else 5m; desk.go).
	syncEvery string
}

func (g *globals) register(fs *flag.FlagSet) {
	g.cfg.RegisterFlags(fs)
	fs.StringVar(&g.db, "db", g.db, "cache file (REVIEWER_DB)")
	fs.StringVar(&g.reviewer, "reviewer", g.reviewer, "reviewer name (REVIEWER_NAME, else the OS user)")
	fs.BoolVar(&g.demo, "demo", g.demo, "open the window on the built-in demo service with a throwaway cache (REVIEWER_DB and saved preferences are not used)")
	fs.IntVar(&g.bulkMax, "bulk-max", g.bulkMax, "the largest bulk run confirmed without its count: a larger one needs --max N (REVIEWER_BULK_MAX)")
	fs.DurationVar(&g.cacheWait, "cache-wait", g.cacheWait, "how long a write waits while another process writes to the cache (REVIEWER_CACHE_WAIT)")
	fs.StringVar(&g.claimAway, "claim-away", g.claimAway, "how long you give the window no input (or leave it in the background) before it lets go of an item it claimed because you stayed on it, 1m to 8h (REVIEWER_CLAIM_AWAY, default 15m)")
	fs.StringVar(&g.syncEvery, "sync-every", g.syncEvery, "how often the window syncs by itself, 1m to 24h, or off (REVIEWER_SYNC_EVERY, default 5m, give or take a tenth)")
}

// Ranges of the cache's and the bulk actions' numbers.
const (
	minCacheWait = 100 * time.Millisecond
	maxCacheWait = 10 * time.Minute
	maxBulkMax   = 10_000_000
)

// scaleFromEnv reads REVIEWER_BULK_MAX, REVIEWER_CACHE_WAIT,
// REVIEWER_KEPT_FILE_RETENTION, REVIEWER_RETENTION and REVIEWER_SYNC_MAX_PAGES; flags
// override them, and checkScale checks what is in force.
func (g *globals) scaleFromEnv(lookup func(string) (string, bool)) error {
	g.bulkMax, g.cacheWait = review.DefaultBulkMax, store.DefaultBusyTimeout
	if v, ok := lookup("REVIEWER_BULK_MAX"); ok && v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_BULK_MAX=%q is not a whole number such as 1000", v)
		}
		g.bulkMax = n
	}
	if v, ok := lookup("REVIEWER_CACHE_WAIT"); ok && v != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_CACHE_WAIT=%q is not a Go duration such as 10s", v)
		}
		g.cacheWait = d
	}
	if v, ok := lookup("REVIEWER_KEPT_FILE_RETENTION"); ok && v != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_KEPT_FILE_RETENTION=%q is not a positive Go duration such as 168h", v)
		}
		g.keptFiles = d
	}
	d, err := retentionFromEnv(lookup)
	if err != nil {
		return err
	}
	g.retention = d
	if v, ok := lookup("REVIEWER_SYNC_MAX_PAGES"); ok && v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 2 {
			return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_SYNC_MAX_PAGES=%q is not a whole number of pages from 2 up", v)
		}
		g.syncPages = n
	}
	return nil
}

func (g *globals) checkScale() error {
	if g.bulkMax < 1 || g.bulkMax > maxBulkMax {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_BULK_MAX (--bulk-max) %d: want 1 to %d", g.bulkMax, maxBulkMax)
	}
	if g.cacheWait < minCacheWait || g.cacheWait > maxCacheWait {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_CACHE_WAIT (--cache-wait) %v: want %v to %v", g.cacheWait, minCacheWait, maxCacheWait)
	}
	return nil
}

func defaultReviewer(lookup func(string) (string, bool)) string {
	if v, ok := lookup("REVIEWER_NAME"); ok && v != "" {
		return v
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "reviewer"
}

// OpensWindow reports whether args open the window rather than run a
// command (or print help). main keeps the window's thread set-up only then.
func OpensWindow(args []string) bool {
	r := &runner{}
	fs := r.flags("reviewer")
	version := fs.Bool("version", false, "")
	return fs.Parse(args) == nil && fs.NArg() == 0 && !*version
}

// Run runs the command line and returns the exit status.
func Run(args []string, env Env) int {
	r := &runner{env: env}
	code, err := r.run(args)
	if errors.Is(err, errHelp) {
		return ExitOK
	}
	if err != nil && code == ExitFailure {
		// What SQLite said of the cache, in words: read-only, damaged, a
		// full disk (store.Explain), never INTERNAL_ERROR.
		if ce := store.Explain(r.path, err); ce != nil {
			if store.AsCacheError(err) == nil {
				ce.Err = err
			}
			err, code = ce, exitFor(ce)
		}
	}
	// The read-only cache's one line, unless the cache's own message (a
	// damaged one, say) says what matters more, in one line too.
	if r.readOnly != "" && store.AsCacheError(err) == nil {
		fmt.Fprintf(r.env.Stderr, "reviewer: warning: %s\n", r.readOnly)
	}
	if err != nil {
		r.fail(err)
	}
	return code
}

type runner struct {
	env Env
	g   globals
	// warnings are what opening the cache said (wider permissions made
	// private): the window shows them, where nobody reads stderr.
	warnings []string
	// wipeAtExit asks for 'reviewer wipe' once the window has closed
	// (commands.go).
	wipeAtExit func()
	whoFrom    string // where the reviewer's name came from (the window shows it)
	// storeOpts are how open opens the cache: the window adds its own
	// (windowPageCacheKiB, commands.go).
	storeOpts []store.Option
	// path is the cache's file, once known (open).
	path string
	// reading says that the command only reads the cache: it reads a
	// cache this console cannot write (store.ReadOnly), with a warning.
	reading bool
	// readOnly is that warning, said once the command has ended (Run).
	readOnly string
	// tokenFrom is where the token came from; keyringErr what the
	// keyring said when it did not answer (signin.go).
	tokenFrom  tokenOrigin
	keyringErr error
}

func (r *runner) fail(err error) {
	var si *SignInError
	if errors.As(err, &si) { // already in words, for a person
		fmt.Fprintf(r.env.Stderr, "reviewer: %s\n", safetext.Sentence(si.Words))
		return
	}
	var u usageError
	if errors.As(err, &u) {
		fmt.Fprintf(r.env.Stderr, "reviewer: %s (see reviewer -h)\n", safetext.Sentence(u.msg))
		return
	}
	if d, ok := document.AsError(err); ok { // the viewer's own words (render.go)
		fmt.Fprintf(r.env.Stderr, "reviewer: %s\n", safetext.Sentence(d.Error()))
		return
	}
	fmt.Fprintf(r.env.Stderr, "reviewer: %s\n", safetext.Sentence(describe(err)))
}

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// readError is a failed call that nothing queues and nothing reconciles: a
// sync (a read), or a claim or release (a claim is never queued: it is
// made now or not at all; making it again is harmless). It is run again:
// again is the command to run ("" : reviewer sync).
type readError struct {
	err   error
	again string
}

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

func (r *runner) run(args []string) (int, error) {
	cfg, err := client.ConfigFromEnv(r.env.Lookup)
	if err != nil {
		return ExitUsage, err
	}
	r.g = globals{cfg: cfg, reviewer: defaultReviewer(r.env.Lookup)}
	if err := r.g.scaleFromEnv(r.env.Lookup); err != nil {
		return ExitUsage, err
	}
	if err := r.g.documentCacheFromEnv(r.env.Lookup); err != nil { // documents.go
		return ExitUsage, err
	}
	if err := r.g.keptRetentionFromEnv(r.env.Lookup); err != nil { // kept.go
		return ExitUsage, err
	}
	if v, ok := r.env.Lookup("REVIEWER_DB"); ok {
		r.g.db = v
	}
	fs := r.flags("reviewer")
	version := fs.Bool("version", false, "print the version and the commit, and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			r.help(fs)
			return ExitOK, nil
		}
		return ExitUsage, usagef("%v", err)
	}
	if *version {
		info, ok := debug.ReadBuildInfo()
		fmt.Fprintln(r.env.Stdout, versionLine(r.meta(), info, ok))
		return ExitOK, nil
	}
	rest := fs.Args()
	if len(rest) == 0 {
		r.applySaved(fs)
		r.whoFrom = r.reviewerSource(fs)
		return r.window()
	}
	cmd, cmdArgs := rest[0], rest[1:]
	switch cmd {
	case "sync":
		return r.sync(cmdArgs)
	case "items":
		return r.items(cmdArgs)
	case "item":
		return r.item(cmdArgs)
	case "resubmit", "request-file", "replace":
		if isBulk(cmd, cmdArgs) {
			return r.bulk(cmd, cmdArgs)
		}
		return r.action(cmd, cmdArgs)
	case "decide": // decide.go
		return r.decide(cmdArgs)
	case "confirm":
		return r.confirm(cmdArgs)
	case "reason-codes":
		return r.reasonCodes(cmdArgs)
	case "bulk": // bulk_clear.go
		return r.bulkCommand(cmdArgs)
	case "cancel-run":
		return r.cancelRun(cmdArgs)
	case "outbox":
		return r.outbox(cmdArgs)
	case "flush":
		return r.flush(cmdArgs)
	case "cancel":
		return r.cancel(cmdArgs)
	case "file": // documents.go
		return r.file(cmdArgs)
	case "render": // render.go
		return r.render(cmdArgs)
	case "keep": // kept.go
		return r.keep(cmdArgs)
	case "unkeep":
		return r.unkeep(cmdArgs)
	case "export":
		return r.export(cmdArgs)
	case "demo-api":
		return r.demoAPI(cmdArgs)
	case "login": // signin.go
		return r.login(cmdArgs)
	case "logout":
		return r.logout(cmdArgs)
	case "me", "claim", "release", "next", "note": // claims.go
		return r.teamCommand(cmd, cmdArgs)
	case "purge": // forget.go
		return r.purge(cmdArgs)
	case "wipe": // wipe.go
		return r.wipe(cmdArgs)
	case "help":
		fmt.Fprint(r.env.Stdout, usage)
		return ExitOK, nil
	}
	return ExitUsage, usagef("unknown command %q", cmd)
}

func (r *runner) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// A bad flag is one line on stderr (see fail); -h prints the usage.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	r.g.register(fs)
	return fs
}

// help prints the usage and the flags of fs to stdout.
func (r *runner) help(fs *flag.FlagSet) {
	fmt.Fprint(r.env.Stdout, usage, "\nflags of ", fs.Name(), ":\n")
	fs.SetOutput(r.env.Stdout)
	fs.PrintDefaults()
}

// errHelp ends a command after -h printed its usage.
var errHelp = errors.New("help")

// parse parses a command's flags (and the global ones again), and checks
// the count of positional arguments.
func (r *runner) parse(fs *flag.FlagSet, args []string, positional int) ([]string, error) {
	// Allow flags after positional arguments: "item ID --json".
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				r.help(fs)
				return nil, errHelp
			}
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if positional >= 0 && len(pos) != positional { // < 0: the caller checks the count
		return nil, usagef("%s takes %d argument(s), got %d", fs.Name(), positional, len(pos))
	}
	return pos, nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// open builds the cache, the client and the workflow.
func (r *runner) open() (*review.Service, func(), error) {
	if err := r.resolveToken(); err != nil { // signin.go: the keyring, after the environment
		return nil, nil, err
	}
	if err := r.g.cfg.Finish(); err != nil {
		return nil, nil, err
	}
	if err := r.g.checkScale(); err != nil {
		return nil, nil, err
	}
	for _, w := range r.g.cfg.Warnings { // also in Window.Config, for the window to show
		fmt.Fprintf(r.env.Stderr, "reviewer: warning: %s\n", safetext.Line(w, safetext.Message))
	}
	path := r.g.db
	if path == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return nil, nil, err
		}
		path = p
	}
	r.path = path
	// Wider than private: said in words, and made private where it can be
	// (a file that cannot be is Open's error to give).
	warnings, _ := store.CheckPermissions(path)
	for _, w := range warnings {
		w = safetext.Line(w, safetext.Message)
		fmt.Fprintf(r.env.Stderr, "reviewer: warning: %s\n", w)
		r.warnings = append(r.warnings, w)
	}
	opts := append([]store.Option{store.BusyTimeout(r.g.cacheWait)}, r.storeOpts...)
	db, err := store.Open(path, opts...)
	// A cache that can only be read (read-only here, or on a full disk):
	// the reading commands show what it holds, and say so in one line.
	if ce := store.AsCacheError(err); ce != nil && r.reading && (ce.Problem == store.ProblemReadOnly || ce.Problem == store.ProblemDiskFull) {
		db, err = store.Open(path, append(opts, store.ReadOnly())...)
		if err == nil {
			why := ""
			switch {
			case ce.Problem == store.ProblemDiskFull:
				why = " while the disk that holds it is full (free space on it, in " + filepath.Dir(path) + ")"
			case ce.Why != "":
				why = " (" + ce.Why + ")"
			}
			r.readOnly = safetext.Line("the cache at "+path+" is read-only"+why+
				": showing what it holds; nothing can be queued or synced", safetext.Message)
		}
	}
	if err != nil {
		if store.AsCacheError(err) != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("opening the cache %s: %w", path, err)
	}
	api, err := client.New(r.g.cfg)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	cfg := review.Config{Budget: r.g.cfg.Budget(), Reviewer: r.g.reviewer,
		KeptFileRetention: r.g.keptFiles, Retention: r.g.retention, MaxSyncPages: r.g.syncPages,
		DocumentCache: r.g.docCache, DocumentLimits: r.g.docLimits, BulkMax: r.g.bulkMax}
	err = r.configureTeam(&cfg) // claims.go
	if err == nil {
		err = r.configureTriage(&cfg) // bulk.go
	}
	if err != nil {
		api.Close()
		db.Close()
		return nil, nil, err
	}
	r.keepDocuments(&cfg, path) // kept.go
	svc, err := review.New(db, api, cfg)
	if err != nil {
		api.Close()
		db.Close()
		return nil, nil, err
	}
	return svc, func() { svc.Close(); api.Close(); db.Close() }, nil
}

// applySaved lets the window's saved preferences fill in what neither a
// flag nor the environment set: the API URL. The demo reads none (its
// window keeps its preferences apart from real use).
func (r *runner) applySaved(fs *flag.FlagSet) {
	if r.env.Saved == nil || r.g.demo {
		return
	}
	flagged := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { flagged[f.Name] = true })
	if _, env := r.env.Lookup("REVIEWER_API_URL"); !env && !flagged["api"] {
		if v := r.env.Saved(PrefAPIURL); v != "" {
			r.g.cfg.BaseURL = v
		}
	}
}

// reviewerSource names where the reviewer's name comes from.
func (r *runner) reviewerSource(fs *flag.FlagSet) string {
	flagged := false
	fs.Visit(func(f *flag.Flag) { flagged = flagged || f.Name == "reviewer" })
	if flagged {
		return "--reviewer"
	}
	if v, ok := r.env.Lookup("REVIEWER_NAME"); ok && v != "" {
		return "REVIEWER_NAME"
	}
	return "the system user"
}

// tokenSource names where the token comes from, for the preferences.
func (r *runner) tokenSource() string {
	switch {
	case r.g.demo:
		return "the built-in demo token of reviewer ana"
	case r.g.cfg.TokenFile != "":
		src := "the file " + r.g.cfg.TokenFile
		// The window shows this line: it carries Finish's warnings (a token
		// file that other users can read) until the window has a place of
		// its own for them (Window.Config.Warnings).
		for _, w := range r.g.cfg.Warnings {
			src += ". Warning: " + w
		}
		return src
	case r.tokenFrom == fromKeyring:
		return "the system keyring (" + r.secrets().Service() + "), kept at sign-in"
	case r.tokenFrom == fromOwnFile:
		return "the file " + r.ownTokenFile() + ", written at sign-in as no keyring answered"
	case r.g.cfg.Token != "":
		return "the environment (REVIEWER_API_TOKEN)"
	}
	return "none: sign in (reviewer login, or the window), or set REVIEWER_API_TOKEN or REVIEWER_API_TOKEN_FILE"
}

// session opens the workflow for one command, with a context that Ctrl-C
// cancels; done closes both.
func (r *runner) session() (*review.Service, context.Context, func(), error) {
	svc, closeSvc, err := r.open()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := signalContext()
	return svc, ctx, func() { cancel(); closeSvc() }, nil
}

// ExitInterrupted is the status of a process ended by a second Ctrl-C
// (128 + SIGINT, as a shell reports it).
const ExitInterrupted = 130

// signalContext returns a context that the first SIGINT or SIGTERM
// cancels, so a command stops cleanly and records what it did. A second
// one ends the process at once, whatever it is blocked in: a person who
// presses Ctrl-C twice wants out (signal.NotifyContext would swallow it).
func signalContext() (context.Context, context.CancelFunc) {
	return notifyTwice(os.Stderr, func() { os.Exit(ExitInterrupted) })
}

func notifyTwice(stderr io.Writer, exit func()) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-stopped:
			return
		}
		select {
		case <-ch:
			fmt.Fprintln(stderr, "reviewer: interrupted twice: stopping now; 'reviewer outbox' shows what was left open")
			exit()
		case <-stopped:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(stopped)
			cancel()
		})
	}
}

// exitFor maps an error to the exit status.
func exitFor(err error) int {
	if err == nil {
		return ExitOK
	}
	var u usageError
	if errors.As(err, &u) {
		return ExitUsage
	}
	var re readError
	if errors.As(err, &re) {
		return ExitReadFailed
	}
	if store.IsBusy(err) { // nothing written: not a failure of the console
		return ExitCacheBusy
	}
	switch policy.ErrorCode(err) { // exit 6: the API's no (ITEM_CHANGED, CLAIMED), whether it or the cache said it
	case policy.CodeItemChanged, policy.CodeClaimed:
		return ExitAnswerNo
	}
	if e, ok := client.AsError(err); ok {
		switch e.Class {
		case client.ClassNotConnected, client.ClassNotStarted:
			return ExitQueued
		case client.ClassUnknown, client.ClassBadAnswer:
			// A write whose answer cannot be read (an HTML page, an empty
			// or broken 2xx) may have been carried out: an unknown outcome.
			// A read's bad answer never gets here: it is a readError (7).
			return ExitUnknown
		case client.ClassAnsweredNo, client.ClassRateLimited:
			return ExitAnswerNo
		}
		return ExitFailure
	}
	switch policy.ErrorCode(err) {
	case policy.CodeNotRetryable, policy.CodeActionOpen, policy.CodeRateLimitWait, policy.CodeConflict, policy.CodeInvalidFile,
		policy.CodeFileUnchecked, policy.CodeNotOffered,
		// A decision policy refused (contract 1.2), and a reason or a comment
		// it found wanting: nothing was queued, no call was made.
		policy.CodeNotChecked, policy.CodeNotDecidable, policy.CodeSameReviewer, policy.CodeNotAwaitingConfirmation,
		policy.CodeValidationFailed:
		return ExitRefused
	case policy.CodeInvalidInput:
		return ExitUsage
	case policy.CodeOutcomeUnknown: // a call was made and its outcome is not recorded
		return ExitUnknown
	}
	if store.AsCacheError(err) != nil {
		return ExitCache
	}
	return ExitFailure
}

// describe is the one line a person reads: the code, what happened, and
// what to do next.
func describe(err error) string {
	code := string(policy.ErrorCode(err))
	// Wrapped errors repeat the code; say it once, first.
	msg := code + ": " + strings.ReplaceAll(err.Error(), code+": ", "")
	details := ""
	if e, ok := client.AsError(err); ok {
		// The API's failures lead with words; what the parser or the
		// network said follows as details, never as the headline.
		msg = strings.Replace(err.Error(), e.Error(), strings.TrimSuffix(policy.Headline(e.Code), "."), 1)
		if details = e.Message; e.HTTPStatus != 0 {
			details = strings.TrimSpace(fmt.Sprintf("%s (HTTP %d)", details, e.HTTPStatus))
		}
	}
	switch exitFor(err) {
	case ExitReadFailed:
		msg += "; the cache keeps what it had"
		if e, ok := client.AsError(err); ok && e.Class == client.ClassRateLimited && !e.RetryAfter.IsZero() {
			msg += "; run 'reviewer sync' again after " + e.RetryAfter.Local().Format("15:04:05")
		} else {
			again := "reviewer sync"
			var re readError
			if errors.As(err, &re) && re.again != "" {
				again = re.again
			}
			msg += "; run '" + again + "' again"
		}
	case ExitQueued:
		if !strings.Contains(msg, policy.StateWord(policy.ActionQueued)) {
			msg += "; nothing reached the API"
		}
	case ExitUnknown:
		if !strings.Contains(msg, "flush") {
			msg += "; run 'reviewer flush' to reconcile it with the same key"
		}
	}
	if details != "" {
		msg += "; details: " + details
	}
	return msg
}
