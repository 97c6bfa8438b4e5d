-- End-user auth of the generated APIs (CONTRACT 5.2): sign-in sessions,
-- their rotating refresh tokens, and failed-login counters for throttling.
-- The users themselves live in each project's auth table.

-- A session is one sign-in: every refresh token it rotates through belongs
-- to it (the "family"), and every access token names it (claim sid).
-- Revoking it ends them all.
CREATE TABLE tablesmith.end_user_sessions (
    id             text PRIMARY KEY,
    project_id     text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    -- the auth table's id of the user, as text (integer or uuid)
    user_id        text NOT NULL,
    created_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    -- logout, reuse (an already rotated refresh token came back) or
    -- user_gone (the user row was deleted)
    revoked_reason text
);
CREATE INDEX end_user_sessions_user_idx ON tablesmith.end_user_sessions (project_id, user_id);

-- Refresh tokens are long random strings, so, like API keys, only their
-- SHA-256 is kept. A rotated token keeps its row (used_at set) until it
-- expires, so that presenting it again is recognised as reuse.
CREATE TABLE tablesmith.end_user_refresh_tokens (
    hash       bytea PRIMARY KEY,
    session_id text NOT NULL REFERENCES tablesmith.end_user_sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX end_user_refresh_tokens_session_idx ON tablesmith.end_user_refresh_tokens (session_id);
CREATE INDEX end_user_refresh_tokens_expires_idx ON tablesmith.end_user_refresh_tokens (expires_at);

-- Failed logins per subject ('email:<address>' or 'addr:<client address>')
-- in a fixed window that starts with the first failure.
CREATE TABLE tablesmith.end_user_login_failures (
    project_id   text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    subject      text NOT NULL,
    window_start timestamptz NOT NULL,
    failures     integer NOT NULL,
    PRIMARY KEY (project_id, subject)
);
CREATE INDEX end_user_login_failures_window_idx ON tablesmith.end_user_login_failures (window_start);
