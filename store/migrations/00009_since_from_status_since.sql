-- +goose Up
-- Repair: when an item entered its status (items.since), recomputed from
-- the service's status_since. The first form of 00007, released before it
-- was edited, recorded the cache's updated_at in place of the service's
-- status_since (on the first sync of an item, and for every item already
-- cached), and 00008 carried those values into items.since, where the
-- sync's upsert keeps them for as long as the status and status_since stay
-- the same: ages hours off, and `next` taking the wrong item first. The
-- rule (00008, store/items.go) makes since equal status_since whenever the
-- service reports one; an item without status_since keeps what the cache
-- saw, which both forms recorded alike.
UPDATE items SET since = status_since WHERE status_since IS NOT NULL AND since IS NOT status_since;

-- +goose Down
-- Nothing to undo: the values it replaced were wrong.
