-- +goose Up
-- An item whose revision the cache does not know (synced from a 1.0
-- service, or before 00004 added the column) must not be acted on blind,
-- and a 412 that only the reviewer's own note caused must not stop her
-- action: every action keeps what the reviewer saw (JSON: the fields she
-- decides on and the ids of the notes the cache held).
ALTER TABLE actions ADD COLUMN seen TEXT;
-- An incremental sync fetches only changed batches, so items synced before
-- the service reported revisions would keep revision 0 for good: the next
-- sync is a full one (the workflow clears the mark when one completes).
INSERT INTO sync_state(key, value)
SELECT 'full_sync_due', 'items without a revision'
WHERE EXISTS (SELECT 1 FROM items WHERE revision = 0);

-- A replacement that failed ran nothing at the service: its file stays
-- (for "upload it again" without asking the customer anew) until the
-- reviewer discards it or the retention removes it. Done and cancelled
-- ones lose their bytes at once, as before.
DROP TRIGGER action_files_purge;
-- +goose StatementBegin
CREATE TRIGGER action_files_purge AFTER UPDATE OF state ON actions
WHEN NEW.state IN ('done','cancelled')
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

-- +goose Down
DROP TRIGGER action_files_purge;
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
UPDATE action_files SET data = NULL, purged_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
WHERE data IS NOT NULL AND action_id IN (SELECT id FROM actions WHERE state = 'failed');
DELETE FROM sync_state WHERE key = 'full_sync_due';
ALTER TABLE actions DROP COLUMN seen;
