-- E-mail flows of end users (docs/end-user-auth.md): single-use tokens for
-- password reset, address verification and e-mail change, the addresses
-- verified, and the per-address throttle of the mail these flows send.

-- A token is 256 random bits; like refresh tokens only its SHA-256 is kept.
-- email is the address the link was sent to (the account's address then);
-- new_email is the address an e-mail change moves to. user_id is NULL for
-- the stand-in row a reset of an unknown address writes (so that both
-- answers cost the same); such a row never confirms anything.
CREATE TABLE tablesmith.end_user_tokens (
    hash       bytea PRIMARY KEY,
    purpose    text NOT NULL CHECK (purpose IN ('password_reset', 'verify_email', 'email_change')),
    project_id text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    user_id    text,
    email      text NOT NULL,
    new_email  text,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX end_user_tokens_expires_idx ON tablesmith.end_user_tokens (expires_at);

-- An address a user proved they read, keyed by the address itself: after
-- an e-mail change (through /auth or any write of the auth table) the new
-- address has no row, so it is unverified until proved.
CREATE TABLE tablesmith.end_user_verified_emails (
    project_id  text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    user_id     text NOT NULL,
    email       text NOT NULL,
    verified_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, user_id, email)
);

-- Mail sent per address and purpose: at most one a minute and a few an
-- hour, so the public routes cannot be used to flood someone's inbox.
-- window_start begins an hour in which sent counts the messages.
CREATE TABLE tablesmith.end_user_mail_throttle (
    project_id   text NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    purpose      text NOT NULL,
    address      text NOT NULL,
    window_start timestamptz NOT NULL,
    sent         integer NOT NULL,
    last_sent_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, purpose, address)
);
CREATE INDEX end_user_mail_throttle_window_idx ON tablesmith.end_user_mail_throttle (window_start);
