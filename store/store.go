// Package store is the console's local cache, in one SQLite file
// (mattn/go-sqlite3): batches and items as last synced, the outbox of
// reviewer actions and of notes, the evidence of every HTTP attempt, an
// append-only audit log, the sync position, who the reviewer is, claims and
// revisions, snoozes, saved views and bulk runs. A replacement's file is
// kept while its action may send it, and after it failed for another try
// (until discarded or its retention ends); its SHA-256 and size stay.
// A batch nobody touched for the retention period, that nothing holds, is
// forgotten with everything of its items but one audit line (retention.go).
//
// It knows SQL, not HTTP and not Fyne. The database, not a SELECT first,
// enforces the rules that must survive two processes racing: one open action
// per item (a partial UNIQUE index), one Idempotency-Key per action (UNIQUE),
// no verdict on an item that is not scored (CHECK constraints). Every change
// of an action's state follows policy's action machine. The API token is
// never written here.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/pressly/goose/v3"

	"github.com/trustscreen/reviewer/policy"
)

//go:embed migrations/*.sql
var migrations embed.FS

// driverName is go-sqlite3 with the functions the schema's triggers call:
// reviewer_sha256(blob), the hex SHA-256 kept of a replacement's file
// after its bytes are deleted (migration 00003); and temporary files in
// memory: a statement that fires a trigger, or a multi-row upsert, keeps
// a statement journal, which on disk was seven writes to a file in
// /var/tmp per synced item, more than the cache's own writes.
const driverName = "sqlite3_reviewer"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec("PRAGMA temp_store = MEMORY", nil); err != nil {
			return err
		}
		return c.RegisterFunc("reviewer_sha256", func(b []byte) string {
			sum := sha256.Sum256(b)
			return hex.EncodeToString(sum[:])
		}, true)
	}})
}

// DB is an open cache: one service per noun, each a few methods that are
// each one transaction over small find and put helpers, all sharing one
// core (the *sql.DB, the clock, the file that carries the migration lock).
// A caller takes the service it uses: db.Outbox.CreateAction, db.Notes,
// db.Runs. Settings are given at Open (Config), none is set afterwards.
type DB struct {
	*core
	Sync      *SyncStore      // pages and items from the service, the sync position, the full-sync mark, the data version
	Items     *ItemStore      // the cached items and batches, as listed and counted
	Outbox    *OutboxStore    // reviewer actions: created, leased, finished, cancelled; their revisions
	Notes     *NoteStore      // notes: the same life as actions, their own table
	Team      *TeamStore      // who the reviewer is; the next items nobody holds
	Files     *FileStore      // replacement files kept for an action, their versions and digests
	Evidence  *EvidenceStore  // every HTTP attempt, and the append-only audit log
	Triage    *TriageStore    // snoozes, saved views, how long items have waited
	Runs      *RunStore       // bulk runs and their actions
	Retention *RetentionStore // batches nobody touched for the retention period, forgotten
}

// core is what every service shares.
type core struct {
	db  *sql.DB
	now func() time.Time
	// file is the cache file held open from Open to Close: it carries the
	// migration lock (migratelock_unix.go), and closing it while SQLite
	// works would drop SQLite's own locks.
	file *os.File
	// busyTimeout is how long a write waits for another's lock (BusyTimeout).
	busyTimeout time.Duration
}

// The services: each is the core under the name of its noun.
type (
	SyncStore      struct{ *core }
	ItemStore      struct{ *core }
	OutboxStore    struct{ *core }
	NoteStore      struct{ *core }
	TeamStore      struct{ *core }
	FileStore      struct{ *core }
	EvidenceStore  struct{ *core }
	TriageStore    struct{ *core }
	RunStore       struct{ *core }
	RetentionStore struct{ *core }
)

// Config is what Open is given besides the file and its SQLite options.
type Config struct {
	// Now is the clock every service reads (nil: time.Now).
	Now func() time.Time
}

// WithConfig gives Open its Config.
func WithConfig(c Config) Option {
	return func(o *options) { o.cfg = c }
}

func newDB(c *core) *DB {
	if c.now == nil {
		c.now = time.Now
	}
	return &DB{
		core:      c,
		Sync:      &SyncStore{c},
		Items:     &ItemStore{c},
		Outbox:    &OutboxStore{c},
		Notes:     &NoteStore{c},
		Team:      &TeamStore{c},
		Files:     &FileStore{c},
		Evidence:  &EvidenceStore{c},
		Triage:    &TriageStore{c},
		Runs:      &RunStore{c},
		Retention: &RetentionStore{c},
	}
}

// DefaultPath is the cache in the user's config directory.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "trustscreen-reviewer", "cache.db"), nil
}

