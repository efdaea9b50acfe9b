-- +goose Up
-- A bulk run's limit checked in constant time (issue "Faults, round three"):
-- the trigger of 00007 counted the run's actions at every insert, so that
-- confirming N actions cost N²/2 index steps (260,870 actions held the
-- write lock for more than 15 minutes). The run now keeps how many actions
-- it holds; triggers keep that count with every insert and delete, and the
-- rule is the same: no run holds more actions than the reviewer confirmed.
ALTER TABLE bulk_runs ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0);
UPDATE bulk_runs SET held = (SELECT COUNT(*) FROM bulk_run_actions x WHERE x.run_id = bulk_runs.id);
DROP TRIGGER bulk_run_within_confirmed;
-- +goose StatementBegin
CREATE TRIGGER bulk_run_within_confirmed BEFORE INSERT ON bulk_run_actions
WHEN (SELECT held >= confirmed FROM bulk_runs WHERE id = NEW.run_id)
BEGIN SELECT RAISE(ABORT, 'a bulk run holds no more actions than the reviewer confirmed'); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER bulk_run_held_insert AFTER INSERT ON bulk_run_actions BEGIN
    UPDATE bulk_runs SET held = held + 1 WHERE id = NEW.run_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER bulk_run_held_delete AFTER DELETE ON bulk_run_actions BEGIN
    UPDATE bulk_runs SET held = held - 1 WHERE id = OLD.run_id;
END;
-- +goose StatementEnd
-- An action stays in the run it was queued in: moving it would bypass the
-- count of the run it joins.
-- +goose StatementBegin
CREATE TRIGGER bulk_run_actions_stay BEFORE UPDATE OF run_id ON bulk_run_actions
WHEN NEW.run_id IS NOT OLD.run_id
BEGIN SELECT RAISE(ABORT, 'an action stays in the bulk run it was queued in'); END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER bulk_run_actions_stay;
DROP TRIGGER bulk_run_held_delete;
DROP TRIGGER bulk_run_held_insert;
DROP TRIGGER bulk_run_within_confirmed;
-- +goose StatementBegin
CREATE TRIGGER bulk_run_within_confirmed BEFORE INSERT ON bulk_run_actions
WHEN (SELECT COUNT(*) FROM bulk_run_actions WHERE run_id = NEW.run_id) >=
     (SELECT confirmed FROM bulk_runs WHERE id = NEW.run_id)
BEGIN SELECT RAISE(ABORT, 'a bulk run holds no more actions than the reviewer confirmed'); END;
-- +goose StatementEnd
ALTER TABLE bulk_runs DROP COLUMN held;
