-- +goose Up
-- The view "awaiting my confirmation" (ItemFilter.AwaitingConfirmation):
-- the items whose current decision awaits a second reviewer, oldest in
-- their status first. They are few among a million; this partial index
-- holds only them, so that the view reads them and nothing else.
CREATE INDEX items_awaiting_confirmation ON items(since, id) WHERE decision_state = 'awaiting_confirmation';

-- +goose Down
DROP INDEX items_awaiting_confirmation;