// Open opens (creating with mode 0600) and migrates the cache at path. An
// existing cache file, or its -wal or -shm, that others may read is made
// 0600 first; one that cannot be is refused with the reason. Anything but
// a regular file at path is refused.
//
// A cache that cannot be used as it is gives a *CacheError that says why
// and what to do: one this console cannot write (ReadOnly: open it with the
// ReadOnly option to read it), one a newer console made, one that lacks an
// older migration (migrations are applied in order only), a damaged one.
// Open never deletes, recreates or migrates such a cache.
func Open(path string, opts ...Option) (*DB, error) {
	o := options{dsn: url.Values{}}
	for _, opt := range opts {
		opt(&o)
	}
	q := o.dsn
	if q.Get("mode") == "ro" {
		return openReadOnly(path, q, o.cfg)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, inWords("cache directory", explainOpen(path, err))
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cache file: %s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, inWords("cache file", explainOpen(path, err))
	}
	if err := tighten(path); err != nil {
		f.Close()
		return nil, err
	}
	// One process at a time migrates: another one opening the same new
	// cache waits, then finds it migrated.
	unlock, err := lockMigrations(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	defer unlock()
	q.Set("_journal_mode", "WAL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", strconv.FormatInt(DefaultBusyTimeout.Milliseconds(), 10))
	busyMS := DefaultBusyTimeout.Milliseconds()
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate") // writers queue at BEGIN, not deadlock at COMMIT
	// An option (BusyTimeout) wins over the defaults.
	for _, opt := range opts {
		opt(&o)
	}
	if v, err := strconv.ParseInt(q.Get("_busy_timeout"), 10, 64); err == nil {
		busyMS = v
	}
	sdb, err := sql.Open(driverName, "file:"+path+"?"+q.Encode())
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := migrate(sdb, path, false); err != nil {
		sdb.Close()
		f.Close()
		return nil, err
	}
	return newDB(&core{db: sdb, now: o.cfg.Now, file: f, busyTimeout: time.Duration(busyMS) * time.Millisecond}), nil
}

// inWords is err as Open gives it: a CacheError as it is (it names the
// cache and says what to do), anything else after what was being opened.
func inWords(what string, err error) error {
	if ce := AsCacheError(err); ce != nil {
		return ce
	}
	return fmt.Errorf("%s: %w", what, err)
}

// ReadOnly opens the cache for reading only (the reading commands, on a
// cache this console cannot write): nothing is created, tightened or
// migrated, and every write fails with a CacheError. SQLite reads a WAL
// cache read-only when it can open or create its -wal and -shm; in a
// folder where it cannot (one of mode 0555 or another user's, where it
// says SQLITE_READONLY_DIRECTORY, or an immutable one, SQLITE_CANTOPEN),
// a cache whose -wal is empty or gone is read as immutable (nothing can
// change it there), and one whose -wal holds changes is refused: reading
// it without them would show an old outbox. So too on a full disk, where
// SQLite cannot give the -shm its size (ENOSPC): no connection can write
// the cache without one while the disk stays full.
func ReadOnly() Option { return func(o *options) { o.dsn.Set("mode", "ro") } }

func openReadOnly(path string, q url.Values, cfg Config) (*DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cache file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cache file: %s is not a regular file", path)
	}
	q.Set("_busy_timeout", "10000")
	sdb, err := sql.Open(driverName, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	err = migrate(sdb, path, true)
	full := false
	if ce := Explain(path, err); ce != nil && ce.Problem == ProblemDiskFull {
		full = true
	}
	if err != nil && (cannotShare(err) || full) {
		sdb.Close()
		if wal, werr := os.Stat(path + "-wal"); werr == nil && wal.Size() > 0 {
			err = fmt.Errorf("its write-ahead log %s-wal holds changes that SQLite cannot read "+
				"without creating %s-shm beside it: %w", path, path, err)
			if full {
				return nil, diskFull(path, err)
			}
			return nil, readOnly(path, "", err)
		}
		q.Set("immutable", "1")
		if sdb, err = sql.Open(driverName, "file:"+path+"?"+q.Encode()); err != nil {
			return nil, err
		}
		err = migrate(sdb, path, true)
	}
	if err != nil {
		sdb.Close()
		return nil, err
	}
	return newDB(&core{db: sdb, now: cfg.Now, busyTimeout: DefaultBusyTimeout}), nil
}

// cannotShare reports whether SQLite refused a read-only connection
// because it could neither open nor create the cache's -wal or -shm
// beside it: SQLITE_CANTOPEN where the system said EPERM (an immutable
// folder), SQLITE_READONLY_DIRECTORY (or another SQLITE_READONLY) where it
// said EACCES, as a folder of another user or of mode 0555 does.
func cannotShare(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrReadonly)
}

