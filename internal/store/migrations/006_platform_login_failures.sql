-- Failed platform-API logins per subject ('email:<address>' or
-- 'addr:<client address>'), counted like end-user logins
-- (end_user_login_failures) but for no project.
CREATE TABLE tablesmith.platform_login_failures (
    project_id   text NOT NULL DEFAULT '' CHECK (project_id = ''),
    subject      text NOT NULL,
    window_start timestamptz NOT NULL,
    failures     integer NOT NULL,
    PRIMARY KEY (project_id, subject)
);
CREATE INDEX platform_login_failures_window_idx ON tablesmith.platform_login_failures (window_start);
