#!/usr/bin/env bash
# Fails with a clear message when Node.js is missing or older than the
# dashboard's build needs: Vite wants ^20.19 or >=22.12 (dashboard/package.json
# "engines"). swagger-client declares Node >=22, but it runs in the browser
# bundle only, so npm's EBADENGINE warning about it on Node 20 is harmless.
set -euo pipefail

version=$(node -p 'process.versions.node' 2>/dev/null || true)
if [ -z "$version" ]; then
	echo "Tablesmith's dashboard needs Node.js 20.19 or newer (22 LTS recommended); node was not found on PATH." >&2
	echo "Install it from https://nodejs.org/en/download (or your system's packages), then run make run again." >&2
	exit 1
fi
IFS=. read -r major minor _ <<<"$version"
if [ "$major" -lt 20 ] || { [ "$major" = 20 ] && [ "$minor" -lt 19 ]; } || [ "$major" = 21 ] || { [ "$major" = 22 ] && [ "$minor" -lt 12 ]; }; then
	echo "Tablesmith's dashboard needs Node.js 20.19+ or 22.12+ (Vite's requirement); this is Node.js $version." >&2
	echo "Upgrade Node.js (22 LTS recommended: https://nodejs.org/en/download), then run make run again." >&2
	exit 1
fi
