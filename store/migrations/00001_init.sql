-- +goose Up
CREATE TABLE batches (
    id           TEXT PRIMARY KEY,
    customer_ref TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE INDEX batches_created ON batches(created_at DESC, id DESC);

-- An item never carries a verdict unless it is scored: the rule that defines
-- the product is also a constraint of the cache.
CREATE TABLE items (
    id             TEXT PRIMARY KEY,
    batch_id       TEXT NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    kind           TEXT NOT NULL,
    file_name      TEXT NOT NULL,
    media_type     TEXT NOT NULL,
    size_bytes     INTEGER NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('scored','error','pending','awaiting_file','invalid')),
    risk_score     INTEGER,
    recommendation TEXT,
    layers         TEXT,
    error_code     TEXT,
    reported_code  TEXT,
    error_message  TEXT,
    problem        TEXT,
    attempt        INTEGER NOT NULL DEFAULT 0,
    updated_at     INTEGER NOT NULL,
    CHECK ((status = 'scored') = (risk_score IS NOT NULL)),
    CHECK ((status = 'scored') = (recommendation IS NOT NULL)),
    CHECK (status = 'scored' OR layers IS NULL),
    CHECK (risk_score IS NULL OR risk_score BETWEEN 0 AND 100),
    CHECK ((status IN ('error','invalid')) = (error_code IS NOT NULL))
);
CREATE INDEX items_batch ON items(batch_id, id);
CREATE INDEX items_status ON items(status, error_code);
CREATE INDEX items_code ON items(error_code) WHERE error_code IS NOT NULL;

-- The outbox. The key is made once, when the reviewer acts, and stored here
-- before any call; every send of the action uses it.
CREATE TABLE actions (
    id              INTEGER PRIMARY KEY,
    item_id         TEXT NOT NULL REFERENCES items(id),
    kind            TEXT NOT NULL CHECK (kind IN ('resubmit','file_request','replacement')),
    idempotency_key TEXT NOT NULL UNIQUE,
    state           TEXT NOT NULL CHECK (state IN ('queued','sending','done','failed','unknown','cancelled')),
    reviewer        TEXT NOT NULL,
    message         TEXT,
    file_name       TEXT,
    last_error_code TEXT,
    last_error      TEXT,
    lease_until     INTEGER,
    sends           INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
-- At most one open action per item, enforced here: the insert that loses a
-- race is the refusal.
CREATE UNIQUE INDEX actions_one_open ON actions(item_id) WHERE state IN ('queued','sending','unknown');
CREATE INDEX actions_item ON actions(item_id, id);
CREATE INDEX actions_pending ON actions(state, id) WHERE state IN ('queued','sending','unknown');

-- The file of a replacement, kept so a queued upload survives a restart.
CREATE TABLE action_files (
    action_id INTEGER PRIMARY KEY REFERENCES actions(id) ON DELETE CASCADE,
    data      BLOB NOT NULL
);

CREATE TABLE attempts (
    id                 INTEGER PRIMARY KEY,
    action_id          INTEGER REFERENCES actions(id),
    item_id            TEXT,
    operation          TEXT NOT NULL,
    number             INTEGER NOT NULL,
    started_at         INTEGER NOT NULL,
    deadline           INTEGER NOT NULL,
    spent_before_ms    INTEGER NOT NULL,
    connect_timeout_ms INTEGER NOT NULL,
    request_timeout_ms INTEGER NOT NULL,
    elapsed_ms         INTEGER NOT NULL,
    class              TEXT NOT NULL,
    code               TEXT,
    http_status        INTEGER,
    detail             TEXT
);
CREATE INDEX attempts_item ON attempts(item_id, id);

CREATE TABLE audit (
    id        INTEGER PRIMARY KEY,
    at        INTEGER NOT NULL,
    reviewer  TEXT NOT NULL,
    item_id   TEXT,
    action_id INTEGER,
    event     TEXT NOT NULL,
    detail    TEXT
);
CREATE INDEX audit_item ON audit(item_id, id);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;

CREATE TABLE sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- +goose Down
DROP TABLE sync_state;
DROP TABLE audit;
DROP TABLE attempts;
DROP TABLE action_files;
DROP TABLE actions;
DROP TABLE items;
DROP TABLE batches;
