-- An index build may replace an older index (the plain index on a column
-- alone, replaced by one on (column, id)): retire_sql drops the old one
-- once the new one is built, in the same build, so a crash between the
-- two leaves the build to run again (its CREATE is IF NOT EXISTS).
ALTER TABLE tablesmith.index_builds ADD COLUMN retire_sql text NOT NULL DEFAULT '';
