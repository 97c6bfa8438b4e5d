-- Dashboard account security (docs/accounts.md): e-mail verification,
-- password reset, sessions ended on a password change, and TOTP two-factor.
--
-- session_gen is carried in every session token (auth.Sessions); a reset
-- or a password change bumps it, which ends every session issued before.
-- totp_secret and totp_pending are AES-GCM sealed under a key derived from
-- the server's secret, so a copy of this table opens no second factor.
-- totp_last_step is the last time step whose code was accepted: a code is
-- good once.
ALTER TABLE tablesmith.accounts
    ADD COLUMN email_verified_at timestamptz,
    ADD COLUMN session_gen       bigint NOT NULL DEFAULT 0,
    ADD COLUMN totp_secret       bytea,
    ADD COLUMN totp_pending      bytea,
    ADD COLUMN totp_last_step    bigint NOT NULL DEFAULT 0;

-- Single-use links mailed to an account: only the SHA-256 of the token is
-- kept. email is the address the link went to; it must still be the
-- account's when the link is used.
CREATE TABLE tablesmith.account_tokens (
    token_hash  bytea       PRIMARY KEY,
    account_id  bigint      NOT NULL REFERENCES tablesmith.accounts (id) ON DELETE CASCADE,
    purpose     text        NOT NULL CHECK (purpose IN ('reset', 'verify')),
    email       text        NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_tokens_account_idx ON tablesmith.account_tokens (account_id, purpose);
CREATE INDEX account_tokens_expiry_idx ON tablesmith.account_tokens (expires_at);

-- Two-factor recovery codes, as SHA-256 hashes; using one deletes it.
CREATE TABLE tablesmith.account_recovery_codes (
    account_id  bigint NOT NULL REFERENCES tablesmith.accounts (id) ON DELETE CASCADE,
    code_hash   bytea  NOT NULL,
    PRIMARY KEY (account_id, code_hash)
);

-- Mail sent per subject (the SHA-256 of "reset:<address>" or
-- "verify:<address>", so addresses nobody registered are not kept in
-- clear): a fixed window that starts with its first message, and the
-- time of the last one.
CREATE TABLE tablesmith.account_mail_sends (
    subject      bytea       PRIMARY KEY,
    window_start timestamptz NOT NULL,
    sent         integer     NOT NULL,
    last_sent    timestamptz NOT NULL
);
CREATE INDEX account_mail_sends_window_idx ON tablesmith.account_mail_sends (window_start);
