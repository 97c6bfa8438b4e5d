#!/usr/bin/env bash
# make bench: the benchmarks in bench/, on the test PostgreSQL
# (TABLESMITH_TEST_DATABASE_URL, default the local server). They seed their
# own throwaway database, so they are built only with -tags bench and never
# run under go test ./... . BENCH selects benchmarks (default all),
# BENCHTIME their length, e.g.  BENCH='List/http' BENCHTIME=200x make bench
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test -tags bench -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-2s}" -timeout 30m ./bench/
