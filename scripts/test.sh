#!/usr/bin/env bash
# make test: every test, phase by phase, stopping at the first phase that
# fails, and each phase's time at the end. TABLESMITH_PHASE_TIMES names a file
# of "phase<TAB>seconds" lines that earlier phases already wrote (.ci/run's
# install) and this appends to.
#
# The Go tests keep both cores busy for only part of their run (much of it
# is waiting on PostgreSQL, timers and Caddy), so the fuzzers and the
# dashboard's checks and build run beside them; the browser tests run after
# them, alone: beside the Go tests on a slower two-core CI machine a starved
# renderer took over 30 s for single steps (docs/testing.md has the
# measurements). The Go tests' output is kept in a file and shown when they
# end; the phases beside them print as they go.
set -euo pipefail
cd "$(dirname "$0")/.."

times=${TABLESMITH_PHASE_TIMES:-$(mktemp)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

summary() {
	echo
	echo "Phase times:"
	awk -F'\t' '{ printf "  %-10s %2d:%02d%s\n", $1, $2 / 60, $2 % 60, ($3 == "" ? "" : "  (" $3 ")") }' "$times"
	# Phases that ran beside another overlap: the total is the wall clock.
	local install
	install=$(awk -F'\t' '$1 == "install" { t += $2 } END { print t + 0 }' "$times")
	local total=$((install + SECONDS))
	printf '  %-10s %2d:%02d\n' total $((total / 60)) $((total % 60))
}

fail() { # phase, status
	summary
	echo "make test: the $1 phase failed (exit $2)" >&2
	exit "$2"
}

timed() { # name, note, command...: runs it, records its time, returns its status
	local name=$1 note=$2 start=$SECONDS status=0
	shift 2
	"$@" || status=$?
	printf '%s\t%d\t%s\n' "$name" $((SECONDS - start)) "$note" >>"$times"
	return "$status"
}

logged() { # command...: runs it, its output also kept for the end (side phases)
	"$@" 2>&1 | tee -a "$logs/side"
	return "${PIPESTATUS[0]}"
}

phase() { # name, command...
	echo "== $1: ${*:2}"
	timed "$1" "" "${@:2}" || fail "$1" $?
}

phase lint make -s lint

# The Caddy binary both lanes below run (after lint it is only linked),
# built once before they start so that they do not both build it.
phase caddy make -s .bin/caddy-race

echo "== Go tests: make -s test-go (its output follows when it ends; fuzz and dashboard run beside it)"
timed "Go tests" "" make -s test-go >"$logs/go" 2>&1 &
go_pid=$!
side=""
echo "== fuzz: make -s test-fuzz"
timed fuzz "beside Go tests" logged make -s test-fuzz || side=${side:-fuzz}
if [ -z "$side" ]; then
	echo "== dashboard: make -s test-dashboard, then its build for the browser phase"
	timed dashboard "beside Go tests" logged make -s test-dashboard dashboard || side=dashboard
fi
go_status=0
wait "$go_pid" || go_status=$?
echo "== Go tests: output"
cat "$logs/go"
if [ -n "$side" ]; then
	# Its failures scrolled away above the Go tests' output: say them again.
	echo "== $side failed beside the Go tests; the end of its output again:"
	tail -n 120 "$logs/side"
fi
[ "$go_status" -eq 0 ] || fail "Go tests" "$go_status"
[ -z "$side" ] || fail "$side" 2
echo "== browser: make -s test-e2e"
timed browser "" logged make -s test-e2e || {
	# Playwright's failures (each test's title and error) scrolled away
	# above the Caddy log: say them again, last.
	echo "== browser failures:"
	grep -E -A14 '^  [0-9]+\) ' "$logs/side" | head -n 150 || true
	fail browser 2
}
summary
