-- The request log of the generated APIs (internal/requestlog): one row per
-- request, written by each node in batches off the request path, kept for
-- the plan's log retention and at most requestlog.MaxRowsPerProject rows
-- per project. No foreign key to projects, as for analytics: a batch never
-- fails on a project deleted meanwhile; the retention pass removes orphans.
-- Rows hold no credential (only an API key's public prefix) and no request
-- body; an error's answer is kept, capped.
--
-- UNLOGGED, one index, ids cached: the log is diagnostics, not data. Its
-- writes cost PostgreSQL a fifth of a GET when the table was logged with a
-- primary key besides the index (bench/RESULTS.md, "Request log"); a crash
-- of PostgreSQL (not a restart) empties it, and replicas do not have it
-- (the Logs API reads the primary).
CREATE UNLOGGED TABLE tablesmith.request_log (
    project_id    text        NOT NULL,
    id            bigint      GENERATED ALWAYS AS IDENTITY (CACHE 1000),
    at            timestamptz NOT NULL,
    method        text        NOT NULL,
    path          text        NOT NULL,
    query         text        NOT NULL,
    status        smallint    NOT NULL,
    error_code    text        NOT NULL,
    error_message text        NOT NULL,
    error_body    text        NOT NULL,
    latency_us    bigint      NOT NULL,
    credential    text        NOT NULL,
    key_prefix    text        NOT NULL,
    end_user      text        NOT NULL,
    origin        text        NOT NULL,
    request_id    text        NOT NULL,
    rows_affected bigint,
    bytes         bigint      NOT NULL
);
-- Newest first, the cursor's order: (at, id) descending.
CREATE INDEX request_log_newest_idx ON tablesmith.request_log (project_id, at DESC, id DESC);
