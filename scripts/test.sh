#!/usr/bin/env bash
# make test: every test, phase by phase (lint, Go tests, fuzz, dashboard,
# browser), stopping at the first phase that fails, and each phase's time at
# the end. TABLESMITH_PHASE_TIMES names a file of "phase<TAB>seconds" lines
# that earlier phases already wrote (.ci/run's install) and this appends to.
set -euo pipefail
cd "$(dirname "$0")/.."

times=${TABLESMITH_PHASE_TIMES:-$(mktemp)}

summary() {
	echo
	echo "Phase times:"
	awk -F'\t' '{ printf "  %-10s %2d:%02d\n", $1, $2 / 60, $2 % 60; t += $2 }
		END { printf "  %-10s %2d:%02d\n", "total", t / 60, t % 60 }' "$times"
}

phase() { # name, command...
	local name=$1 start=$SECONDS status=0
	shift
	echo "== $name: $*"
	"$@" || status=$?
	printf '%s\t%d\n' "$name" $((SECONDS - start)) >>"$times"
	if [ "$status" -ne 0 ]; then
		summary
		echo "make test: the $name phase failed (exit $status)" >&2
		exit "$status"
	fi
}

phase lint make -s lint
phase "Go tests" make -s test-go
phase fuzz make -s test-fuzz
phase dashboard make -s test-dashboard
phase browser make -s test-e2e
summary
