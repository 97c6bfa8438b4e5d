-- pgbench ceiling for create: bare's INSERT ... RETURNING (the module's
-- text for a post with title, views and author_id), -D users=<n>.
\set author random(1, :users)
\set views random(0, 999)
WITH _w AS (INSERT INTO posts ("title", "views", "author_id") VALUES ('pgbench post', :views, :author) RETURNING *) SELECT row_to_json(_r) FROM (SELECT t."id", t."title", t."views", t."published", t."author_id", to_char(t."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') AS "created_at", to_char(t."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"') AS "updated_at" FROM _w t) _r;
