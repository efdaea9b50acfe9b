package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"
)

// released is every migration that has reached main, as it reached it. A
// cache in use has run these texts; editing one changes nothing in those
// caches (goose never runs a migration twice) and makes new caches differ
// from old ones, as the edit of 00007 did (ages up to 257 h off).
var released = map[string]string{
	"00001_init.sql":                    "fdc86266280a65aa3f045625dc9282722e82bb06edef489ab5adec46a26618ec",
	"00003_purge_replacement_files.sql": "d347278953cbf16ab925ae9e2afd7e5fd1e611fa479a5f2c365480a1274a9e00",
	"00004_team.sql":                    "2a37755410af39f3000876e58135ce0ef97e54e00457eb605ea82befe30f8d99",
	"00005_listing_indexes.sql":         "1e6123da5c1593187c929a6223fcf94672598bc8f9a9a8439bff66ac2f13a094",
	"00007_triage.sql":                  "745024b923fbd86aa7eb352971ab6276fc5c6fa20941c248761f359ff525174c",
	"00008_since_once.sql":              "1f76d752e601e15f393e3c4316f94bdec88f2110928cf5f51e9ac5fed607e10a",
	"00009_since_from_status_since.sql": "4378d3555b8c31cbd3022c4bc07262537afcd6c3a1019ef19ddcfbb3c166e6c0",
	"00010_bulk_run_held.sql":           "96fd799838d5ff457dca34a6fdc753d2b351343d357791205d59e835232ce405",
	"00011_invalid_raw.sql":             "05564b4eb7ff52364d3b16f62d43c40ce6aa4d487da653eb5818944fc58d43b3",
	"00012_unseen_revisions.sql":        "3d1c7ac5cf7feeb7bf49dcda1f634c50d22b78b09d1ab6d572ac5ca87b322f1a",
	"00013_action_not_before.sql":       "1448b15e64c3b4eabb153df5d6e57e27a38942d3a3165f347207d23989959e0d",
	"00015_file_versions.sql":           "548074a372431187530ce140b06370dcd5c32de84d1471a5f19f8bff9415a994",
	"00016_retention.sql":               "927493cffe8078b1c63bbcfdeaeca85fb67e9f591f591c222d6d8140448ec65b",
	"00017_decisions.sql":               "54b44eee6a922fa68704e8234385aa1c88627ce6a2527345cd161ba3feb61672",
	"00018_bulk_clear.sql":              "50173540bb9143ec3db9f8a41e04d54697732114bee10598d701c4ca7cb75453",
	"00019_awaiting_confirmation.sql":   "73d8ad75fb9d8213cdd69a82b22b776e2e9a3e26bd3a86817f179c806bd5e653",
}

func TestReleasedMigrationsAreNeverEdited(t *testing.T) {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		seen[name] = true
		b, err := fs.ReadFile(migrations, f)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		got := hex.EncodeToString(sum[:])
		want, ok := released[name]
		if !ok {
			t.Errorf("migration %s is not in the released list: when it is released, add it with its sha256 %s "+
				"(its number must be above every released one: caches are migrated in order only)", name, got)
			continue
		}
		if got != want {
			t.Errorf("migration %s was edited after its release (sha256 %s, released as %s): "+
				"released migrations are never edited, because the caches that ran them keep what they did: "+
				"undo the edit and add a new migration with the next number", name, got, want)
		}
	}
	for name := range released {
		if !seen[name] {
			t.Errorf("released migration %s is gone: released migrations are never edited or removed: add a new one", name)
		}
	}
}

