-- Control schema: accounts, projects, published schema versions, API keys.
CREATE TABLE tablesmith.settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE tablesmith.accounts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text NOT NULL UNIQUE,
    name          text NOT NULL DEFAULT '',
    password_hash text NOT NULL,
    plan          text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tablesmith.projects (
    id                text PRIMARY KEY,
    account_id        bigint NOT NULL REFERENCES tablesmith.accounts (id) ON DELETE CASCADE,
    name              text NOT NULL,
    engine            text NOT NULL,
    connection        jsonb,
    draft             jsonb NOT NULL DEFAULT '{"tables": []}',
    draft_updated_at  timestamptz NOT NULL DEFAULT now(),
    published_version integer NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_account_idx ON tablesmith.projects (account_id);

CREATE TABLE tablesmith.schema_versions (
    project_id  text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    version     integer NOT NULL,
    document    jsonb NOT NULL,
    applied     jsonb NOT NULL DEFAULT '[]',
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, version)
);

CREATE TABLE tablesmith.api_keys (
    id           text PRIMARY KEY,
    project_id   text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    name         text NOT NULL,
    scope        text NOT NULL CHECK (scope IN ('read', 'read_write')),
    prefix       text NOT NULL UNIQUE,
    hash         bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_project_idx ON tablesmith.api_keys (project_id);
