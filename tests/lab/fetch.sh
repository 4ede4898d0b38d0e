#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches what the QEMU lab boots, as Debian packages unpacked under DIR (default build/lab; kept
# there for the next run), with a private apt configuration (its own sources.list, state and cache
# under DIR): the machine's apt sources and dpkg database are never touched. The mirror is the one
# this machine's apt sources already use (scripts/apt_mirror.py; STORQUAL_APT_MIRROR overrides it).
# QEMU 10 comes from that mirror's backports suite of the release (Debian 12's QEMU 7.2 stalls its
# emulated NVMe); when the mirror has no backports, the release's QEMU is used and the lab says so.
# Prints what failed and exits 1 when something cannot be fetched: a lab that cannot run fails.
# Usage: fetch.sh [DIR]
set -euo pipefail
dir=$(realpath -m "${1:-build/lab}")
root=$dir/root
stamp=$dir/fetched
here=$(dirname "$(realpath "$0")")
if ! read -r mirror suite < <(python3 "$here/../../scripts/apt_mirror.py"); then
  echo "lab: no Debian mirror in this machine's apt sources to fetch QEMU and the kernel from"
  exit 1
fi
# What an earlier run fetched from the same mirror is used again (the stamp names the mirror).
[ -f "$stamp" ] && [ "$(awk '{print $3}' "$stamp")" = "$mirror" ] && exit 0
rm -f "$stamp"
mkdir -p "$dir/apt/state/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$root"
: > "$dir/apt/state/status"
cat > "$dir/apt/sources.list" <<SRC
deb $mirror $suite main
deb $mirror $suite-backports main
SRC
apt_opts=(-o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o Dir::Etc::sourceparts=/dev/null
  -o "Dir::State=$dir/apt/state" -o "Dir::State::status=$dir/apt/state/status"
  -o "Dir::Cache=$dir/apt/cache" -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1
  -o APT::Sandbox::User=root)
if ! apt-get "${apt_opts[@]}" -qq --error-on=any update >"$dir/apt-update.log" 2>&1; then
  echo "lab: apt-get update from $mirror ($suite, $suite-backports) failed: $(tail -n 3 "$dir/apt-update.log" | tr '\n' ' ')(see $dir/apt-update.log)"
  exit 1
fi
qemu_suite=$suite-backports
policy=$(apt-cache "${apt_opts[@]}" policy qemu-system-x86)
if [[ $policy != *"$suite-backports"* ]]; then
  qemu_suite=$suite
  echo "lab: $mirror has no qemu-system-x86 in $suite-backports: using $suite's QEMU, whose NVMe stalls (7.2)"
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
  echo "lab: downloading the lab's packages from $mirror failed: $(tail -n 3 "$dir/apt-download.log" | tr '\n' ' ')(see $dir/apt-download.log)"
  exit 1
fi
for deb in *.deb; do dpkg-deb -x "$deb" "$root"; done
echo "$qemu_suite $kernel $mirror" > "$stamp"