// migrate brings the cache up to this console's schema, in order, or says
// in words why it cannot. It reads first and writes only what is due: a
// cache already up to date is not written to.
//
// The newest schema a console has seen in the cache is kept in SQLite's
// user_version (in the file's header) beside goose's own table: a console
// older than that refuses the cache (its queries would fail on a table or
// column it does not know, or miss one it does not fill).
func migrate(sdb *sql.DB, path string, readOnly bool) error {
	sub, _ := fs.Sub(migrations, "migrations")
	return migrateFS(sdb, path, readOnly, sub)
}

// landedLate are the migrations that reached main after a higher-numbered
// one had been released (00007 was released before 00003, 00004 and
// 00005): a cache made in between lacks them, and takes them late, as it
// always did. Any other missing older migration is refused.
var landedLate = map[int64]bool{3: true, 4: true, 5: true}

func migrateFS(sdb *sql.DB, path string, readOnly bool, fsys fs.FS) error {
	ctx := context.Background()
	p, err := goose.NewProvider(goose.DialectSQLite3, sdb, fsys)
	if err != nil {
		return err
	}
	var known []int64
	for _, s := range p.ListSources() {
		known = append(known, s.Version)
	}
	newest := known[len(known)-1]
	var recorded int64
	if err := sdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&recorded); err != nil {
		return explainOpen(path, err)
	}
	applied, err := appliedVersions(ctx, sdb)
	if err != nil {
		return explainOpen(path, err)
	}
	var top int64
	for v, ok := range applied {
		if ok {
			top = max(top, v)
		}
	}
	if v := max(top, recorded); v > newest {
		return newer(path, v, newest)
	}
	var missing, late, pending []int64
	for _, v := range known {
		switch {
		case applied[v]:
		case v < top && landedLate[v]:
			late = append(late, v)
		case v < top:
			missing = append(missing, v)
		default:
			pending = append(pending, v)
		}
	}
	if len(missing) > 0 {
		return unordered(path, top, missing)
	}
	if readOnly {
		if len(late)+len(pending) > 0 {
			return outdated(path, top, newest)
		}
		return nil
	}
	if len(late)+len(pending) > 0 {
		if len(late) > 0 {
			if p, err = goose.NewProvider(goose.DialectSQLite3, sdb, fsys, goose.WithAllowOutofOrder(true)); err != nil {
				return err
			}
		}
		if _, err := p.Up(ctx); err != nil {
			if ce := Explain(path, err); ce != nil {
				return ce
			}
			return fmt.Errorf("migrating the cache: %w", err)
		}
	}
	if recorded < newest {
		if _, err := sdb.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", newest)); err != nil {
			return explainOpen(path, err)
		}
	}
	return nil
}

// gooseTable is the table in which goose records the migrations applied.
const gooseTable = "goose_db_version"

// appliedVersions reads the migrations goose recorded as applied (none in
// a new cache).
func appliedVersions(ctx context.Context, sdb *sql.DB) (map[int64]bool, error) {
	applied := map[int64]bool{}
	var n int
	if err := sdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`,
		gooseTable).Scan(&n); err != nil || n == 0 {
		return applied, err
	}
	rows, err := sdb.QueryContext(ctx, `SELECT version_id, is_applied FROM `+gooseTable+` ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var v int64
		var ok bool
		if err := rows.Scan(&v, &ok); err != nil {
			return nil, err
		}
		if v > 0 {
			applied[v] = ok
		}
	}
	return applied, rows.Err()
}

// migrator runs the embedded migrations on sdb, in order only (tests; Open
// runs them through migrate, which refuses in words a cache that lacks an
// older migration, but for landedLate). A migration, once released, is
// never edited (TestReleasedMigrationsAreNeverEdited): a change is a new
// migration with the next number.
func migrator(sdb *sql.DB) (*goose.Provider, error) {
	sub, _ := fs.Sub(migrations, "migrations")
	return goose.NewProvider(goose.DialectSQLite3, sdb, sub)
}

// Option changes how Open opens the cache.
type Option func(*options)

// options are what the Options given to Open set: SQLite's (in its DSN)
// and the services' (Config).
type options struct {
	dsn url.Values
	cfg Config
}

// DefaultBusyTimeout is how long a writer waits for another process's
// write to end before it gives up with CACHE_BUSY (BusyTimeout).
const DefaultBusyTimeout = 10 * time.Second

// BusyTimeout sets how long a statement waits for the cache's lock while
// another connection or process writes (default DefaultBusyTimeout); past
// it the write fails with CACHE_BUSY and nothing of it is kept.
func BusyTimeout(d time.Duration) Option {
	return func(o *options) { o.dsn.Set("_busy_timeout", strconv.FormatInt(max(d.Milliseconds(), 1), 10)) }
}

