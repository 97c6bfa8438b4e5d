-- Projects across PostgreSQL servers (docs/deployment.md, "Data servers").
-- A managed project's tables live on the data server named here; NULL is
-- database_url itself, where every project lived before data servers.
ALTER TABLE tablesmith.projects ADD COLUMN data_server text;
-- Set while move-project copies the project to another data server: the
-- nodes then refuse its writes (503, Retry-After) and keep serving reads.
ALTER TABLE tablesmith.projects ADD COLUMN moving_to text;

-- Written on a data server, in the transaction that migrates a project's
-- schema there: the version that schema now has. The control schema
-- records the same version in a transaction of its own, committed right
-- after; if it never commits, this row lets the next reader roll the
-- control schema forward (store.Reconcile). Unused on database_url.
CREATE TABLE tablesmith.data_versions (
    project_id text PRIMARY KEY,
    version    integer NOT NULL,
    document   jsonb NOT NULL,
    applied    jsonb NOT NULL,
    indexes    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Project schemas left on a data server to drop: a deleted project's (the
-- drop runs after the control schema forgets the project, and is retried
-- until it succeeds), and the old copy a move leaves until confirmed.
CREATE TABLE tablesmith.schema_drops (
    project_id  text NOT NULL,
    data_server text NOT NULL,
    reason      text NOT NULL CHECK (reason IN ('deleted', 'moved')),
    confirmed   boolean NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, data_server)
);
