-- Project members, invitations and the audit log (docs/teams.md).
--
-- A project's owner stays projects.account_id (every plan limit and query
-- keys by it); project_members holds everyone else, with a role below
-- owner. Transferring ownership swaps the two in one transaction.
CREATE TABLE tablesmith.project_members (
    project_id  text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    account_id  bigint      NOT NULL REFERENCES tablesmith.accounts (id) ON DELETE CASCADE,
    role        text        NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
    added_at    timestamptz NOT NULL DEFAULT now(),
    invited_by  bigint      REFERENCES tablesmith.accounts (id) ON DELETE SET NULL,
    PRIMARY KEY (project_id, account_id)
);
CREATE INDEX project_members_account ON tablesmith.project_members (account_id);

-- An invitation is a link mailed to one address; only the SHA-256 of its
-- token is kept. accepted_at marks it used (single use).
CREATE TABLE tablesmith.project_invitations (
    id          text        PRIMARY KEY,
    project_id  text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    email       text        NOT NULL,
    role        text        NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
    token_hash  bytea       NOT NULL UNIQUE,
    invited_by  bigint      REFERENCES tablesmith.accounts (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz
);
CREATE INDEX project_invitations_project ON tablesmith.project_invitations (project_id);

-- The audit log: who changed what in a project. The actor's e-mail is
-- copied so that an entry still names a deleted account; details never
-- hold a secret.
CREATE TABLE tablesmith.audit_log (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id   text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    at           timestamptz NOT NULL DEFAULT now(),
    actor_id     bigint,
    actor_email  text        NOT NULL,
    action       text        NOT NULL,
    target       text        NOT NULL DEFAULT '',
    details      jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_project ON tablesmith.audit_log (project_id, id DESC);
