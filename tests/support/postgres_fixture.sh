#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The build tree's PostgreSQL server for the tests (ctest fixture `postgres`: postgres_start before
# the archive tests, postgres_stop after them), so that the archive's tests share one server instead
# of one initdb per test process (tests/support/postgres_server.hpp, PostgresServer::shared). Debian's
# postgresql, run as `nobody` when root, on a Unix socket in DIR only (listen_addresses=''). A
# watchdog stops it and removes DIR when the process that started the script (ctest) is gone, so
# an interrupted ctest leaves no server behind.
#   postgres_fixture.sh start|stop DIR
set -uo pipefail
what=${1:?usage: postgres_fixture.sh start|stop DIR}
dir=${2:?usage: postgres_fixture.sh start|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "postgres fixture: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)"
  exit 1
fi
as_server() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- /bin/sh -c "cd '$dir' && $1"; else (cd "$dir" && /bin/sh -c "$1"); fi
}
stop() {
  [ -d "$dir/data" ] && as_server "'$bin/pg_ctl' -D data -m immediate -w stop" > /dev/null 2>&1
  stopped_at=$(date +%s.%N)
  rm -rf "$dir"
}
case "$what" in
  # With the time of each step: postgres_stop took 2 s in one CI run and 9 s and 31 s in two
  # others on a loaded machine (issue 46), and it runs after every archive test, near the end.
  stop) began=$(date +%s.%N); stop
        awk -v d="$dir" -v a="$began" -v b="$stopped_at" -v c="$(date +%s.%N)" 'BEGIN {
          printf "postgres fixture: stopped, %s removed (pg_ctl stop %.1f s, rm %.1f s)\n", d, b - a, c - b }'
        exit 0 ;;
  start) ;;
  *) echo "postgres fixture: unknown action '$what' (start, stop)"; exit 2 ;;
esac
stop  # a server an earlier, interrupted run left
mkdir -p "$dir" || exit 1
# Whose server this is: the watchdog of an earlier ctest that ended a moment ago (it looks every
# 2 s) must not remove this one's folder.
owner=$PPID
echo "$owner" > "$dir/owner" || exit 1
if [ "$(id -u)" -eq 0 ]; then chown nobody: "$dir" || exit 1; fi
if ! as_server "'$bin/initdb' -D data -U storqual -A trust -E UTF8 --no-sync > initdb.log 2>&1"; then
  echo "postgres fixture: initdb failed: $(cat "$dir/initdb.log")"
  exit 1
fi
if ! as_server "'$bin/pg_ctl' -D data -l server.log -w -t 60 -o \"-c listen_addresses='' -k $dir -c fsync=off -c max_connections=100\" start > pg_ctl.log 2>&1"; then
  echo "postgres fixture: pg_ctl start failed: $(cat "$dir/server.log" "$dir/pg_ctl.log" 2>/dev/null)"
  stop
  exit 1
fi
self=$(realpath "$0")
setsid /bin/bash -c "while kill -0 $owner 2>/dev/null; do sleep 2; done
  [ \"\$(cat '$dir/owner' 2>/dev/null)\" = $owner ] && exec '$self' stop '$dir'" \
  < /dev/null > /dev/null 2>&1 &
echo "postgres fixture: $("$bin/postgres" --version) on $dir (socket only), stopped when process $owner ends"
