# A PostgreSQL server for the tests that put a catalog in PostgreSQL (sourced after cli_lib.sh):
# initdb and pg_ctl of the newest /usr/lib/postgresql/*/bin (or $GGUF_TEST_PG_BIN), a cluster
# in a folder of its own under /tmp, listening on a Unix socket there only (no TCP), trusting
# local connections, run as the `postgres` system user when the tests run as root (PostgreSQL
# refuses root), stopped and removed at exit. Sets PGDIR (the folder, its socket's too), and
# the helpers below. Skips, saying why, without a server build, libpq in gguf-catalog, psql,
# or the user to run it as.
PG_BIN=${GGUF_TEST_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
[ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] ||
    skip_all "no PostgreSQL server (initdb, pg_ctl) installed"
command -v psql >/dev/null || skip_all "no psql"
if "$CATALOG_TOOL" --db postgresql:///x?host=/nonexistent query "SELECT 1" 2>&1 |
    grep -q "built without PostgreSQL"; then
    skip_all "this build has no libpq (configure --without-postgresql)"
fi
pg_as=""
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || skip_all "running as root, and no postgres user to run the server as"
    pg_as="runuser -u postgres --"
fi
PGDIR=$(mktemp -d /tmp/gguf-pg.XXXXXX)
chmod 755 "$PGDIR"
[ -n "$pg_as" ] && chown postgres "$PGDIR"
# at exit, after the server: the cleanup of an HTTP server started before
# (tests/support/http_lib.sh), else the TAP lib's
pg_then=tap_exit
command -v http_cleanup >/dev/null 2>&1 && pg_then=http_cleanup
pg_cleanup() {
    status=$?
    $pg_as "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$PGDIR"
    (exit $status)
    $pg_then
}
trap pg_cleanup EXIT
if ! $pg_as "$PG_BIN/initdb" -D "$PGDIR/data" -U postgres -A trust -E UTF8 --no-locale \
    --no-sync >"$PGDIR/initdb.log" 2>&1; then
    skip_all "initdb failed: $(tail -c 300 "$PGDIR/initdb.log")"
fi
if ! $pg_as "$PG_BIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -o \
    "-c listen_addresses= -c unix_socket_directories=$PGDIR -c fsync=off -c max_connections=50" \
    start >/dev/null 2>&1; then
    skip_all "the PostgreSQL server would not start: $(tail -c 300 "$PGDIR/server.log")"
fi
# pg_url DB [USER]: the URL of database DB (made by pg_createdb) as USER (postgres)
pg_url() { echo "postgresql:///$1?host=$PGDIR&user=${2:-postgres}"; }
# pg_createdb DB: a new database
pg_createdb() { psql -q -h "$PGDIR" -U postgres -d postgres -c "CREATE DATABASE $1" >/dev/null; }
# pg_sql DB SQL: SQL run by psql as postgres, its rows unaligned, '|' between cells
pg_sql() { psql -X -q -A -t -h "$PGDIR" -U postgres -d "$1" -c "$2"; }
