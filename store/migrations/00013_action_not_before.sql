-- +goose Up
-- A first send that the service rate limited (429) ran nothing, by the
-- contract's word: the action goes back to the queue with the answer's
-- Retry-After as the time before which no sender may take it
-- (policy.EventRateLimited). NULL: it may go out now.
ALTER TABLE actions ADD COLUMN not_before INTEGER;

-- +goose Down
ALTER TABLE actions DROP COLUMN not_before;
