// Command sync is the floor of `reviewer sync`: the least a program can do
// to copy the same pages of batches from the service into SQLite (with
// each item's file versions, which contract 1.1 lists and the console
// keeps). Plain
// net/http and encoding/json, mattn/go-sqlite3 in WAL mode, one transaction
// and prepared statements per page, no validation, no Fyne. The performance
// suite (bench/perf) runs it side by side with the reviewer.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

const schema = `
CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY, customer_ref TEXT NOT NULL,
	created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, batch_id TEXT NOT NULL, kind TEXT NOT NULL,
	file_name TEXT NOT NULL, media_type TEXT NOT NULL, size_bytes INTEGER NOT NULL, status TEXT NOT NULL,
	risk_score INTEGER, recommendation TEXT, layers TEXT, error_code TEXT, error_message TEXT,
	attempt INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS items_batch ON items(batch_id, id);
CREATE TABLE IF NOT EXISTS file_versions (item_id TEXT NOT NULL, version INTEGER NOT NULL, file_name TEXT NOT NULL,
	media_type TEXT NOT NULL, size_bytes INTEGER NOT NULL, uploaded_at INTEGER NOT NULL,
	PRIMARY KEY (item_id, version)) WITHOUT ROWID;`

type item struct {
	ID             string          `json:"id"`
	BatchID        string          `json:"batch_id"`
	Kind           string          `json:"kind"`
	FileName       string          `json:"file_name"`
	MediaType      string          `json:"media_type"`
	SizeBytes      int64           `json:"size_bytes"`
	Status         string          `json:"status"`
	RiskScore      *float64        `json:"risk_score"`
	Recommendation *string         `json:"recommendation"`
	Layers         json.RawMessage `json:"layers"`
	ErrorCode      *string         `json:"error_code"`
	ErrorMessage   *string         `json:"error_message"`
	Attempt        int             `json:"attempt"`
	UpdatedAt      time.Time       `json:"updated_at"`
	// Contract 1.1: the customer's documents, which the console keeps a
	// list of (and the result it recorded for each).
	FileVersions []struct {
		Version    int       `json:"version"`
		FileName   string    `json:"file_name"`
		MediaType  string    `json:"media_type"`
		SizeBytes  int64     `json:"size_bytes"`
		UploadedAt time.Time `json:"uploaded_at"`
	} `json:"file_versions"`
}

type page struct {
	Batches []struct {
		ID          string    `json:"id"`
		CustomerRef string    `json:"customer_ref"`
		CreatedAt   time.Time `json:"created_at"`
		UpdatedAt   time.Time `json:"updated_at"`
		Items       []item    `json:"items"`
	} `json:"batches"`
	NextCursor *string `json:"next_cursor"`
}

func main() {
	api := flag.String("api", "http://127.0.0.1:8001", "the service")
	dbPath := flag.String("db", "floor.db", "the SQLite file")
	limit := flag.Int("limit", 100, "batches per page (the reviewer asks for 100)")
	flag.Parse()
	n, err := run(*api, os.Getenv("REVIEWER_API_TOKEN"), *dbPath, *limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor sync:", err)
		os.Exit(1)
	}
	fmt.Printf("floor synced %d items\n", n)
}

func run(api, token, path string, limit int) (int, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, schema); err != nil {
		return 0, err
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	n, cursor := 0, ""
	for {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		req, err := http.NewRequestWithContext(ctx, "GET", api+"/v1/batches?"+q.Encode(), nil)
		if err != nil {
			return n, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			return n, err
		}
		var p page
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			return n, err
		}
		if resp.StatusCode != 200 {
			return n, fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		k, err := write(ctx, db, &p)
		n += k
		if err != nil {
			return n, err
		}
		if p.NextCursor == nil || *p.NextCursor == "" {
			return n, nil
		}
		cursor = *p.NextCursor
	}
}

func write(ctx context.Context, db *sql.DB, p *page) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	bs, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO batches VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer bs.Close()
	is, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer is.Close()
	fs, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO file_versions VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer fs.Close()
	n := 0
	for _, b := range p.Batches {
		if _, err := bs.ExecContext(ctx, b.ID, b.CustomerRef, b.CreatedAt.UnixMilli(), b.UpdatedAt.UnixMilli()); err != nil {
			return n, err
		}
		for _, it := range b.Items {
			var layers any
			if len(it.Layers) > 0 && string(it.Layers) != "null" {
				layers = string(it.Layers)
			}
			if _, err := is.ExecContext(ctx, it.ID, it.BatchID, it.Kind, it.FileName, it.MediaType, it.SizeBytes,
				it.Status, it.RiskScore, it.Recommendation, layers, it.ErrorCode, it.ErrorMessage, it.Attempt,
				it.UpdatedAt.UnixMilli()); err != nil {
				return n, err
			}
			for _, f := range it.FileVersions {
				if _, err := fs.ExecContext(ctx, it.ID, f.Version, f.FileName, f.MediaType, f.SizeBytes, f.UploadedAt.UnixMilli()); err != nil {
					return n, err
				}
			}
			n++
		}
	}
	return n, tx.Commit()
}
