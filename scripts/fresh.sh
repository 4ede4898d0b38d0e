#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make fresh`: the README's commands on a fresh Debian 12, as root. Makes a root filesystem with
# mmdebstrap (--variant=apt: the Essential packages and apt, plus ca-certificates, make and git),
# from the mirrors of this machine's own apt sources; clones this checkout's HEAD into it (what is
# not committed is not there); mounts proc, sys, dev, dev/pts and a dev/shm inside; runs each step
# (`make demo`, then `make test`) there with chroot, timed; prints the ctest summary line. At exit,
# even on a failure or Ctrl-C, it ends what still runs in the root, unmounts everything under it
# (lazily when busy), detaches the loop devices whose backing file lies in it and removes it.
# Not part of `make test`.
#
# Environment:
#   FRESH_DIR    where the root is made: a new directory storqual-fresh.XXXXXX in it (/var/tmp)
#   FRESH_STEPS  the make targets to run in it, in order ("demo test"; "demo" is the quick proof)
#   FRESH_KEEP   1 keeps the root (its mounts are still undone); its logs are fresh-<step>.log
# Exit code: that of the first step that failed (every step runs), 0 when all held; 2 when the
# root could not be made.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
steps=${FRESH_STEPS:-demo test}
keep=${FRESH_KEEP:-0}
parent=${FRESH_DIR:-/var/tmp}

say() { echo "fresh: $*"; }
die() { echo "fresh: $*" >&2; exit 2; }
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap, mount, chroot)"
for s in $steps; do
  case "$s" in demo | test) ;; *) die "unknown step '$s' in FRESH_STEPS (demo, test)" ;; esac
done

# The host's Debian 12 sources, one "deb URI SUITE COMPONENTS" line each: the one-line format of
# sources.list and sources.list.d/*.list, and the deb822 format of sources.list.d/*.sources.
# Only bookworm and its bookworm-* suites (updates, security, backports) are kept.
host_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -e 's/#.*//' "$f" | awk '$1 == "deb" {
      i = 2
      if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
      line = "deb " $i " " $(i + 1)
      for (j = i + 2; j <= NF; j++) line = line " " $j
      print line
    }'
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # Paragraphs are separated by blank lines; a line that starts with a blank continues a field.
    awk '
      function flush(   n, u, s, nu, ns, a, b) {
        if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no") {
          nu = split(uris, u, " "); ns = split(suites, s, " ")
          for (a = 1; a <= nu; a++) for (b = 1; b <= ns; b++) print "deb " u[a] " " s[b] " " comps
        }
        types = uris = suites = comps = key = ""; enabled = "yes"
      }
      BEGIN { enabled = "yes" }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]/ { val = $0; sub(/^[ \t]+/, "", val); add(key, val); next }
      {
        key = tolower($0); sub(/:.*/, "", key)
        val = $0; sub(/^[^:]*:[ \t]*/, "", val); add(key, val)
      }
      function add(k, v) {
        if (k == "types") types = types " " v
        else if (k == "uris") uris = uris " " v
        else if (k == "suites") suites = suites " " v
        else if (k == "components") comps = comps " " v
        else if (k == "enabled") enabled = v
      }
      END { flush() }' "$f" | sed -e 's/  */ /g' -e 's/ $//'
  done
}