// firstForm07 is the migrations up to 00008 as a cache made at the first
// release of 00007 ran them: 00007 as it was before its edit.
func firstForm07(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for _, name := range []string{"00001_init.sql", "00003_purge_replacement_files.sql", "00004_team.sql",
		"00005_listing_indexes.sql", "00008_since_once.sql"} {
		b, err := fs.ReadFile(migrations, "migrations/"+name)
		if err != nil {
			t.Fatal(err)
		}
		m[name] = &fstest.MapFile{Data: b}
	}
	b, err := os.ReadFile("testdata/00007_triage_first_form.sql")
	if err != nil {
		t.Fatal(err)
	}
	m["00007_triage.sql"] = &fstest.MapFile{Data: b}
	return m
}

func rawMigrate(t *testing.T, sdb *sql.DB, fsys fs.FS, upTo int64) {
	t.Helper()
	p, err := goose.NewProvider(goose.DialectSQLite3, sdb, fsys, goose.WithAllowOutofOrder(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), upTo); err != nil {
		t.Fatal(err)
	}
}

// A cache made with the first form of 00007 recorded the cache's
// updated_at where the service gave status_since; 00008 carried it into
// items.since. 00009 recomputes it, and `next` then takes the item that
// has waited longest.
func TestMigration9RepairsTheSinceOfTheFirstForm(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	sdb, err := sql.Open(driverName, "file:"+path+"?_foreign_keys=on&_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	fsys := firstForm07(t)
	rawMigrate(t, sdb, fsys, 7)
	hour := int64(time.Hour / time.Millisecond)
	base := int64(1_780_000_000_000)
	for _, q := range []string{
		`INSERT INTO batches(id, customer_ref, created_at, updated_at) VALUES ('b1', 'CUST-1', 1000, 5000)`,
		// In error for 257 h by the service's word; the cache saw
		// it in the answer at base.
		fmt.Sprintf(`INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, error_code, attempt, updated_at, status_since)
		 VALUES ('old', 'b1', 'id_document', 'a.jpg', 'image/jpeg', 1, 'error', 'CLASSIFIER_TIMEOUT', 1, %d, %d)`, base, base-257*hour),
		// In error for 2 h, seen an hour earlier than 'old'.
		fmt.Sprintf(`INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, error_code, attempt, updated_at, status_since)
		 VALUES ('young', 'b1', 'id_document', 'b.jpg', 'image/jpeg', 1, 'error', 'CLASSIFIER_TIMEOUT', 1, %d, %d)`, base-hour, base-2*hour),
		// No status_since (a 1.0 service): the cache's own record stays.
		fmt.Sprintf(`INSERT INTO items(id, batch_id, kind, file_name, media_type, size_bytes, status, error_code, attempt, updated_at)
		 VALUES ('plain', 'b1', 'selfie', 'c.jpg', 'image/jpeg', 1, 'error', 'INTERNAL_ERROR', 1, %d)`, base-3*hour),
		fmt.Sprintf(`UPDATE items SET updated_at = %d, attempt = 2 WHERE id = 'plain'`, base),
	} {
		if _, err := sdb.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rawMigrate(t, sdb, fsys, 8)
	sdb.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range map[string]int64{"old": base - 257*hour, "young": base - 2*hour, "plain": base - 3*hour} {
		r, err := db.Items.Item(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := ms(r.EnteredStatus); got != want {
			t.Errorf("%s entered its status at %d, want %d (%+.1f h off)", id, got, want, float64(got-want)/float64(hour))
		}
	}
	next, err := db.Team.NextCandidates(ctx, "ana", time.UnixMilli(base), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(next) == 0 || next[0] != "old" {
		t.Fatalf("next candidates %v: want the item waiting 257 h first", next)
	}
}

// openRaw opens a plain connection to a cache file, beside the store.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open(driverName, "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkpoint moves the cache's write-ahead log into the file, so that the
// file's bytes are all of it.
func checkpoint(t *testing.T, path string) {
	t.Helper()
	raw := openRaw(t, path)
	var busy, logged, moved int
	if err := raw.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved); err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d: %v", busy, err)
	}
	raw.Close()
}

func knownNewest(t *testing.T) int64 {
	t.Helper()
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	var v int64
	fmt.Sscanf(filepath.Base(files[len(files)-1]), "%d", &v)
	return v
}

// Open records the newest schema it brought the cache to; a console that
// knows less refuses the cache in words and changes nothing in it, whether
// goose's table or the record says it is newer.
func TestANewerCacheIsRefusedInWords(t *testing.T) {
	newest := knownNewest(t)
	for _, how := range []string{"goose", "record"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cache.db")
			db, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var recorded int64
			if err := db.db.QueryRow(`PRAGMA user_version`).Scan(&recorded); err != nil || recorded != newest {
				t.Fatalf("user_version %d after Open (%v), want %d", recorded, err, newest)
			}
			db.Close()
			raw := openRaw(t, path)
			if how == "goose" {
				// A newer console applied its migration, and a table of it.
				if _, err := raw.Exec(`CREATE TABLE from_the_future (x); INSERT INTO `+gooseTable+`(version_id, is_applied) VALUES (?, 1)`, newest+1); err != nil {
					t.Fatal(err)
				}
			} else if _, err := raw.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, newest+3)); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			checkpoint(t, path)
			before := fileSum(t, path)
			for _, opts := range [][]Option{nil, {ReadOnly()}} {
				_, err = Open(path, opts...)
				ce := AsCacheError(err)
				if ce == nil || ce.Problem != ProblemNewer || !strings.Contains(err.Error(), "this cache was made by a newer console") {
					t.Fatalf("Open(%v) of a newer cache: %v", opts, err)
				}
				if ce.ConsoleCode() != "CACHE_NEWER" {
					t.Fatalf("code %s", ce.ConsoleCode())
				}
			}
			if fileSum(t, path) != before {
				t.Fatal("refusing a newer cache changed it")
			}
		})
	}
}

