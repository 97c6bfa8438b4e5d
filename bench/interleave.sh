#!/usr/bin/env bash
# Load servers that are already running (say, those of
#   ./bench/run.sh -only headline -hold
# and a second Caddy with a changed Caddyfile) in turn, round after round,
# and print each one's requests/s, its CPU time per request (µs, from
# /proc), its PostgreSQL backends' CPU per request (by application_name)
# and wrk's p99. Used for the interleaved figures of bench/RESULTS.md.
#
#   DB=<database URL> [KEY=<API key>] [LUA=bench/wrk/get.lua LUAARGS='/v1/<p> 100000'] \
#     [ROUNDS=3] [SECS=8] ./bench/interleave.sh 'name|pid|url|application_name' ...
#
# A server whose name starts with "m" (the module) is sent
# "Authorization: Bearer $KEY". Without LUA, url is loaded as it is. An
# empty application_name counts the client backends that have none (the
# bare servers).
set -euo pipefail
: "${DB:?DB must be the benchmark database URL}"
command -v wrk >/dev/null || { echo "interleave: needs wrk (apt-get install wrk)" >&2; exit 1; }
rounds=${ROUNDS:-3}
secs=${SECS:-8}
tck=$(getconf CLK_TCK)

# cpu prints a process's user + system time in clock ticks.
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# pg_cpu prints the CPU ticks of the backends with application_name $1.
pg_cpu() {
	local sum=0 pid
	for pid in $(psql "$DB" -Atc "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'
		AND pid <> pg_backend_pid() AND application_name = '$1'"); do
		sum=$((sum + $(cpu "$pid")))
	done
	echo "$sum"
}

for _ in $(seq "$rounds"); do
	for spec in "$@"; do
		IFS='|' read -r name pid url app <<<"$spec"
		auth=()
		[[ $name == m* ]] && auth=(-H "Authorization: Bearer ${KEY:?KEY must be the module API key}")
		script=()
		[ -n "${LUA:-}" ] && script=(-s "$LUA")
		c0=$(cpu "$pid") p0=$(pg_cpu "$app")
		# shellcheck disable=SC2086 # LUAARGS is a word list on purpose
		out=$(wrk -t2 -c32 -d"${secs}s" --latency "${script[@]}" "${auth[@]}" "$url" ${LUA:+-- $LUAARGS})
		c1=$(cpu "$pid") p1=$(pg_cpu "$app")
		n=$(awk '/requests in/ {print $1}' <<<"$out")
		rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
		p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
		bad=$(grep -o 'Non-2xx or 3xx responses: [0-9]*' <<<"$out" || true)
		printf '%-10s %10s req/s  server %6.1f µs  postgres %6.1f µs  p99 %s %s\n' "$name" "$rps" \
			"$(bc -l <<<"($c1 - $c0) * 1000000 / $tck / $n")" "$(bc -l <<<"($p1 - $p0) * 1000000 / $tck / $n")" "$p99" "$bad"
	done
done
