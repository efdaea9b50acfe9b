-- +goose Up
-- Contract 1.1: an item's file versions (the customer's documents, oldest
-- first; a replacement appends one), as the service lists them, each with
-- the result the console recorded for it: the item's result as the cache
-- saw it while that version was the newest (an analysis runs on the newest
-- file). A later result of the same version replaces it, and recorded_at
-- moves only when the result changes; an older version keeps the result it
-- had when the replacement came. No result recorded: status is NULL. The
-- same rule as items: no score unless scored. Only the list and the
-- results: a document's bytes are a customer's identity document and never
-- enter the cache.
--
-- An item with no rows here was synced from a 1.0 service (which offers no
-- documents), or was cached before this migration and has not changed
-- since: the workflow then reads the item (one GET) when a reviewer looks
-- at its documents, and keeps what it lists.
CREATE TABLE file_versions (
    item_id       TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    version       INTEGER NOT NULL CHECK (version >= 1),
    file_name     TEXT NOT NULL,
    media_type    TEXT NOT NULL,
    size_bytes    INTEGER NOT NULL,
    uploaded_at   INTEGER NOT NULL,
    status        TEXT CHECK (status IN ('scored','error','pending','awaiting_file','invalid')),
    risk_score    INTEGER CHECK (risk_score IS NULL OR risk_score BETWEEN 0 AND 100),
    error_code    TEXT,
    reported_code TEXT,
    recorded_at   INTEGER,
    CHECK ((status = 'scored') = (risk_score IS NOT NULL)),
    CHECK ((status IN ('error','invalid')) = (error_code IS NOT NULL)),
    CHECK ((status IS NULL) = (recorded_at IS NULL)),
    PRIMARY KEY (item_id, version)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE file_versions;