// Two migrations numbered apart (far above the real ones) land in the
// wrong order: 00901 is
// released, then 00900. A cache already at 00901 lacks 00900; it is
// refused in words, and goose does not apply 00900 out of order (a
// migration written for the schema before 00901 may not hold after it).
func TestAMissingOlderMigrationIsRefusedNotAppliedOutOfOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	sdb, err := sql.Open(driverName, "file:"+path+"?_foreign_keys=on&_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	sub, _ := fs.Sub(migrations, "migrations")
	all := fstest.MapFS{}
	names, _ := fs.Glob(sub, "*.sql")
	for _, name := range names {
		b, _ := fs.ReadFile(sub, name)
		all[name] = &fstest.MapFile{Data: b}
	}
	without900 := fstest.MapFS{}
	for k, v := range all {
		without900[k] = v
	}
	without900["00901_second.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE second (x);\n")}
	all["00901_second.sql"] = without900["00901_second.sql"]
	all["00900_first.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE first (x);\n")}
	if err := migrateFS(sdb, path, false, without900); err != nil {
		t.Fatal(err)
	}
	err = migrateFS(sdb, path, false, all)
	ce := AsCacheError(err)
	if ce == nil || ce.Problem != ProblemUnordered || !strings.Contains(err.Error(), "lacks the older migration 00900") ||
		!strings.Contains(err.Error(), "only in order") {
		t.Fatalf("a cache at 00901 without 00900: %v", err)
	}
	var n int
	if err := sdb.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'first'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("00900 ran out of order (%v)", err)
	}
	if err := sdb.QueryRow(`SELECT COUNT(*) FROM ` + gooseTable + ` WHERE version_id = 900`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("00900 recorded as applied (%v)", err)
	}
}

// A cache made before this console recorded its schema (user_version 0)
// is migrated and recorded; one already up to date is not written to.
func TestAnUpToDateCacheIsNotWrittenOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	checkpoint(t, path)
	before := fileSum(t, path)
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	checkpoint(t, path)
	if fileSum(t, path) != before {
		t.Fatal("opening an up-to-date cache wrote to it")
	}
}
