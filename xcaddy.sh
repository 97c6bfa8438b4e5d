#!/usr/bin/env bash
# Builds ./caddy: Caddy (at the version go.mod pins) with the Tablesmith
# module from this working tree, using xcaddy.
#
#   ./xcaddy.sh               Caddy with Tablesmith
#   ./xcaddy.sh --with-cache  also Caddy's cache-handler (at the version
#                             go.mod pins), which Tablesmith purges on
#                             writes (Caddyfile.cachehandler.example; every
#                             build has the module's own tablesmith_cache)
set -euo pipefail
cd "$(dirname "$0")"

extra=()
case "${1:-}" in
"") ;;
--with-cache)
	cache_version=$(go list -m -f '{{.Version}}' github.com/caddyserver/cache-handler)
	extra=(--with "github.com/caddyserver/cache-handler@$cache_version")
	# The tag adds cachehandler.go to the module's root package, which
	# imports the adapter (a package path inside a replaced module is not
	# something xcaddy can add with --with).
	export XCADDY_GO_BUILD_FLAGS="${XCADDY_GO_BUILD_FLAGS:-} -tags=tablesmith_cache"
	;;
*)
	echo "usage: $0 [--with-cache]" >&2
	exit 2
	;;
esac

caddy_version=$(go list -m -f '{{.Version}}' github.com/caddyserver/caddy/v2)
xcaddy=$(command -v xcaddy || true)
if [ -z "$xcaddy" ]; then
	# xcaddy is pinned in tools/xcaddy/go.mod (a `go install ...@version`
	# would also need the module's version list, which some proxies refuse).
	(cd tools/xcaddy && go build -o ../../.bin/xcaddy github.com/caddyserver/xcaddy/cmd/xcaddy)
	xcaddy="$PWD/.bin/xcaddy"
fi
# Swagger UI's files are embedded in the module for /v1/<project>/docs; without
# Node.js the build goes on, and /docs answers a message saying how to add them.
./internal/swaggerui/copy-assets.sh || echo "xcaddy.sh: Swagger UI files not copied (needs Node.js and npm): /docs will be unavailable" >&2
# A fixed placeholder version with a local replacement makes xcaddy (and
# go get) take the module from this tree instead of asking a module proxy.
"$xcaddy" build "$caddy_version" \
	--with "github.com/tablesmith/tablesmith@v0.0.0=$PWD" \
	${extra[@]+"${extra[@]}"} \
	--output "$PWD/caddy"
modules=$(./caddy list-modules) # captured: grep -q would cut the pipe under pipefail
grep -qx 'tablesmith' <<<"$modules" || { echo "xcaddy.sh: the built caddy lacks the tablesmith module" >&2; exit 1; }
if [ ${#extra[@]} -gt 0 ]; then
	grep -qx 'http.handlers.cache' <<<"$modules" || { echo "xcaddy.sh: the built caddy lacks cache-handler" >&2; exit 1; }
	echo "built ./caddy with Tablesmith and cache-handler $cache_version (Caddy $caddy_version)"
else
	echo "built ./caddy with Tablesmith (Caddy $caddy_version)"
fi
