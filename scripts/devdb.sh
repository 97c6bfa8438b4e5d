#!/usr/bin/env bash
# Prints a PostgreSQL URL for `make run`: TABLESMITH_DATABASE_URL if set,
# otherwise a private cluster under ./.data/pg that it initialises and
# starts from the machine's PostgreSQL server binaries.
# `devdb.sh stop` stops that private cluster (make stop-db); its data stays.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-start}
if [ "$mode" = start ] && [ -n "${TABLESMITH_DATABASE_URL:-}" ]; then
	echo "$TABLESMITH_DATABASE_URL"
	exit 0
fi

bindir=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) /usr/local/pgsql/bin; do
	if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; break; fi
done
if [ -z "$bindir" ]; then
	if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
		bindir=$(dirname "$(command -v initdb)")
	else
		cat >&2 <<'MSG'
make run needs PostgreSQL. Either
  - set TABLESMITH_DATABASE_URL=postgres://user:pass@host:5432/db, or
  - install the server binaries (Debian/Ubuntu: sudo apt-get install postgresql)
    and run make run again: it starts a private cluster under ./.data/pg.
MSG
		exit 1
	fi
fi

if [ "$mode" = stop ]; then
	as_owner=()
	[ "$(id -u)" = 0 ] && as_owner=(runuser -u postgres --)
	if [ -f "$PWD/.data/pg/PG_VERSION" ] && "${as_owner[@]}" "$bindir/pg_ctl" -D "$PWD/.data/pg" status >/dev/null 2>&1; then
		"${as_owner[@]}" "$bindir/pg_ctl" -D "$PWD/.data/pg" -m fast -w stop >/dev/null
		echo "devdb: stopped the private PostgreSQL in .data/pg (its data is kept)" >&2
	else
		echo "devdb: the private PostgreSQL in .data/pg is not running" >&2
	fi
	exit 0
fi

port=${TABLESMITH_DEV_PG_PORT:-54329}
data="$PWD/.data/pg"
sock="$PWD/.data"
mkdir -p "$sock"

# PostgreSQL refuses to run as root: run it as the postgres user then.
as_owner=()
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || { echo "devdb: running as root needs a 'postgres' user" >&2; exit 1; }
	chown postgres "$sock"
	as_owner=(runuser -u postgres --)
fi

if [ ! -f "$data/PG_VERSION" ]; then
	echo "devdb: initialising a private PostgreSQL cluster in $data" >&2
	"${as_owner[@]}" "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 >/dev/null
fi
if ! "${as_owner[@]}" "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
	"${as_owner[@]}" "$bindir/pg_ctl" -D "$data" -l "$sock/pg.log" -w \
		-o "-p $port -k $sock -c listen_addresses=127.0.0.1" start >/dev/null
fi
"$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'tablesmith'" postgres | grep -q 1 ||
	"$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE tablesmith" postgres
echo "postgres://postgres@127.0.0.1:$port/tablesmith?sslmode=disable"
