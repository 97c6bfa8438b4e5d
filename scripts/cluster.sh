#!/usr/bin/env bash
# The whole topology on one machine, to try it: a PostgreSQL primary and a
# streaming replica (private, under .data/cluster/), a second PostgreSQL
# server, Redis, three Caddy nodes with Tablesmith (ports 8081-8083, each
# with two data servers: "one", the primary's database with the replica
# for reads, and "two", the second server)
# and a Caddy load balancer on http://localhost:8080 that health-checks the
# nodes on /api/ready. Ctrl-C stops everything it started; the data stays
# in .data/cluster/ for the next run (rm -rf .data/cluster to start over).
# docs/deployment.md describes the same on real machines.
set -euo pipefail
cd "$(dirname "$0")/.."

base=$PWD/.data/cluster
mkdir -p "$base"
bindir=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) /usr/local/pgsql/bin; do
	if [ -x "$d/initdb" ] && [ -x "$d/pg_basebackup" ]; then bindir=$d; break; fi
done
[ -n "$bindir" ] || { echo "cluster: needs the PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "cluster: needs redis-server (apt-get install redis-server)" >&2; exit 1; }
as_owner=()
if [ "$(id -u)" = 0 ]; then
	as_owner=(runuser -u postgres --)
	chown postgres "$base"
fi
primary_port=${TABLESMITH_CLUSTER_PRIMARY_PORT:-54401}
replica_port=${TABLESMITH_CLUSTER_REPLICA_PORT:-54402}
two_port=${TABLESMITH_CLUSTER_TWO_PORT:-54403}
redis_port=${TABLESMITH_CLUSTER_REDIS_PORT:-56379}
pg() { "${as_owner[@]}" "$bindir/$@"; }

pids=()
stop() {
	echo "cluster: stopping" >&2
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	# The nodes run on their own (scripts/cluster-node.sh), so that
	# cluster-upgrade.sh can replace them: stop them by their pid files.
	local node_pids=()
	for f in "$base"/node?.pid; do
		[ -f "$f" ] || continue
		node_pids+=("$(cat "$f")")
		rm -f "$f"
	done
	for p in "${node_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${node_pids[@]}"; do
		for _ in $(seq 400); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	wait 2>/dev/null || true
	pg pg_ctl -D "$base/replica" -m fast -w stop >/dev/null 2>&1 || true
	pg pg_ctl -D "$base/primary" -m fast -w stop >/dev/null 2>&1 || true
	pg pg_ctl -D "$base/two" -m fast -w stop >/dev/null 2>&1 || true
}
trap stop EXIT
trap 'exit 130' INT TERM

if [ ! -f "$base/primary/PG_VERSION" ]; then
	echo "cluster: initialising the primary in $base/primary" >&2
	pg initdb -D "$base/primary" -U postgres --auth=trust --encoding=UTF8 >/dev/null
fi
pg pg_ctl -D "$base/primary" status >/dev/null 2>&1 ||
	pg pg_ctl -D "$base/primary" -l "$base/primary.log" -w -o "-p $primary_port -k $base -c listen_addresses=127.0.0.1" start >/dev/null
"$bindir/psql" -h 127.0.0.1 -p "$primary_port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'tablesmith'" postgres | grep -q 1 ||
	"$bindir/psql" -h 127.0.0.1 -p "$primary_port" -U postgres -qc "CREATE DATABASE tablesmith" postgres
if [ ! -f "$base/replica/PG_VERSION" ]; then
	echo "cluster: copying the replica from the primary (pg_basebackup -R)" >&2
	pg pg_basebackup -h 127.0.0.1 -p "$primary_port" -U postgres -D "$base/replica" -R --checkpoint=fast
fi
pg pg_ctl -D "$base/replica" status >/dev/null 2>&1 ||
	pg pg_ctl -D "$base/replica" -l "$base/replica.log" -w -o "-p $replica_port -k $base -c listen_addresses=127.0.0.1" start >/dev/null

if [ ! -f "$base/two/PG_VERSION" ]; then
	echo "cluster: initialising the second data server in $base/two" >&2
	pg initdb -D "$base/two" -U postgres --auth=trust --encoding=UTF8 >/dev/null
fi
pg pg_ctl -D "$base/two" status >/dev/null 2>&1 ||
	pg pg_ctl -D "$base/two" -l "$base/two.log" -w -o "-p $two_port -k $base -c listen_addresses=127.0.0.1" start >/dev/null
"$bindir/psql" -h 127.0.0.1 -p "$two_port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'tablesmith'" postgres | grep -q 1 ||
	"$bindir/psql" -h 127.0.0.1 -p "$two_port" -U postgres -qc "CREATE DATABASE tablesmith" postgres

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >"$base/redis.log" 2>&1 &
pids+=($!)

make -s caddy dashboard
# The nodes' Caddyfile: Caddyfile.example with the replica line and the
# two data servers switched on.
sed -e 's|# replica_url {env.TABLESMITH_REPLICA_URL}|replica_url {env.TABLESMITH_REPLICA_URL}|' \
	-e '/# data_server one {/,/# }/ s|# ||' -e '/# data_server two {/,/# }/ s|# ||' \
	Caddyfile.example >"$base/Caddyfile.node"
grep -q '^[[:space:]]*data_server two {' "$base/Caddyfile.node" || { echo "cluster: Caddyfile.example lacks the data_server lines" >&2; exit 1; }
secret=${TABLESMITH_SECRET:-cluster-demo-secret-change-me}
# The URLs every node (and an operator command) uses, in a file to source.
cat >"$base/env" <<ENV
TABLESMITH_DATABASE_URL=postgres://postgres@127.0.0.1:$primary_port/tablesmith?sslmode=disable
TABLESMITH_REPLICA_URL=postgres://postgres@127.0.0.1:$replica_port/tablesmith?sslmode=disable
TABLESMITH_DATA_ONE_URL=postgres://postgres@127.0.0.1:$primary_port/tablesmith?sslmode=disable
TABLESMITH_DATA_ONE_REPLICA_URL=postgres://postgres@127.0.0.1:$replica_port/tablesmith?sslmode=disable
TABLESMITH_DATA_TWO_URL=postgres://postgres@127.0.0.1:$two_port/tablesmith?sslmode=disable
TABLESMITH_REDIS_URL=redis://127.0.0.1:$redis_port/0
TABLESMITH_SECRET=$secret
# Behind the balancer (health check every 2 s), a stopping node serves on
# 5 s while /api/ready says 503 (docs/deployment.md, "Stopping a node").
TABLESMITH_SHUTDOWN_DELAY=5s
ENV
set -a
. "$base/env"
set +a
for n in 1 2 3; do
	: >"$base/node$n.log"
	scripts/cluster-node.sh "$n"
done
# The balancer is Caddyfile.balancer.example over the three nodes.
TABLESMITH_BALANCER_ADDRESS=http://localhost:8080 TABLESMITH_NODES="localhost:8081 localhost:8082 localhost:8083" \
	XDG_DATA_HOME="$base/lb" XDG_CONFIG_HOME="$base/lb" \
	./caddy run --config Caddyfile.balancer.example --adapter caddyfile >"$base/lb.log" 2>&1 &
pids+=($!)
for _ in $(seq 60); do curl -sf http://localhost:8080/api/ready >/dev/null && break; sleep 0.5; done
curl -sf http://localhost:8080/api/ready >/dev/null || { echo "cluster: the load balancer does not answer; logs in $base" >&2; exit 1; }
cat >&2 <<MSG
cluster: Tablesmith on http://localhost:8080 (load balancer) over nodes :8081 :8082 :8083,
  PostgreSQL primary :$primary_port and streaming replica :$replica_port (reads), second data
  server :$two_port, Redis :$redis_port. New projects alternate between data servers one and two;
  Move a project: (set -a; . $base/env; ./caddy tablesmith move-project --project ID --to two --config $base/Caddyfile.node)
  Logs in $base/*.log. A rolling upgrade to this tree's code: scripts/cluster-upgrade.sh.
  Ctrl-C stops everything.
MSG
wait
