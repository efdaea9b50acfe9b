-- +goose Up
-- Contract 1.2: a reviewer's decision on an item, with four eyes.
--
-- The outbox takes two more kinds, a decision and a confirmation, and an
-- action row carries what they need: the outcome, the reason code and the
-- comment of a decision; the decision a confirmation answers and whether
-- she agrees. The kind CHECK is widened in place, as SQLite's manual says
-- a constraint that every row already meets may be changed (writable_schema;
-- RESET reads the schema again on this connection):
-- rebuilding the table would not do, since attempts, action_files and
-- bulk_run_actions reference it and foreign keys are on (a drop would
-- cascade to a kept replacement file). The ADD COLUMNs that follow move
-- the schema's version, so that every connection reads the new CHECK.
-- TestSchemaKnowsEveryKindOfAction holds the CHECK to policy's kinds.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, 'CHECK (kind IN (''resubmit'',''file_request'',''replacement''))',
                       'CHECK (kind IN (''resubmit'',''file_request'',''replacement'',''decision'',''confirmation''))')
WHERE type = 'table' AND name = 'actions';
PRAGMA writable_schema = RESET;
ALTER TABLE actions ADD COLUMN outcome TEXT CHECK (outcome IN ('clear','reject','escalate'));
ALTER TABLE actions ADD COLUMN reason_code TEXT;
ALTER TABLE actions ADD COLUMN comment TEXT;
ALTER TABLE actions ADD COLUMN decision_id TEXT;
ALTER TABLE actions ADD COLUMN agree INTEGER CHECK (agree IN (0, 1));

-- The decisions, as the service keeps them: one row per decision id, in
-- the item's order (seq), with its state and its confirmation. A sync, and
-- the answer to a decision or a confirmation, write them; the audit log
-- records each new decision and each change of state.
CREATE TABLE decisions (
    id                   TEXT PRIMARY KEY,
    item_id              TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    seq                  INTEGER NOT NULL,
    outcome              TEXT NOT NULL CHECK (outcome IN ('clear','reject','escalate')),
    reason_code          TEXT NOT NULL,
    comment              TEXT,
    by                   TEXT NOT NULL,
    at                   INTEGER NOT NULL,
    state                TEXT NOT NULL CHECK (state IN ('final','awaiting_confirmation','returned','superseded')),
    confirmed_by         TEXT,
    confirmed_at         INTEGER,
    agree                INTEGER CHECK (agree IN (0, 1)),
    confirmation_comment TEXT,
    CHECK ((confirmed_by IS NULL) = (confirmed_at IS NULL))
);
CREATE INDEX decisions_item ON decisions(item_id, seq);

-- What "needs the reviewer" reads on a 1.2 service, beside the item so
-- that the listing stays one query over items: whether the service sends
-- decisions at all, and the current decision (its id, outcome, reason,
-- state, author and confirmer). NULL: no decision.
ALTER TABLE items ADD COLUMN decisions_offered INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN decision_id TEXT;
ALTER TABLE items ADD COLUMN decision_outcome TEXT;
ALTER TABLE items ADD COLUMN decision_reason TEXT;
ALTER TABLE items ADD COLUMN decision_state TEXT;
ALTER TABLE items ADD COLUMN decision_by TEXT;
ALTER TABLE items ADD COLUMN decision_confirmed_by TEXT;

-- The service's last list of reason codes, for offline work, in its order.
CREATE TABLE reason_codes (
    position INTEGER PRIMARY KEY,
    code     TEXT NOT NULL UNIQUE,
    label    TEXT NOT NULL,
    outcomes TEXT NOT NULL -- the outcomes it may be given with, comma-separated
);

-- Items cached from a service before this migration carry no decisions,
-- and an incremental sync brings changed batches only: the next sync is a
-- full one (the workflow clears the mark when one completes).
INSERT INTO sync_state(key, value)
SELECT 'full_sync_due', 'items without decisions'
WHERE EXISTS (SELECT 1 FROM items)
ON CONFLICT(key) DO NOTHING;

-- +goose Down
DROP TABLE reason_codes;
DELETE FROM actions WHERE kind IN ('decision','confirmation');
ALTER TABLE actions DROP COLUMN agree;
ALTER TABLE actions DROP COLUMN decision_id;
ALTER TABLE actions DROP COLUMN comment;
ALTER TABLE actions DROP COLUMN reason_code;
ALTER TABLE actions DROP COLUMN outcome;
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, 'CHECK (kind IN (''resubmit'',''file_request'',''replacement'',''decision'',''confirmation''))',
                       'CHECK (kind IN (''resubmit'',''file_request'',''replacement''))')
WHERE type = 'table' AND name = 'actions';
PRAGMA writable_schema = OFF;
ALTER TABLE items DROP COLUMN decision_confirmed_by;
ALTER TABLE items DROP COLUMN decision_by;
ALTER TABLE items DROP COLUMN decision_state;
ALTER TABLE items DROP COLUMN decision_reason;
ALTER TABLE items DROP COLUMN decision_outcome;
ALTER TABLE items DROP COLUMN decision_id;
ALTER TABLE items DROP COLUMN decisions_offered;
DROP TABLE decisions;
