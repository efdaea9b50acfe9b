-- +goose Up
-- An item whose revision the cache does not know (synced from a 1.0
-- service, or before 00004 added the column) must not be acted on blind:
-- an action queued on it keeps what the reviewer saw, so that its first
-- send can read the item and tell whether it changed since.
ALTER TABLE actions ADD COLUMN seen TEXT;
-- An incremental sync fetches only changed batches, so items synced before
-- the service reported revisions would keep revision 0 for good: the next
-- sync is a full one (the workflow clears the mark when one completes).
INSERT INTO sync_state(key, value)
SELECT 'full_sync_due', 'items without a revision'
WHERE EXISTS (SELECT 1 FROM items WHERE revision = 0);

-- +goose Down
DELETE FROM sync_state WHERE key = 'full_sync_due';
ALTER TABLE actions DROP COLUMN seen;
