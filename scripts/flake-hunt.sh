#!/usr/bin/env bash
# Looks for tests that depend on how fast the machine is (docs/testing.md):
# runs the whole Go suite ROUNDS times in a row (default 5) while stress-ng
# keeps every core busy, then -count=5 on the packages with deadlines,
# timers or sleeps, and prints every failed test. Exit status 1 when any
# test failed.
#
#   scripts/flake-hunt.sh                 # the whole hunt (about an hour on two cores)
#   ROUNDS=1 scripts/flake-hunt.sh        # one round of the suite, then the timing packages
#   SUITE=0 scripts/flake-hunt.sh         # only the timing packages
#   TIMING=0 scripts/flake-hunt.sh        # only the rounds of the suite
#
# Needs stress-ng (apt-get install stress-ng); without it the suite runs on a
# quiet machine, which proves less.
set -uo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
timing_pkgs=(./internal/publish ./internal/faultsuite ./internal/fairshare ./internal/replica
	./internal/realtime ./internal/ratelimit ./internal/writedeadline ./internal/apihttp)
out=$(mktemp -d)
export TABLESMITH_TEST_REQUIRE_ALL=${TABLESMITH_TEST_REQUIRE_ALL:-1}
make -s swagger-ui # the embedded Swagger UI the docs tests serve
# The S3-compatible store the file store's tests run against.
TABLESMITH_TEST_S3GW=$(make -s --no-print-directory s3gw | tail -1)
export TABLESMITH_TEST_S3GW

stress_pid=""
if command -v stress-ng >/dev/null; then
	stress-ng --cpu "$(nproc)" --quiet &
	stress_pid=$!
	trap 'kill "$stress_pid" 2>/dev/null' EXIT
else
	echo "flake-hunt: stress-ng is not installed; the machine is not kept busy" >&2
fi

run() { # name, go test arguments...
	local name=$1
	shift
	local start=$SECONDS
	go test -race -p 3 -timeout 30m -json "$@" >"$out/$name.json" 2>"$out/$name.err" # -p as make test-go has it
	echo "flake-hunt: $name: $((SECONDS - start)) s, $(grep -c '"Action":"fail","Package":"[^"]*","Test"' "$out/$name.json") failed tests"
}

if [ "${SUITE:-1}" != 0 ]; then
	for i in $(seq "$rounds"); do run "suite-$i" -count=1 ./...; done
fi
if [ "${TIMING:-1}" != 0 ]; then
	run timing -count=5 "${timing_pkgs[@]}"
fi

# Failed tests, and packages that failed without a failed test (a panic,
# a timeout, a build error).
failed=$(cat "$out"/*.json | grep '"Action":"fail"' |
	sed -E 's/.*"Package":"([^"]*)"(,"Test":"([^"]*)")?.*/\1 \3/' | sort | uniq -c | sort -rn)
if [ -n "$failed" ]; then
	echo "flake-hunt: failed tests (count, package, test); logs in $out:"
	echo "$failed"
	exit 1
fi
echo "flake-hunt: no test failed"
rm -rf "$out"
