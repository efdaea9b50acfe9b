-- +goose Up
-- Contract 1.1: working as a team.

-- The item's revision (0: the service reports none, a 1.0 service), when it
-- entered its status, and who holds it until when.
ALTER TABLE items ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN status_since INTEGER;
ALTER TABLE items ADD COLUMN claim_reviewer TEXT;
ALTER TABLE items ADD COLUMN claim_expires_at INTEGER;
CREATE INDEX items_status_since ON items(COALESCE(status_since, updated_at), id);

-- The revision the reviewer was shown when the action was queued: a flush
-- hours later still sends it as If-Match.
ALTER TABLE actions ADD COLUMN revision INTEGER;

-- Notes, with their own outbox. They are not in the actions table: a note
-- is not a paid action and must never take the one open slot of an item
-- (actions_one_open), and the kind CHECK of actions cannot be widened
-- without rebuilding a table that attempts and action_files reference.
-- A note follows the same states as an action (queued, sending, done,
-- failed, unknown), with its own Idempotency-Key under UNIQUE, made once
-- when the reviewer writes it. A note that came with a sync has no key.
CREATE TABLE notes (
    id              INTEGER PRIMARY KEY,
    item_id         TEXT NOT NULL REFERENCES items(id),
    remote_id       TEXT UNIQUE,
    idempotency_key TEXT UNIQUE,
    author          TEXT NOT NULL,
    text            TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('queued','sending','done','failed','unknown')),
    last_error_code TEXT,
    last_error      TEXT,
    lease_until     INTEGER,
    sends           INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    CHECK (state <> 'done' OR remote_id IS NOT NULL),
    CHECK (idempotency_key IS NOT NULL OR remote_id IS NOT NULL)
);
CREATE INDEX notes_item ON notes(item_id, created_at, id);
CREATE INDEX notes_pending ON notes(state, id) WHERE state IN ('queued','sending','unknown');

-- +goose Down
DROP TABLE notes;
DROP INDEX items_status_since;
ALTER TABLE actions DROP COLUMN revision;
ALTER TABLE items DROP COLUMN claim_expires_at;
ALTER TABLE items DROP COLUMN claim_reviewer;
ALTER TABLE items DROP COLUMN status_since;
ALTER TABLE items DROP COLUMN revision;
