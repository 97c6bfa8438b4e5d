-- Usage analytics of the generated APIs (internal/analytics).
--
-- Each row aggregates the requests of one project in one time bucket that
-- share table, operation, HTTP method, status and credential kind. Nodes
-- flush their in-memory buckets every few seconds and add to the row
-- (upsert); the latency sketch is a log-binned histogram {"<bin>": count}
-- that merges by adding counts (tablesmith.sketch_add). Minute rows older
-- than a day are rolled up into hour rows; hour rows are kept 90 days.
-- There is no foreign key to projects so that a flush never fails on a
-- project deleted meanwhile; the retention pass removes orphans.

CREATE FUNCTION tablesmith.sketch_add(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(jsonb_object_agg(bin, n), '{}'::jsonb)
    FROM (SELECT bin, sum(n)::bigint AS n
          FROM (SELECT key AS bin, value::bigint AS n FROM jsonb_each_text(a)
                UNION ALL
                SELECT key, value::bigint FROM jsonb_each_text(b)) AS bins
          GROUP BY bin) AS merged
$$;

CREATE AGGREGATE tablesmith.sketch_sum(jsonb) (
    SFUNC = tablesmith.sketch_add,
    STYPE = jsonb,
    INITCOND = '{}',
    COMBINEFUNC = tablesmith.sketch_add,
    PARALLEL = SAFE
);

CREATE TABLE tablesmith.analytics_minute (
    project_id     text        NOT NULL,
    bucket         timestamptz NOT NULL,
    table_name     text        NOT NULL,
    operation      text        NOT NULL,
    method         text        NOT NULL,
    status         smallint    NOT NULL,
    credential     text        NOT NULL,
    requests       bigint      NOT NULL,
    latency_sum_us bigint      NOT NULL,
    sketch         jsonb       NOT NULL,
    PRIMARY KEY (project_id, bucket, table_name, operation, method, status, credential)
);

CREATE TABLE tablesmith.analytics_hour (LIKE tablesmith.analytics_minute INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
ALTER TABLE tablesmith.analytics_hour ADD PRIMARY KEY (project_id, bucket, table_name, operation, method, status, credential);

-- Samples a node dropped because its buffer was full, per project and hour.
CREATE TABLE tablesmith.analytics_dropped (
    project_id text        NOT NULL,
    bucket     timestamptz NOT NULL,
    dropped    bigint      NOT NULL,
    PRIMARY KEY (project_id, bucket)
);

-- The retention pass selects by age across projects.
CREATE INDEX analytics_minute_bucket_idx ON tablesmith.analytics_minute (bucket);
CREATE INDEX analytics_hour_bucket_idx ON tablesmith.analytics_hour (bucket);
