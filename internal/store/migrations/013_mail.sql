-- E-mail (internal/mail, docs/email.md). Every message is rendered when it
-- is queued and kept here until delivered: a restart loses none, and the
-- dashboard's Outbox shows exactly what was sent. Delivery claims due rows
-- with FOR UPDATE SKIP LOCKED, so any number of nodes share the work and
-- none sends a message twice at once. project_id is null for the
-- platform's own mail (account resets and verifications).
CREATE TABLE tablesmith.mail_outbox (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id      text        REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    account_id      bigint,
    kind            text        NOT NULL,
    to_address      text        NOT NULL,
    subject         text        NOT NULL,
    text_body       text        NOT NULL,
    html_body       text        NOT NULL,
    -- queued, sent (by SMTP), logged (no SMTP configured), failed (gave up)
    status          text        NOT NULL DEFAULT 'queued',
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    sent_at         timestamptz,
    -- The services that may deliver the message: those configured with
    -- the same mail_scope ('' in every deployment; each test server has
    -- its own, as tests share one database but not one mail server).
    scope           text        NOT NULL DEFAULT ''
);
CREATE INDEX mail_outbox_due ON tablesmith.mail_outbox (scope, next_attempt_at) WHERE status = 'queued';
CREATE INDEX mail_outbox_project ON tablesmith.mail_outbox (project_id, id DESC);
CREATE INDEX mail_outbox_created ON tablesmith.mail_outbox (created_at);

-- A project's own wording of its end users' messages; a kind without a row
-- uses the default template.
CREATE TABLE tablesmith.mail_templates (
    project_id text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    kind       text        NOT NULL,
    subject    text        NOT NULL,
    text_body  text        NOT NULL,
    html_body  text        NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, kind)
);
