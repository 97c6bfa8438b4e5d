#!/usr/bin/env bash
# make run: serves Tablesmith from Caddyfile.example on the database that
# devdb.sh names. When that is the private cluster under .data/pg, Ctrl-C
# stops it too, so nothing is left running (TABLESMITH_KEEP_DB=1 keeps it
# running for the next make run; make stop-db stops it later).
set -euo pipefail
cd "$(dirname "$0")/.."

private=""
[ -z "${TABLESMITH_DATABASE_URL:-}" ] && private=1
url=$(./scripts/devdb.sh)
stop_db() {
	if [ -n "$private" ] && [ -z "${TABLESMITH_KEEP_DB:-}" ]; then
		./scripts/devdb.sh stop || true
	fi
}
trap stop_db EXIT
trap 'exit 130' INT TERM
echo "Tablesmith on ${TABLESMITH_ADDR:-http://localhost:8080} (PostgreSQL: $url); Ctrl-C stops it${private:+ and the private PostgreSQL}"
TABLESMITH_DATABASE_URL="$url" ./caddy run --config Caddyfile.example --adapter caddyfile
