-- +goose Up
-- Triage at speed (issue 12): bulk runs, when an item entered its status,
-- snoozes and saved views. New tables only, so that other migrations that
-- reshape items or actions do not meet this one.

-- A bulk run groups the actions one confirmation queued, so that the ones
-- still queued can be cancelled together. confirmed is the count the
-- reviewer saw and accepted: a run never holds more actions than that.
CREATE TABLE bulk_runs (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('resubmit','file_request')),
    reviewer   TEXT NOT NULL,
    confirmed  INTEGER NOT NULL CHECK (confirmed >= 0),
    created_at INTEGER NOT NULL
);
CREATE TABLE bulk_run_actions (
    action_id INTEGER PRIMARY KEY REFERENCES actions(id),
    run_id    INTEGER NOT NULL REFERENCES bulk_runs(id)
);
CREATE INDEX bulk_run_actions_run ON bulk_run_actions(run_id, action_id);
-- No run holds more actions than were confirmed.
-- +goose StatementBegin
CREATE TRIGGER bulk_run_within_confirmed BEFORE INSERT ON bulk_run_actions
WHEN (SELECT COUNT(*) FROM bulk_run_actions WHERE run_id = NEW.run_id) >=
     (SELECT confirmed FROM bulk_runs WHERE id = NEW.run_id)
BEGIN SELECT RAISE(ABORT, 'a bulk run holds no more actions than the reviewer confirmed'); END;
-- +goose StatementEnd

-- When an item entered its current status. The service's status_since wins
-- where it gives one (reported = 1); otherwise the cache records the change
-- it sees, at the service's updated_at of the answer that brought it.
CREATE TABLE item_status_since (
    item_id  TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    status   TEXT NOT NULL,
    since    INTEGER NOT NULL,
    reported INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX item_status_since_since ON item_status_since(since);
INSERT INTO item_status_since(item_id, status, since) SELECT id, status, updated_at FROM items;
-- +goose StatementBegin
CREATE TRIGGER items_since_insert AFTER INSERT ON items BEGIN
    INSERT INTO item_status_since(item_id, status, since) VALUES (NEW.id, NEW.status, NEW.updated_at)
    ON CONFLICT(item_id) DO UPDATE SET status = excluded.status, since = excluded.since, reported = 0
    WHERE item_status_since.status <> excluded.status;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER items_since_update AFTER UPDATE OF status ON items WHEN OLD.status <> NEW.status BEGIN
    INSERT INTO item_status_since(item_id, status, since) VALUES (NEW.id, NEW.status, NEW.updated_at)
    ON CONFLICT(item_id) DO UPDATE SET status = excluded.status, since = excluded.since, reported = 0;
END;
-- +goose StatementEnd

-- "Remind me on Tuesday": hidden from "needs my action" until a date. Local
-- to this cache; every snooze and wake is in the audit log.
CREATE TABLE snoozes (
    item_id    TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    until      INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    reviewer   TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX snoozes_until ON snoozes(until);

-- Saved views: a name for filters and a sort (JSON the workflow defines).
CREATE TABLE saved_views (
    name       TEXT PRIMARY KEY CHECK (length(trim(name)) > 0),
    spec       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE saved_views;
DROP TABLE snoozes;
DROP TRIGGER items_since_update;
DROP TRIGGER items_since_insert;
DROP TABLE item_status_since;
DROP TRIGGER bulk_run_within_confirmed;
DROP TABLE bulk_run_actions;
DROP TABLE bulk_runs;