// PageCache caps SQLite's page cache at kib KiB for each connection
// (SQLite's default is 2,000 KiB). The window keeps its connections all
// day for reads of a few hundred rows; a command keeps the default.
func PageCache(kib int) Option {
	return func(o *options) { o.dsn.Set("_cache_size", strconv.Itoa(-kib)) }
}

// tighten makes the cache and its WAL files 0600: the cache holds the
// reviewers' names, the customers' references and the outbox. SQLite
// creates the -wal and -shm with the mode of the cache file, so a cache
// made 0600 keeps them so.
func tighten(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cache file: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("cache file: %s is not a regular file; move it away", p)
		}
		if fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(p, 0o600); err != nil {
			return fmt.Errorf("cache file: %s is mode %04o (others can read it) and cannot be made 0600: %w",
				p, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// Close closes the cache.
func (db *DB) Close() error {
	db.closeWatcher()
	err := db.db.Close()
	if db.file != nil {
		db.file.Close() // after SQLite's descriptors: see core.file
	}
	return err
}

// tx runs fn in one IMMEDIATE transaction. A cache that another process
// kept busy past the busy timeout is CACHE_BUSY, in words: nothing of fn
// was written.
func (c *core) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	return busyError(c.runTx(ctx, fn), c.busyTimeout)
}

func (c *core) runTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// busyError words SQLite's "database is locked" (SQLITE_BUSY, after the
// busy timeout) as CACHE_BUSY: what happened, that nothing was written,
// and what to do. The driver's text stays in the chain for errors.Is/As.
func busyError(err error, waited time.Duration) error {
	var se sqlite3.Error
	if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) {
		return err
	}
	var pe *policy.Error
	if errors.As(err, &pe) {
		return err
	}
	return &busy{err: err, waited: waited}
}

// busy is CACHE_BUSY with the driver's error beneath it.
type busy struct {
	err    error
	waited time.Duration
}

func (b *busy) Error() string {
	return fmt.Sprintf("the cache is busy: another process (a bulk confirmation, a sync) held its write lock for more than %v; nothing was written; run the command again in a moment (REVIEWER_CACHE_WAIT waits longer)",
		b.waited)
}
func (b *busy) Unwrap() error { return b.err }

// ConsoleCode lets policy.ErrorCode read the code.
func (b *busy) ConsoleCode() policy.Code { return policy.CodeCacheBusy }

// IsBusy reports whether err is CACHE_BUSY: another process held the
// cache's write lock past the busy timeout.
func IsBusy(err error) bool { return policy.ErrorCode(err) == policy.CodeCacheBusy }

// notFound is the error for an id the cache does not hold.
func notFound(what, id string) error {
	return policy.Errorf(policy.CodeNotFound, "no %s %s in the cache; run sync", what, id)
}

func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}

func isPrimaryKeyViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func nullMS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// State keys.
const (
	keyPosition    = "position"
	keyLastSync    = "last_sync"
	keyRateLimited = "rate_limited_until"
)

func getState(ctx context.Context, q querier, key string) (int64, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM sync_state WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

func setState(ctx context.Context, tx *sql.Tx, key string, v int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sync_state(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, strconv.FormatInt(v, 10))
	return err
}

func getString(ctx context.Context, q querier, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM sync_state WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

func setString(ctx context.Context, tx *sql.Tx, key, v string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sync_state(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, v)
	return err
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SyncPosition is the newest updated_at the cache holds (zero: none).
func (s *SyncStore) SyncPosition(ctx context.Context) (time.Time, error) {
	v, err := getState(ctx, s.db, keyPosition)
	return fromMS(v), err
}

// LastSync is when a sync last completed (zero: never).
func (s *SyncStore) LastSync(ctx context.Context) (time.Time, error) {
	v, err := getState(ctx, s.db, keyLastSync)
	return fromMS(v), err
}

// SetLastSync records a completed sync.
func (s *SyncStore) SetLastSync(ctx context.Context, t time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return setState(ctx, tx, keyLastSync, ms(t)) })
}

// RateLimitedUntil is when the API's rate-limit wait ends (zero: none).
func (s *SyncStore) RateLimitedUntil(ctx context.Context) (time.Time, error) {
	v, err := getState(ctx, s.db, keyRateLimited)
	return fromMS(v), err
}

// SetRateLimitedUntil records a rate-limit wait.
func (s *SyncStore) SetRateLimitedUntil(ctx context.Context, t time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return setState(ctx, tx, keyRateLimited, ms(t)) })
}