mapfile -t mirrors < <(host_sources | awk '$3 ~ /^bookworm(-[a-z]+)?$/' | sort -u)
[ ${#mirrors[@]} -gt 0 ] || die "no bookworm source in /etc/apt/sources.list{,.d/*.list,.d/*.sources}"

if ! command -v mmdebstrap >/dev/null 2>&1; then
  say "installing mmdebstrap on this machine"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends mmdebstrap
fi

mkdir -p "$parent"
root=$(mktemp -d "$(realpath "$parent")/storqual-fresh.XXXXXX")
[[ $root =~ ^/[A-Za-z0-9._/+-]+$ ]] || { rmdir "$root"; die "the root's path must have no blanks or odd characters: $root"; }

# Mount points under the root, deepest first (the host sees every mount under it).
# shellcheck disable=SC2317
mounts_under_root() {
  awk -v r="$root/" 'index($5, r) == 1 { print $5 }' /proc/self/mountinfo | awk '{ print length, $0 }' |
    sort -rn | cut -d' ' -f2-
}

# shellcheck disable=SC2317  # (run by the EXIT trap)
cleanup() {
  local rc=$? pid m dev file _
  trap - EXIT INT TERM
  set +e
  # What still runs with its root in the chroot (a daemon a package started) holds its mounts.
  for sig in TERM KILL; do
    for pid in /proc/[0-9]*; do
      [ "$(readlink "$pid/root" 2>/dev/null)" = "$root" ] && kill -s "$sig" "${pid#/proc/}" 2>/dev/null
    done
    sleep 1
  done
  for _ in 1 2 3; do
    while read -r m; do
      [ -n "$m" ] && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done < <(mounts_under_root)
  done
  for file in /sys/block/loop*/loop/backing_file; do
    [ -r "$file" ] || continue
    dev=${file#/sys/block/}
    dev=/dev/${dev%%/*}
    case "$(cat "$file" 2>/dev/null)" in
      "$root"/*) say "detaching $dev (its backing file is in the root)"; losetup -d "$dev" ;;
    esac
  done
  if [ -n "$(mounts_under_root)" ]; then
    echo "fresh: still mounted under $root, not removing it:" >&2
    mounts_under_root >&2
    [ "$rc" -eq 0 ] && rc=1
  elif [ "$keep" = 1 ]; then
    say "kept $root (FRESH_KEEP=1)"
  else
    rm -rf --one-file-system "$root"
    say "removed $root"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

commit=$(git -C "$src" rev-parse HEAD)
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
  say "note: uncommitted changes in $src are not in the clone (HEAD ${commit:0:12} is)"
say "root $root; steps: $steps"
say "mirrors (from this machine's apt sources):"
printf '  %s\n' "${mirrors[@]}"

start=$SECONDS
# mmdebstrap wants the directory empty or absent.
mmdebstrap --variant=apt --include=ca-certificates,make,git bookworm "$root" "${mirrors[@]}" ||
  die "mmdebstrap failed"
say "root filesystem made in $(clock $((SECONDS - start)))"
[ -s "$root/etc/resolv.conf" ] || cp -L /etc/resolv.conf "$root/etc/resolv.conf"

git clone -q --no-checkout "$src" "$root/storqual"
git -C "$root/storqual" checkout -q --detach "$commit"
say "cloned $src at ${commit:0:12} into /storqual"

mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --make-private "$root/sys"
mount --bind /dev "$root/dev"
mount --make-private "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount --make-private "$root/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"

first_rc=0
summary=()
for step in $steps; do
  log=$root/fresh-$step.log
  say "make $step (in the chroot; log /fresh-$step.log there)"
  start=$SECONDS
  set +e
  chroot "$root" /usr/bin/env -i HOME=/root USER=root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /storqual && make $step" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  took=$(clock $((SECONDS - start)))
  summary+=("make $step: exit code $rc in $took")
  say "make $step: exit code $rc in $took"
  if [ "$step" = test ]; then
    grep -E '^[0-9]+% tests passed' "$log" | tail -1 | sed 's/^/fresh: ctest: /' || say "ctest: no summary line (the build or configure failed?)"
    sed -n '/^The following tests FAILED:/,$p' "$log"
  fi
  if [ "$rc" -ne 0 ] && [ "$first_rc" -eq 0 ]; then first_rc=$rc; fi
done
# Each step's line again, together, when there were several.
[ ${#summary[@]} -lt 2 ] || printf 'fresh: %s\n' "${summary[@]}"
exit "$first_rc"
