-- The origins a browser may call a project's generated API from
-- (docs/api.md, "CORS"): exact origins, or '{*}'. NULL is the default,
-- any origin.
ALTER TABLE tablesmith.projects ADD COLUMN cors_allowed_origins text[];
