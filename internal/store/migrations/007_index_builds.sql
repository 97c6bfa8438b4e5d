-- Index builds that run after a generate committed (CREATE INDEX
-- CONCURRENTLY cannot run inside the migration's transaction): one row
-- per published version and index it still had to build. A worker on
-- any node claims a project's unfinished builds under an advisory lock,
-- so a node that dies mid-build leaves them to the next one.
CREATE TABLE tablesmith.index_builds (
    project_id  text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    version     integer NOT NULL,
    name        text NOT NULL,
    table_name  text NOT NULL,
    column_name text NOT NULL,
    create_sql  text NOT NULL,
    drop_sql    text NOT NULL,
    state       text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'building', 'ready', 'failed', 'superseded')),
    attempts    integer NOT NULL DEFAULT 0,
    error       text NOT NULL DEFAULT '',
    next_try_at timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, version, name)
);
CREATE INDEX index_builds_unfinished_idx ON tablesmith.index_builds (next_try_at)
    WHERE state IN ('pending', 'building');
