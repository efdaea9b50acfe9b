-- +goose Up
-- A replacement's file is an identity document of up to 10 MiB. It is kept
-- only while its action may still send it (queued, sending, unknown); when
-- the action settles (done, failed, cancelled) the bytes are deleted and
-- their SHA-256 and size stay for the audit. Triggers do it, so no code path
-- that settles an action can forget it. reviewer_sha256 is a function the
-- store registers on every connection (store.go).
CREATE TABLE action_files_v3 (
    action_id  INTEGER PRIMARY KEY REFERENCES actions(id) ON DELETE CASCADE,
    data       BLOB,              -- NULL once the action has settled
    sha256     TEXT,              -- hex, set on insert by a trigger
    size_bytes INTEGER,
    purged_at  INTEGER,           -- ms since the epoch
    CHECK (data IS NOT NULL OR purged_at IS NOT NULL)
);
INSERT INTO action_files_v3(action_id, data, sha256, size_bytes)
    SELECT action_id, data, reviewer_sha256(data), length(data) FROM action_files;
DROP TABLE action_files;
ALTER TABLE action_files_v3 RENAME TO action_files;

-- +goose StatementBegin
CREATE TRIGGER action_files_digest AFTER INSERT ON action_files WHEN NEW.data IS NOT NULL
BEGIN
    UPDATE action_files SET sha256 = reviewer_sha256(NEW.data), size_bytes = length(NEW.data)
    WHERE action_id = NEW.action_id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER action_files_purge AFTER UPDATE OF state ON actions
WHEN NEW.state IN ('done','failed','cancelled')
 AND EXISTS (SELECT 1 FROM action_files WHERE action_id = NEW.id AND data IS NOT NULL)
BEGIN
    INSERT INTO audit(at, reviewer, item_id, action_id, event, detail)
    SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), NEW.reviewer, NEW.item_id, NEW.id,
           'file deleted', 'the uploaded file (' || size_bytes || ' bytes, sha256 ' || sha256 || ') was deleted when the action ended ' || NEW.state
    FROM action_files WHERE action_id = NEW.id;
    UPDATE action_files SET data = NULL, purged_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
    WHERE action_id = NEW.id;
END;
-- +goose StatementEnd

-- A replacement whose file is gone can never be sent again.
-- +goose StatementBegin
CREATE TRIGGER action_files_no_reopen BEFORE UPDATE OF state ON actions
WHEN NEW.state IN ('queued','sending','unknown')
 AND EXISTS (SELECT 1 FROM action_files WHERE action_id = NEW.id AND data IS NULL)
BEGIN
    SELECT RAISE(ABORT, 'the file of this replacement was deleted when the action ended');
END;
-- +goose StatementEnd

-- The files of actions that settled before this migration.
UPDATE action_files SET data = NULL, purged_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE action_id IN (SELECT id FROM actions WHERE state IN ('done','failed','cancelled'));

-- +goose Down
DROP TRIGGER action_files_no_reopen;
DROP TRIGGER action_files_purge;
DROP TRIGGER action_files_digest;
CREATE TABLE action_files_v1 (
    action_id INTEGER PRIMARY KEY REFERENCES actions(id) ON DELETE CASCADE,
    data      BLOB NOT NULL
);
INSERT INTO action_files_v1(action_id, data) SELECT action_id, data FROM action_files WHERE data IS NOT NULL;
DROP TABLE action_files;
ALTER TABLE action_files_v1 RENAME TO action_files;
