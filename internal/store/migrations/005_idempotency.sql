-- Idempotent writes of the generated API (Idempotency-Key): the first
-- answer to each key, replayed to a retry of the same request for 24
-- hours. The row is written in the same transaction as the write, on the
-- data pool, which reaches this schema because managed projects live in
-- the control database. No foreign key to projects: its check would make
-- a keyed write wait for a generate that holds the project row; rows of a
-- deleted project are unreachable and go with the periodic sweep.
CREATE TABLE tablesmith.idempotency_keys (
    project_id   text        NOT NULL,
    -- who sent it: key:<API key prefix>, user:<end-user id> or none
    scope        text        NOT NULL,
    key          text        NOT NULL,
    -- SHA-256 of method, path and the body's canonical JSON
    fingerprint  bytea       NOT NULL,
    -- the answer; NULL only while the first request runs
    status       smallint,
    body         bytea,
    location     text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, scope, key)
);
CREATE INDEX idempotency_keys_created_idx ON tablesmith.idempotency_keys (created_at);
