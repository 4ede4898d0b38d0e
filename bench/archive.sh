#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The archive at scale (docs/archive.md, "At scale"): N synthetic runs (bench/archive_gen.py, from
# one real quick run) imported into an SQLite file and into a PostgreSQL database this script
# starts itself (initdb and pg_ctl in a temporary folder, as nobody when root, a Unix socket only);
# prints the import rate, the latency of `history --serial` and `history --tag` (median of 11
# calls, the whole process), the time of `storqual audit --tag` (its HTML and CSV; median of 3)
# and the time of `archive verify`, per engine.
#
# usage: bench/archive.sh [--storqual PATH] [--runs N] [--chunk N] [--engines "sqlite postgresql"]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
storqual=""
runs=100000
chunk=1000
engines="sqlite postgresql"
while [ $# -gt 0 ]; do
  case "$1" in
    --storqual) storqual=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --chunk) chunk=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    *) echo "usage: $0 [--storqual PATH] [--runs N] [--chunk N] [--engines \"sqlite postgresql\"]" >&2; exit 2 ;;
  esac
done
if [ -z "$storqual" ]; then
  for b in "$here"/../build/app/storqual "$here"/../build-*/app/storqual; do
    [ -x "$b" ] && { storqual=$b; break; }
  done
fi
[ -x "$storqual" ] || { echo "storqual binary not found (give --storqual PATH)" >&2; exit 2; }

work=$(mktemp -d /tmp/storqual-bench-archive.XXXXXX)
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- /bin/sh -c "cd '$work/pg' && $1"; else (cd "$work/pg" && /bin/sh -c "$1"); fi; }
cleanup() {
  if [ -f "$work/pg/data/postmaster.pid" ]; then as_pg "'$pgbin/pg_ctl' -D data -m immediate -w stop >/dev/null 2>&1" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/target"
cat >"$work/quick.xml" <<'XML'
<suite name="bench-archive" description="one short read, the template of the synthetic runs">
  <defaults direct="0" runtime="200ms" ramp_time="0s" size="1m" numjobs="1"/>
  <workload id="quick-read" rw="randread" bs="4k" iodepth="1" rate_iops="2000"/>
</suite>
XML
"$storqual" run --target "$work/target" --suite "$work/quick.xml" --out "$work/template" --archive off >/dev/null
python3 "$here/archive_gen.py" "$work/template/storqual-result.json" "$runs" "$chunk" "$work/fleets"
files=("$work"/fleets/fleet-*.json)
echo "storqual: $("$storqual" --version); $runs runs in ${#files[@]} fleet files of $chunk; load $(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s.%N; }
median_of() {  # median seconds of 11 runs of a command
  local t=()
  for _ in $(seq 11); do local s; s=$(now); "$@" >/dev/null; t+=("$(echo "$(now) - $s" | bc)"); done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 6p
}

median3_of() {  # median seconds of 3 runs of a command
  local t=()
  for _ in 1 2 3; do local s; s=$(now); "$@" >/dev/null; t+=("$(echo "$(now) - $s" | bc)"); done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 2p
}

printf '%-11s %10s %12s %14s %14s %12s %12s\n' engine records "import/s" "history --serial" "history --tag" "audit --tag" verify
for engine in $engines; do
  case "$engine" in
    sqlite) archive="$work/bench.sqlite" ;;
    postgresql)
      if [ -z "$pgbin" ]; then echo "postgresql: no server binaries, skipped" >&2; continue; fi
      mkdir -p "$work/pg"
      [ "$(id -u)" -eq 0 ] && chown nobody "$work" "$work/pg" && chmod 755 "$work"
      as_pg "'$pgbin/initdb' -D data -U storqual -A trust -E UTF8 >initdb.log 2>&1"
      as_pg "'$pgbin/pg_ctl' -D data -l server.log -w -o \"-c listen_addresses='' -k $work/pg\" start >/dev/null"
      archive="postgresql:///postgres?host=$work/pg&user=storqual" ;;
    *) echo "unknown engine $engine" >&2; exit 2 ;;
  esac
  s=$(now)
  i=0
  for f in "${files[@]}"; do
    "$storqual" archive import "$f" --archive "$archive" --tag "po=$((i % 50))" >/dev/null
    i=$((i + 1))
  done
  import_s=$(echo "$(now) - $s" | bc)
  serial=BENCH$(printf '%06d' $((runs / 8)))
  hs=$(median_of "$storqual" history --serial "$serial" --archive "$archive")
  ht=$(median_of "$storqual" history --tag po=7 --json --archive "$archive")
  at=$(median3_of "$storqual" audit --tag po=7 --archive "$archive" --html "$work/audit.html" --csv "$work/audit.csv")
  s=$(now)
  "$storqual" archive verify --archive "$archive" >"$work/verify.out" || { cat "$work/verify.out"; exit 1; }
  verify_s=$(echo "$(now) - $s" | bc)
  printf '%-11s %10s %12.0f %13.3fs %13.3fs %11.3fs %11.1fs\n' "$engine" "$runs" \
    "$(echo "$runs / $import_s" | bc -l)" "$hs" "$ht" "$at" "$verify_s"
done
echo "load $(cut -d" " -f1-3 /proc/loadavg)"
