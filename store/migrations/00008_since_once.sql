-- +goose Up
-- When an item entered its status, kept once (issue 10): a column of items
-- that the sync's upsert sets, in place of the item_status_since table
-- that two triggers kept (three B-tree writes per synced item: the table,
-- its key and its index) and of the expression index on
-- COALESCE(status_since, updated_at). The rule is the triggers': a new
-- status, or a status_since the service reports (or corrects), sets it to
-- COALESCE(status_since, updated_at) of that answer; anything else keeps it.
ALTER TABLE items ADD COLUMN since INTEGER;
UPDATE items SET since = COALESCE((SELECT ss.since FROM item_status_since ss WHERE ss.item_id = items.id),
                                  status_since, updated_at);
DROP TRIGGER items_since_update;
DROP TRIGGER items_since_insert;
DROP TABLE item_status_since;
DROP INDEX items_status_since;
-- "Next": the oldest in its status first.
CREATE INDEX items_since ON items(since, id);

-- +goose Down
DROP INDEX items_since;
CREATE INDEX items_status_since ON items(COALESCE(status_since, updated_at), id);
CREATE TABLE item_status_since (
    item_id  TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    status   TEXT NOT NULL,
    since    INTEGER NOT NULL,
    reported INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX item_status_since_since ON item_status_since(since);
INSERT INTO item_status_since(item_id, status, since, reported)
    SELECT id, status, COALESCE(since, status_since, updated_at), status_since IS NOT NULL FROM items;
-- +goose StatementBegin
CREATE TRIGGER items_since_insert AFTER INSERT ON items BEGIN
    INSERT INTO item_status_since(item_id, status, since, reported)
    VALUES (NEW.id, NEW.status, COALESCE(NEW.status_since, NEW.updated_at), NEW.status_since IS NOT NULL)
    ON CONFLICT(item_id) DO UPDATE SET status = excluded.status, since = excluded.since, reported = excluded.reported;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER items_since_update AFTER UPDATE OF status, status_since ON items
WHEN OLD.status IS NOT NEW.status OR (NEW.status_since IS NOT NULL AND NEW.status_since IS NOT OLD.status_since) BEGIN
    INSERT INTO item_status_since(item_id, status, since, reported)
    VALUES (NEW.id, NEW.status, COALESCE(NEW.status_since, NEW.updated_at), NEW.status_since IS NOT NULL)
    ON CONFLICT(item_id) DO UPDATE SET status = excluded.status, since = excluded.since, reported = excluded.reported;
END;
-- +goose StatementEnd
ALTER TABLE items DROP COLUMN since;
