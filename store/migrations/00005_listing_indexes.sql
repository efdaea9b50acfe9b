-- +goose Up
-- A listing walks batches newest first and each batch's items through
-- items_batch (store/items.go). Given an index on status or on code, SQLite
-- chose it for the inner loop of that walk: a status filter on 100,000
-- items then searched every error item once per batch and took minutes.
-- No query needs these two indexes any more, and every item synced paid
-- for keeping them.
DROP INDEX IF EXISTS items_status;
DROP INDEX IF EXISTS items_code;

-- +goose Down
CREATE INDEX items_status ON items(status, error_code);
CREATE INDEX items_code ON items(error_code) WHERE error_code IS NOT NULL;
