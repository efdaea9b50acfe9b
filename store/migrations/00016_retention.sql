-- +goose Up
-- Retention: a batch nobody touched for a period (REVIEWER_RETENTION) is
-- removed from the cache with its items' actions, notes, attempts and
-- history, and the audit keeps one line for it (store/retention.go).

-- When the cache last received a change of the batch, by its own clock
-- (the service's updated_at may be months old on a first sync). A
-- reviewer's action, note or snooze on one of its items touches it too:
-- the retention reads that from the audit lines of its items. A cache made
-- before this migration starts counting now: nothing is forgotten sooner
-- than one period after the upgrade.
ALTER TABLE batches ADD COLUMN touched_at INTEGER;
UPDATE batches SET touched_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER);
CREATE INDEX batches_touched ON batches(touched_at, id);
-- Triggers, so that no path that writes a batch can forget it.
-- +goose StatementBegin
CREATE TRIGGER batches_touched_insert AFTER INSERT ON batches WHEN NEW.touched_at IS NULL
BEGIN
    UPDATE batches SET touched_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE id = NEW.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER batches_touched_update AFTER UPDATE OF updated_at, customer_ref ON batches
BEGIN
    UPDATE batches SET touched_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- The batches one purge removes, filled and emptied inside its own
-- transaction (never seen by another connection). The audit stays
-- append-only for everything else: a line may be deleted only when its
-- item belongs to a batch being purged; the purge writes one line for the
-- batch in the same transaction.
CREATE TABLE retention_purge (
    batch_id   TEXT PRIMARY KEY,
    items      INTEGER NOT NULL,
    touched_at INTEGER NOT NULL
);
DROP TRIGGER audit_no_delete;
-- Deleting an action checks that no attempt refers to it: without an index
-- that is a scan of every attempt for every action deleted.
CREATE INDEX attempts_action ON attempts(action_id);
-- +goose StatementBegin
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
WHEN OLD.item_id IS NULL
  OR NOT EXISTS (SELECT 1 FROM items i JOIN retention_purge p ON p.batch_id = i.batch_id WHERE i.id = OLD.item_id)
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
-- +goose StatementEnd

-- +goose Down
DROP INDEX attempts_action;
DROP TRIGGER audit_no_delete;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
DROP TABLE retention_purge;
DROP TRIGGER batches_touched_update;
DROP TRIGGER batches_touched_insert;
DROP INDEX batches_touched;
ALTER TABLE batches DROP COLUMN touched_at;
