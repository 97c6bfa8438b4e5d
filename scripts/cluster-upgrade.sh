#!/usr/bin/env bash
# A rolling upgrade of the running scripts/cluster.sh cluster: builds ./caddy
# from this working tree, then replaces each node in turn (SIGTERM, wait for
# it to exit, start the new binary, wait until it is ready and back in the
# balancer) while the balancer keeps serving on http://localhost:8080
# (docs/deployment.md, "Stopping a node" and "Rolling upgrade").
set -euo pipefail
cd "$(dirname "$0")/.."
base=$PWD/.data/cluster
for n in 1 2 3; do
	pid=$(cat "$base/node$n.pid" 2>/dev/null || true)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || { echo "cluster-upgrade: node $n is not running; start scripts/cluster.sh first" >&2; exit 1; }
done
# The running nodes keep the binary they started from: the build replaces
# the file, not what is loaded.
make -s caddy
for n in 1 2 3; do
	pid=$(cat "$base/node$n.pid")
	echo "cluster-upgrade: stopping node $n (pid $pid)" >&2
	kill -TERM "$pid"
	# shutdown_delay (5 s) and the requests in flight (grace_period 30 s).
	for _ in $(seq 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then echo "cluster-upgrade: node $n did not stop within 40 s" >&2; exit 1; fi
	scripts/cluster-node.sh "$n"
	for _ in $(seq 600); do curl -sf "http://localhost:808$n/api/ready" >/dev/null && break; sleep 0.1; done
	curl -sf "http://localhost:808$n/api/ready" >/dev/null || { echo "cluster-upgrade: node $n not ready within 60 s; see $base/node$n.log" >&2; exit 1; }
	# The balancer leaves a node that failed a request out for its
	# fail_duration (10 s): wait that out, so two nodes are always in.
	echo "cluster-upgrade: node $n runs the new binary (pid $(cat "$base/node$n.pid")); waiting out the balancer's fail_duration" >&2
	sleep 11
done
echo "cluster-upgrade: every node runs the new binary" >&2
