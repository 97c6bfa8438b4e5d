-- Fronted databases (the postgres_external engine): the last
-- introspection's report of each such project (tables left out of the API
-- and why, columns kept read-only), shown with the project and refreshed
-- by "Refresh from database". The connection itself (the URL sealed with
-- a key derived from the master secret, a masked copy for display, the
-- schema) lives in projects.connection.
ALTER TABLE tablesmith.projects
    ADD COLUMN introspection    jsonb,
    ADD COLUMN introspected_at  timestamptz;
