-- The timestamp format quotes its colons (HH24":"MI) because pgbench takes
-- :MI for a variable, even inside a string; the output is the same.
-- pgbench ceiling for GET one by id: bare's statement (the module's text),
-- with the project's schema on search_path (PGOPTIONS) and -D users=<n>.
\set id random(1, :users)
SELECT row_to_json(_r) FROM (SELECT t."id", t."email", t."name", t."age", t."is_active", to_char(t."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') AS "created_at", to_char(t."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') AS "updated_at" FROM users t WHERE t."id" = :id) _r;
