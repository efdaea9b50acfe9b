-- +goose Up
-- The text the service sent for an item the console could not read or that
-- broke the contract, kept as sent so that a person can see what came (a
-- date in the year 275760, a score of 1e400, an id of ".."). Only an
-- invalid item keeps one: a valid answer is its columns.
ALTER TABLE items ADD COLUMN raw TEXT CHECK (raw IS NULL OR status = 'invalid');

-- +goose Down
ALTER TABLE items DROP COLUMN raw;
