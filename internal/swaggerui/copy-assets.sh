#!/usr/bin/env bash
# Copies Swagger UI's browser files from the pinned swagger-ui-dist (see
# package.json) into assets/, where go:embed builds them into the module,
# so /v1/<project_id>/docs needs no CDN. Run before `go build` (xcaddy.sh
# and the Makefile do). Without it the module still builds, and /docs
# answers 503 with a message that says how to add the assets.
set -euo pipefail
cd "$(dirname "$0")"

files=(swagger-ui-bundle.js swagger-ui.css swagger-ui-standalone-preset.js
	favicon-16x16.png favicon-32x32.png LICENSE NOTICE)
want=$(node -p 'require("./package.json").dependencies["swagger-ui-dist"]' 2>/dev/null || true)
if [ -z "$want" ]; then
	echo "copy-assets.sh: node is needed to read package.json; install Node.js and npm" >&2
	exit 1
fi
have=$(node -p 'require("./node_modules/swagger-ui-dist/package.json").version' 2>/dev/null || true)
if [ "$have" != "$want" ]; then
	# --ignore-scripts: the package's postinstall is only usage reporting.
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
fi
for f in "${files[@]}"; do
	src="node_modules/swagger-ui-dist/$f"
	if ! cmp -s "$src" "assets/$f"; then
		cp "$src" "assets/$f"
	fi
done
printf '%s\n' "$want" > assets/VERSION.tmp
if ! cmp -s assets/VERSION.tmp assets/VERSION; then mv assets/VERSION.tmp assets/VERSION; else rm assets/VERSION.tmp; fi
echo "swagger-ui-dist $want copied into internal/swaggerui/assets"
