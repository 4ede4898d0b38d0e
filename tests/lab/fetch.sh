#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches what the QEMU lab boots, as Debian packages unpacked under DIR (default build/lab),
# with a private apt configuration (its own sources.list, state and cache under DIR): the
# machine's apt sources and dpkg database are never touched. QEMU 10 comes from
# bookworm-backports (Debian 12's QEMU 7.2 stalls its emulated NVMe); when backports is not
# reachable, Debian 12's QEMU is used and the lab says so. Prints the reason and exits 77 when
# something cannot be fetched.
# Usage: fetch.sh [DIR]
set -euo pipefail
dir=$(realpath -m "${1:-build/lab}")
root=$dir/root
stamp=$dir/fetched
[ -f "$stamp" ] && exit 0
mkdir -p "$dir/apt/state/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$root"
: > "$dir/apt/state/status"
cat > "$dir/apt/sources.list" <<SRC
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-backports main
SRC
apt_opts=(-o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
  -o "Dir::State=$dir/apt/state" -o "Dir::State::status=$dir/apt/state/status"
  -o "Dir::Cache=$dir/apt/cache" -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1
  -o APT::Sandbox::User=root)
if ! apt-get "${apt_opts[@]}" -qq update >"$dir/apt-update.log" 2>&1; then
  echo "lab: apt-get update with the lab's private sources failed (see $dir/apt-update.log)"
  exit 77
fi
qemu_suite=bookworm-backports
policy=$(apt-cache "${apt_opts[@]}" policy qemu-system-x86)
if [[ $policy != *bpo12* ]]; then
  qemu_suite=bookworm
  echo "lab: bookworm-backports has no qemu-system-x86: using Debian 12's QEMU 7.2, whose NVMe stalls"
fi
kernel=$(apt-cache "${apt_opts[@]}" depends linux-image-amd64 | awk '/Depends: linux-image-6/ {print $2; exit}')
pkgs=("qemu-system-x86/$qemu_suite" "qemu-system-common/$qemu_suite" "qemu-system-data/$qemu_suite"
  "seabios/$qemu_suite" libcapstone4 libfdt1 libslirp0 libvdeplug2 libfuse3-3 libaio1 liburing2
  libpmem1 libndctl6 libdaxctl1 libibverbs1 librdmacm1 libnuma1 libjpeg62-turbo libpng16-16
  libpixman-1-0 libbpf1 libgnutls30 libnettle8 libhogweed6 libgmp10 libsasl2-2 libseccomp2
  libzstd1 libglib2.0-0 libgnutls30 libtasn1-6 libp11-kit0 libidn2-0 libunistring2 libffi8
  libpcre2-8-0 libmount1 libblkid1 libselinux1 libnl-3-200 libnl-route-3-200 libkmod2
  busybox-static udev libacl1 libcap2 "$kernel")
rm -rf "$dir/debs" "$root"
mkdir -p "$dir/debs" "$root"
cd "$dir/debs"
if ! apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}" >"$dir/apt-download.log" 2>&1; then
  echo "lab: downloading the lab's packages failed (see $dir/apt-download.log)"
  exit 77
fi
for deb in *.deb; do dpkg-deb -x "$deb" "$root"; done
echo "$qemu_suite $kernel" > "$stamp"
