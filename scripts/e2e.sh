#!/usr/bin/env bash
# Browser tests: builds Caddy with Tablesmith and the dashboard, serves them
# from Caddyfile.example on a free port against a throwaway database on the
# test PostgreSQL server, and runs the Playwright suite in e2e/ against it
# (arguments go to playwright: scripts/e2e.sh tests/cors.spec.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

server_url=${TABLESMITH_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
if ! command -v chromium >/dev/null; then
	if [ "${TABLESMITH_TEST_REQUIRE_ALL:-}" = 1 ]; then echo "e2e: chromium is required (apt-get install chromium)" >&2; exit 1; fi
	echo "e2e: chromium not installed; browser tests skipped (apt-get install chromium)" >&2
	exit 0
fi

work=$(mktemp -d)
db="ts_e2e_$(date +%s)_$$"
ext_db="${db}_ext" # the "existing database" the fronting test fills
caddy_pid=""
cleanup() {
	[ -n "$caddy_pid" ] && kill "$caddy_pid" 2>/dev/null && wait "$caddy_pid" 2>/dev/null || true
	psql "$server_url" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
	psql "$server_url" -qc "DROP DATABASE IF EXISTS $ext_db WITH (FORCE)" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# make test-e2e passes the -race Caddy the Go tests ran (TABLESMITH_TEST_CADDY);
# run alone, this builds one.
caddy_bin=${TABLESMITH_TEST_CADDY:-}
if [ -z "$caddy_bin" ]; then
	mkdir -p "$work/bin" # not $work/caddy: that is Caddy's data directory under XDG_DATA_HOME
	caddy_bin="$work/bin/caddy"
	go build -o "$caddy_bin" ./cmd/caddy
fi
make -s dashboard

psql "$server_url" -qc "CREATE DATABASE $db" >/dev/null
psql "$server_url" -qc "CREATE DATABASE $ext_db" >/dev/null
with_db() { # the server URL with another database name
	python3 - "$server_url" "$1" <<'PY' 2>/dev/null || echo "${server_url%/*}/$1?sslmode=disable"
import sys, urllib.parse as u
p = u.urlparse(sys.argv[1]); print(u.urlunparse(p._replace(path="/" + sys.argv[2])))
PY
}
db_url=$(with_db "$db")
export TABLESMITH_E2E_EXTERNAL_URL=$(with_db "$ext_db")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
export TABLESMITH_ADDR="http://127.0.0.1:$port" TABLESMITH_CADDY_ADMIN=off TABLESMITH_DATABASE_URL="$db_url" \
	TABLESMITH_DEFAULT_PLAN=unlimited TABLESMITH_DASHBOARD_DIR="$PWD/dashboard/dist" XDG_CONFIG_HOME="$work" XDG_DATA_HOME="$work" \
	TABLESMITH_WEBHOOK_ALLOW_PRIVATE=on # the webhooks journey delivers to a receiver on 127.0.0.1
"$caddy_bin" run --config Caddyfile.example --adapter caddyfile >"$work/caddy.log" 2>&1 &
caddy_pid=$!
for _ in $(seq 60); do curl -sf "$TABLESMITH_ADDR/api/engines" >/dev/null && break; sleep 0.5; done
curl -sf "$TABLESMITH_ADDR/api/engines" >/dev/null || { echo "e2e: Caddy did not start:" >&2; cat "$work/caddy.log" >&2; exit 1; }

# The specs that need a rate-limited plan move their account with
# `caddy tablesmith set-plan` (TABLESMITH_DATABASE_URL is exported above).
# Without SMTP the server writes each e-mail to this log (msg "mail"): the
# account-reset journey reads its link there.
TABLESMITH_E2E_CADDY_LOG="$work/caddy.log" \
TABLESMITH_E2E_CADDY="$caddy_bin" TABLESMITH_E2E_URL="$TABLESMITH_ADDR" ./e2e/run.sh "$@" || { echo "e2e: Caddy log:" >&2; tail -50 "$work/caddy.log" >&2; exit 1; }
