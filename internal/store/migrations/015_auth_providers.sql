-- Sign-in providers of end users (internal/authproviders,
-- docs/end-user-auth.md "Sign in with providers"): the OAuth/OIDC providers
-- a project configures, the sign-ins under way, the one-time codes that
-- hand a finished sign-in to the app, and which provider identity is which
-- user.

-- One provider of a project, by the name in its URLs. client_secret is
-- sealed (AES-GCM under a key derived from the server's secret and the
-- project), because it must be usable again, unlike a password.
CREATE TABLE tablesmith.auth_providers (
    project_id    text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    name          text        NOT NULL,
    kind          text        NOT NULL,
    issuer        text        NOT NULL,
    tenant        text        NOT NULL DEFAULT '',
    client_id     text        NOT NULL,
    client_secret bytea       NOT NULL,
    scopes        text[]      NOT NULL,
    enabled       boolean     NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (project_id, name)
);

-- A sign-in under way: what the callback needs, under the SHA-256 of the
-- state the provider carries back. Used once, within 10 minutes.
CREATE TABLE tablesmith.auth_provider_states (
    hash        bytea       PRIMARY KEY,
    project_id  text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    provider    text        NOT NULL,
    nonce       text        NOT NULL,
    verifier    text        NOT NULL,
    redirect_to text        NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX auth_provider_states_expires_idx ON tablesmith.auth_provider_states (expires_at);

-- A finished sign-in waiting for the app to exchange its one-time code
-- (SHA-256 kept) for a session. Used once, within 60 seconds.
CREATE TABLE tablesmith.auth_provider_codes (
    hash       bytea       PRIMARY KEY,
    project_id text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    user_id    text        NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX auth_provider_codes_expires_idx ON tablesmith.auth_provider_codes (expires_at);

-- Which user an identity at a provider (its issuer's subject) signs in as,
-- so that a returning identity finds its user even after either side
-- changed the e-mail. email is the provider's at the last sign-in.
CREATE TABLE tablesmith.auth_identities (
    project_id   text        NOT NULL REFERENCES tablesmith.projects (id) ON DELETE CASCADE,
    provider     text        NOT NULL,
    subject      text        NOT NULL,
    user_id      text        NOT NULL,
    email        text        NOT NULL,
    created_at   timestamptz NOT NULL,
    last_sign_in timestamptz NOT NULL,
    PRIMARY KEY (project_id, provider, subject)
);
CREATE INDEX auth_identities_user_idx ON tablesmith.auth_identities (project_id, user_id);
