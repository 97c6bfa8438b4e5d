-- pgbench ceiling for the list with count=exact: bare's page and its
-- second statement counting the active users.
SELECT coalesce(json_agg(_r), '[]') FROM (SELECT t."id", t."email", t."name", t."age", t."is_active", to_char(t."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') AS "created_at", to_char(t."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') AS "updated_at" FROM users t WHERE t."is_active" ORDER BY t."age" DESC, t.id DESC LIMIT 20) _r;
SELECT count(*) FROM users WHERE "is_active";
