#!/usr/bin/env bash
# Reads through the topology of scripts/cluster.sh (start it first, in another terminal):
# GET by id and a filtered list page, with wrk through one Caddy node (:8081), for a project
# on data server "one" (the primary, with one streaming replica) and one on "two" (a server
# without replicas), 10,000 rows each; reports requests/s and the CPU per request of the
# project's data server primary (its postmaster and backends, from /proc): the load a
# replica takes off it. bench/RESULTS.md, "Read replicas".
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
B=http://localhost:8081   # one node (the LB adds its own hop)
base=.data/cluster
psql1="postgres://postgres@127.0.0.1:54401/tablesmith"
TOK=$(curl -s -XPOST $B/api/auth/signup -H 'content-type: application/json' -d '{"email":"bench'$RANDOM'@x.io","password":"correct horse battery","name":"B"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["token"])')
EMAIL=$(psql "$psql1" -tAc "select email from tablesmith.accounts order by id desc limit 1")
(set -a; . $base/env; ./caddy tablesmith set-plan "$EMAIL" unlimited >/dev/null 2>&1)
sleep 1 # the nodes apply the plan change from its NOTIFY
schema='{"tables":[{"name":"users","permissions":{"read":"key"},"columns":[{"name":"name","type":"text","required":true},{"name":"is_active","type":"boolean"},{"name":"age","type":"integer","index":true}]}]}'
declare -A PID KEY
for want in one two; do
  while :; do
    P=$(curl -s -XPOST $B/api/projects -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d '{"name":"bench"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["id"])')
    srv=$(psql "$psql1" -tAc "select data_server from tablesmith.projects where id='$P'")
    if [ "$srv" = "$want" ]; then break; fi
    curl -s -XDELETE $B/api/projects/$P -H "authorization: Bearer $TOK" >/dev/null
  done
  curl -s -XPUT $B/api/projects/$P/schema -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d "$schema" >/dev/null
  curl -s -XPOST $B/api/projects/$P/generate -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d '{}' >/dev/null
  K=$(curl -s -XPOST $B/api/projects/$P/keys -H "authorization: Bearer $TOK" -H 'content-type: application/json' -d '{"name":"k","scope":"read_write"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["key"])')
  for b in $(seq 10); do
    python3 -c "import json,random;print(json.dumps([{'name':'u%d'%i,'is_active':random.random()<0.5,'age':random.randint(18,80)} for i in range(1000)]))" > /tmp/batch.json
    curl -s -o /dev/null -XPOST $B/v1/$P/users -H "authorization: Bearer $K" -H 'content-type: application/json' --data-binary @/tmp/batch.json
  done
  PID[$want]=$P; KEY[$want]=$K
  echo "project on $want: $P"
done
sleep 2
cpu_of() { # CPU ticks of the postmaster of data directory $1 and its children
  local pm; pm=$(head -1 "$1/postmaster.pid")
  local total=0
  for p in $pm $(pgrep -P $pm); do
    [ -r /proc/$p/stat ] || continue
    set -- $(awk '{print $14, $15}' /proc/$p/stat 2>/dev/null || echo "0 0")
    total=$((total + $1 + $2))
  done
  echo $total
}
hz=$(getconf CLK_TCK)
for want in one two; do
  P=${PID[$want]}; K=${KEY[$want]}
  dir=$base/primary; [ $want = two ] && dir=$base/two
  for op in get list; do
    if [ $op = get ]; then
      args=(-s bench/wrk/get.lua $B -- /v1/$P 10000)
    else
      args=("$B/v1/$P/users?filter%5Bis_active%5D=true&sort=-age&limit=20&count=none")
    fi
    wrk -t2 -c16 -d3s -H "Authorization: Bearer $K" "${args[@]}" >/dev/null 2>&1
    c0=$(cpu_of $dir)
    out=$(wrk -t2 -c16 -d10s -H "Authorization: Bearer $K" "${args[@]}")
    c1=$(cpu_of $dir)
    rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
    n=$(echo "$out" | awk '/requests in/{print $1}')
    non2xx=$(echo "$out" | awk '/Non-2xx/{print $NF}')
    us=$(python3 -c "print(round(($c1-$c0)/$hz*1e6/$n,1))")
    echo "$want $op: $rps req/s, data server primary CPU per request $us µs, non-2xx ${non2xx:-0}"
  done
done
