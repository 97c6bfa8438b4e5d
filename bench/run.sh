#!/usr/bin/env bash
# make bench: the load benchmark of the module through Caddy beside the bare
# reference server (bench/load drives it; see bench/RESULTS.md). It builds
# Caddy with the module, the bare server, the in-process handler and the
# driver, then runs the driver once; the driver creates a throwaway
# database on the test PostgreSQL (TABLESMITH_TEST_DATABASE_URL, default the
# local server), stops everything it started and drops the database.
# The report goes to stdout and bench/results/latest.txt, the profiles to
# bench/results/ (-results elsewhere). Arguments go to the driver, e.g.
#   ./bench/run.sh -only headline             # issue 18's table alone (wrk, pgbench)
#   ./bench/run.sh -quick                     # small tables, short runs
#   ./bench/run.sh -only compare,include      # some phases only
#   ./bench/run.sh -pool 0 -rounds 1          # the module's default pool (20), one round
#   ./bench/run.sh -only headline -prest /path/to/prestd   # pREST too (bench/RESULTS.md: how to build it)
# The headline loads with wrk when it is on PATH (scripts in bench/wrk/)
# and runs pgbench (scripts in bench/pgbench/) for the ceiling.
# The Go micro-benchmarks of bench/list_test.go run with
#   go test -tags bench -run '^$' -bench . ./bench/
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d "${TMPDIR:-/tmp}/tablesmith-bench-bin.XXXXXX")
trap 'rm -rf "$bin"' EXIT
echo "building Caddy with the module, bare, inproc and the driver..." >&2
# -tags bench: the metering phase runs a second Caddy without metering.
go build -tags bench -o "$bin/caddy" ./cmd/caddy
go build -o "$bin/bare" ./bench/bare
go build -o "$bin/inproc" ./bench/inproc
go build -o "$bin/load" ./bench/load
"$bin/load" -caddy "$bin/caddy" -bare "$bin/bare" -inproc "$bin/inproc" "$@"
