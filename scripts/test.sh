#!/usr/bin/env bash
# make test: every test, and each phase's time at the end.
# TABLESMITH_PHASE_TIMES names a file of "phase<TAB>seconds<TAB>note" lines
# that earlier phases already wrote (.ci/run's install) and this appends to.
#
# First the binaries every lane needs are built (the race-built Caddy that
# the Go tests and the browser run, golangci-lint, the S3 gateway, the OpenID
# provider of the browser tests, the dashboard). Then two lanes run at once:
#
#   Go        the Go tests, then lint (which then finds every package
#             compiled and takes half a minute);
#   side      the fuzzers and the dashboard's checks, at nice 10, in the
#             time the Go tests leave idle waiting on PostgreSQL, timers
#             and Caddy.
#
# The browser tests run after them, alone. Beside the Go tests they starved
# (a renderer took over 30 s for single steps on a slow CI machine); with
# the Go tests at nice 10 instead, the Go tests starved (four tests red in
# three of four runs: reads counted in a fixed time, a mail body read after
# it was cleared, purges announced late); docs/testing.md has the figures.
#
# The lanes' output is kept and printed when they end; the browser's prints
# as it goes. A failed phase's failures are printed again at the very end.
set -euo pipefail
cd "$(dirname "$0")/.."

times=${TABLESMITH_PHASE_TIMES:-$(mktemp)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

summary() {
	echo
	echo "Phase times:"
	awk -F'\t' '{ printf "  %-10s %2d:%02d%s\n", $1, $2 / 60, $2 % 60, ($3 == "" ? "" : "  (" $3 ")") }' "$times"
	# Lanes overlap: the total is the wall clock.
	local install
	install=$(awk -F'\t' '$1 == "install" { t += $2 } END { print t + 0 }' "$times")
	local total=$((install + SECONDS))
	printf '  %-10s %2d:%02d\n' total $((total / 60)) $((total % 60))
}

timed() { # name, note, command...: runs it, records its time, returns its status
	local name=$1 note=$2 start=$SECONDS status=0
	shift 2
	"$@" || status=$?
	printf '%s\t%d\t%s\n' "$name" $((SECONDS - start)) "$note" >>"$times"
	return "$status"
}

echo "== build: make -s test-binaries"
timed build "" make -s test-binaries || {
	summary
	echo "make test: the build failed" >&2
	exit 2
}

# A lane stops at its first failure (a phase after a failed one would only
# repeat it), never the other lanes; it writes the failed phase's name and
# status to $logs/failed.
failed() { printf '%s\t%s\n' "$1" "$2" >>"$logs/failed"; }
go_lane() {
	timed "Go tests" "" make -s test-go || { failed "Go tests" $?; return; }
	timed lint "after Go tests" make -s lint || failed lint $?
}
side_lane() {
	timed fuzz "nice 10, beside Go tests" nice -n 10 make -s test-fuzz || { failed fuzz $?; return; }
	timed dashboard "nice 10, beside Go tests" nice -n 10 make -s test-dashboard || failed dashboard $?
}
touch "$logs/failed"
echo "== Go tests, then lint; fuzz, then the dashboard's checks (their output follows when they end)"
go_lane >"$logs/go" 2>&1 </dev/null &
go_pid=$!
side_lane >"$logs/side" 2>&1 </dev/null &
side_pid=$!

browser() { # the browser lane, its output also kept for the end
	make -s test-e2e 2>&1 | tee "$logs/browser"
	return "${PIPESTATUS[0]}"
}
wait "$go_pid" "$side_pid"
echo "== Go tests and lint: output"
cat "$logs/go"
echo "== fuzz and dashboard: output"
cat "$logs/side"
if [ ! -s "$logs/failed" ]; then
	echo "== browser: make -s test-e2e"
	timed browser "" browser || failed browser $?
fi

if [ -s "$logs/failed" ]; then
	# The failures scrolled away above the other lanes' output: say them again.
	if grep -q '^browser' "$logs/failed"; then
		echo "== browser failures:"
		grep -E -A14 '^  [0-9]+\) ' "$logs/browser" | head -n 150 || true
	fi
	if grep -q '^\(Go tests\|lint\)' "$logs/failed"; then
		echo "== Go tests and lint failures:"
		grep -E -B2 -A20 '^(--- FAIL|FAIL|panic:|[^ ]+\.go:[0-9]+:[0-9]+: )' "$logs/go" | head -n 200 || true
	fi
	if grep -q '^\(fuzz\|dashboard\)' "$logs/failed"; then
		echo "== fuzz and dashboard: the end of their output again:"
		tail -n 120 "$logs/side"
	fi
	summary
	echo "make test: failed: $(awk -F'\t' '{ printf "%s%s (exit %s)", sep, $1, $2; sep = ", " }' "$logs/failed")" >&2
	exit 2
fi
summary
