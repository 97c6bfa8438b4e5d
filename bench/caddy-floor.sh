#!/usr/bin/env bash
# What Caddy itself costs a generated-API request, and what the structure
# of Caddyfile.example saves (bench/RESULTS.md, "Caddy's own cost"): the
# same fixed 238-byte answer from
#   bare   a net/http server (bench/caddyfloor),
#   nested Caddy with the site layout Caddyfile.example had before: the
#          answer inside `handle /v1/*` with `encode @docs` (a path matcher
#          of four globs) and Caddy's default idle timeouts,
#   flat   Caddy with today's layout: the answer at the top of the site,
#          ordered before handle, read_body/write instead of the idle
#          timeouts, and a site address with a port and no host (a host
#          puts the site's routes in a subroute Caddy matches and compiles
#          on every request),
# each loaded by wrk (32 connections) in rotating rounds; it prints each
# server's requests/s, its CPU time per request (µs, from /proc) and the
# median latency of one connection alone (p50, µs; the floor of the
# unloaded-latency target).
#   ./bench/caddy-floor.sh [rounds] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-6}
secs=${2:-5}
command -v wrk >/dev/null || { echo "caddy-floor: needs wrk (apt-get install wrk)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tablesmith-floor.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/caddy" ./cmd/caddy
go build -o "$work/floor" ./bench/caddyfloor
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rest='
	handle /api/* {
		encode zstd gzip
		respond "platform"
	}
	handle {
		encode zstd gzip
		root * '"$work"'
		file_server
	}
}'
pb=$(port); pn=$(port); pf=$(port)
wait_for() { for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$1/v1/x/users/5" && return; sleep 0.1; done; }
"$work/floor" -addr 127.0.0.1:$pb & pids+=($!)
wait_for $pb
body=$(curl -s "http://127.0.0.1:$pb/v1/x/users/5") # the Caddy servers answer the same bytes
cat >"$work/nested" <<CF
{
	admin off
}
http://127.0.0.1:$pn {
	handle /v1/* {
		@docs path /v1/*/openapi.json /v1/*/openapi.yaml /v1/*/docs /v1/*/docs/*
		encode @docs zstd gzip
		respond \`$body\` 200
	}$rest
CF
cat >"$work/flat" <<CF
{
	admin off
	order respond before handle
	servers {
		timeouts {
			read_body 30s
			read_body_idle -1s
			write 2m
			write_idle -1s
		}
	}
}
http://:$pf {
	respond /v1/* \`$body\` 200$rest
CF
XDG_CONFIG_HOME=$work XDG_DATA_HOME=$work "$work/caddy" run --config "$work/nested" --adapter caddyfile >"$work/nested.log" 2>&1 & pids+=($!)
XDG_CONFIG_HOME=$work XDG_DATA_HOME=$work "$work/caddy" run --config "$work/flat" --adapter caddyfile >"$work/flat.log" 2>&1 & pids+=($!)
wait_for $pn
wait_for $pf
names=(bare nested flat); ports=($pb $pn $pf)
tck=$(getconf CLK_TCK)
declare -A rps cpu lat
for _ in $(seq "$rounds"); do
	for i in 0 1 2; do
		pid=${pids[$i]}
		a=$(awk '{print $14+$15}' /proc/$pid/stat)
		out=$(wrk -t2 -c32 -d"${secs}s" "http://127.0.0.1:${ports[$i]}/v1/x/users/5")
		b=$(awk '{print $14+$15}' /proc/$pid/stat)
		n=$(awk '/requests in/{print $1}' <<<"$out")
		rps[$i]+=" $(awk '/Requests\/sec/{print int($2)}' <<<"$out")"
		cpu[$i]+=" $(( (b - a) * 1000000 / tck * 10 / n ))"
		# one connection alone: wrk's p50 in µs
		one=$(wrk -t1 -c1 -d"${secs}s" --latency "http://127.0.0.1:${ports[$i]}/v1/x/users/5")
		lat[$i]+=" $(awk '$1=="50%"{v=$2; if (v ~ /ms$/) {sub(/ms$/,"",v); v*=1000} else sub(/us$/,"",v); printf "%d", v}' <<<"$one")"
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
echo "server  requests/s (median of $rounds × ${secs}s)  CPU µs/request (median)  1 connection p50 µs (median)  rounds: req/s | CPU in 0.1 µs | p50 µs"
for i in 0 1 2; do
	c=$(median <<<"${cpu[$i]}")
	printf '%-7s %12s %26s.%s %22s  %s | %s | %s\n' "${names[$i]}" "$(median <<<"${rps[$i]}")" "$((c / 10))" "$((c % 10))" \
		"$(median <<<"${lat[$i]}")" "${rps[$i]}" "${cpu[$i]}" "${lat[$i]}"
done
