#!/usr/bin/env bash
# Starts node N (1-3, on port 808N) of the scripts/cluster.sh cluster from
# ./caddy, in the background, its pid in .data/cluster/nodeN.pid and its log
# appended to .data/cluster/nodeN.log. cluster.sh starts the three nodes
# with it, and cluster-upgrade.sh each replacement.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: scripts/cluster-node.sh N}
base=$PWD/.data/cluster
[ -f "$base/env" ] || { echo "cluster-node: no $base/env; start scripts/cluster.sh first" >&2; exit 1; }
set -a
. "$base/env"
set +a
mkdir -p "$base/node$n"
TABLESMITH_ADDR="http://localhost:808$n" TABLESMITH_CADDY_ADMIN=off \
	TABLESMITH_DASHBOARD_DIR="$PWD/dashboard/dist" \
	XDG_DATA_HOME="$base/node$n" XDG_CONFIG_HOME="$base/node$n" \
	nohup ./caddy run --config "$base/Caddyfile.node" --adapter caddyfile >>"$base/node$n.log" 2>&1 </dev/null &
echo $! >"$base/node$n.pid"
