-- Webhooks (internal/webhooks, docs/webhooks.md): each delivers the
-- committed changes of some of a project's tables, from the project's change
-- log, to one URL, in order, at least once.
--
-- No signing secret is stored: a webhook's secret is derived from the
-- server's secret, the webhook's id and its secret generation
-- (webhooks.Secret), so a copy of this table signs nothing. Rotating bumps
-- the generation; the previous one still signs until previous_until.
--
-- cursor is the sequence number of the last change of the project's log
-- the webhook is done with (delivered, or not for it); the retention
-- cleanup keeps every change after the lowest cursor of a project's enabled
-- webhooks. One node delivers a webhook at a time: the one whose lease
-- (leased_by, lease_until) is current.
CREATE TABLE tablesmith.webhooks (
    id               text        PRIMARY KEY,
    project_id       text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    url              text        NOT NULL,
    tables           text[]      NOT NULL,
    events           text[]      NOT NULL,
    conditions       jsonb       NOT NULL DEFAULT '{}',
    enabled          boolean     NOT NULL DEFAULT true,
    disabled_reason  text        NOT NULL DEFAULT '',
    secret_gen       integer     NOT NULL DEFAULT 1,
    previous_until   timestamptz,
    cursor           bigint      NOT NULL,
    attempts         integer     NOT NULL DEFAULT 0,
    failing_since    timestamptz,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    leased_by        text,
    lease_until      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_project ON tablesmith.webhooks (project_id);

-- Every delivery attempt, newest first per webhook; kept 7 days.
CREATE TABLE tablesmith.webhook_deliveries (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id    text        NOT NULL REFERENCES tablesmith.webhooks (id) ON DELETE CASCADE,
    project_id    text        NOT NULL,
    change_id     bigint      NOT NULL,
    table_name    text        NOT NULL,
    event         text        NOT NULL,
    attempt       integer     NOT NULL,
    status        integer     NOT NULL,
    latency_ms    integer     NOT NULL,
    error         text        NOT NULL,
    response      text        NOT NULL,
    next_retry_at timestamptz,
    at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_webhook ON tablesmith.webhook_deliveries (webhook_id, id DESC);
CREATE INDEX webhook_deliveries_project_at ON tablesmith.webhook_deliveries (project_id, at);
