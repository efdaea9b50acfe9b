-- +goose Up
-- Contract 1.1: an item's file versions (the customer's documents, oldest
-- first; a replacement appends one), as the service lists them. Only the
-- list: the bytes are a customer's identity document and never enter the
-- cache. An item with no rows here was synced from a 1.0 service (which
-- offers no documents) or has not been synced since this migration.
CREATE TABLE file_versions (
    item_id     TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL CHECK (version >= 1),
    file_name   TEXT NOT NULL,
    media_type  TEXT NOT NULL,
    size_bytes  INTEGER NOT NULL,
    uploaded_at INTEGER NOT NULL,
    PRIMARY KEY (item_id, version)
) WITHOUT ROWID;

-- The result the console recorded for each file version: the item's result
-- as the cache saw it while that version was the newest (an analysis runs
-- on the newest file). A later result of the same version replaces it; the
-- result of an older version stays as it was when the replacement came.
-- The same rule as items: no verdict unless scored.
CREATE TABLE file_results (
    item_id       TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    version       INTEGER NOT NULL CHECK (version >= 1),
    status        TEXT NOT NULL CHECK (status IN ('scored','error','pending','awaiting_file','invalid')),
    risk_score    INTEGER CHECK (risk_score IS NULL OR risk_score BETWEEN 0 AND 100),
    error_code    TEXT,
    reported_code TEXT,
    recorded_at   INTEGER NOT NULL,
    CHECK ((status = 'scored') = (risk_score IS NOT NULL)),
    CHECK ((status IN ('error','invalid')) = (error_code IS NOT NULL)),
    PRIMARY KEY (item_id, version)
) WITHOUT ROWID;

-- Items cached before this migration have no rows here until they change
-- at the service or a reviewer looks at their documents: the workflow then
-- reads the item (one GET) and keeps what it lists.

-- +goose Down
DROP TABLE file_results;
DROP TABLE file_versions;
