#!/usr/bin/env bash
# Runs the browser tests against a Tablesmith that is already running at
# TABLESMITH_E2E_URL (default http://localhost:8080), in Debian's Chromium.
# Screenshots land in e2e/artifacts/. Extra arguments go to `playwright test`.
# tests/external-database.spec.ts also needs TABLESMITH_E2E_EXTERNAL_URL, a
# postgres:// URL of a database it may fill (fixtures/shop.sql, loaded with
# psql), other than the server's own; without it that test is skipped.
set -euo pipefail
cd "$(dirname "$0")"

export TABLESMITH_E2E_URL="${TABLESMITH_E2E_URL:-http://localhost:8080}"
chromium="${TABLESMITH_E2E_CHROMIUM:-/usr/bin/chromium}"

if [ ! -x "$chromium" ]; then
	echo "e2e: no Chromium at $chromium; install Debian's: apt-get update && apt-get install -y chromium" >&2
	exit 1
fi
if ! node -e "fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$TABLESMITH_E2E_URL/api/engines"; then
	echo "e2e: no Tablesmith answers at $TABLESMITH_E2E_URL (start one, e.g. make run, or set TABLESMITH_E2E_URL)" >&2
	exit 1
fi
if [ ! -d node_modules/@playwright/test ] || [ package-lock.json -nt node_modules ]; then
	npm ci --no-audit --no-fund
fi

mkdir -p artifacts
exec npx playwright test "$@"
