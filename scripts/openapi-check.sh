#!/usr/bin/env bash
# Lints an OpenAPI document with Redocly CLI (pinned in openapi/check/):
#   scripts/openapi-check.sh path/to/openapi.json
# It starts nothing: give it a document written by a test or fetched from
# a running server (curl -o doc.json http://localhost:8080/v1/<id>/openapi.json).
set -euo pipefail
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
	echo "usage: $0 <openapi.json|openapi.yaml>" >&2
	exit 2
fi
doc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
check="$(cd "$(dirname "$0")/.." && pwd)/openapi/check"
if [ ! -x "$check/node_modules/.bin/redocly" ]; then
	(cd "$check" && npm ci --no-audit --no-fund --ignore-scripts >&2)
fi
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
exec "$check/node_modules/.bin/redocly" lint --config "$check/redocly.yaml" --format stylish --max-problems 50 "$doc"
