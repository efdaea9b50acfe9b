-- +goose Up
-- Bulk clear (issue 29, item 8): a bulk run may hold decisions (each a
-- clear). The kind CHECK on bulk_runs is widened in place, as 00017 widened
-- the one on actions (writable_schema: every row meets the new CHECK, and a
-- rebuild would cascade through bulk_run_actions). An index made and
-- dropped moves the schema's version, so that every connection reads the
-- new CHECK. TestSchemaKnowsEveryKindOfAction holds the CHECK to policy's
-- bulk kinds (a descriptor with a BulkSkip).
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, 'CHECK (kind IN (''resubmit'',''file_request''))',
                       'CHECK (kind IN (''resubmit'',''file_request'',''decision''))')
WHERE type = 'table' AND name = 'bulk_runs';
PRAGMA writable_schema = RESET;
CREATE INDEX bulk_runs_schema_moved ON bulk_runs(kind);
DROP INDEX bulk_runs_schema_moved;

-- +goose Down
DELETE FROM bulk_run_actions WHERE run_id IN (SELECT id FROM bulk_runs WHERE kind = 'decision');
DELETE FROM bulk_runs WHERE kind = 'decision';
PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, 'CHECK (kind IN (''resubmit'',''file_request'',''decision''))',
                       'CHECK (kind IN (''resubmit'',''file_request''))')
WHERE type = 'table' AND name = 'bulk_runs';
PRAGMA writable_schema = RESET;
CREATE INDEX bulk_runs_schema_moved ON bulk_runs(kind);
DROP INDEX bulk_runs_schema_moved;
