#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages storqual needs that are missing. As root it installs them with
# apt-get; as another user it names them and stops, since nothing can be installed without root.
# Usage: install-deps.sh build|test|demo
#   build, demo: what configures and builds storqual without the tests (the libraries' -dev packages
#     bring the libraries the binary needs at run time; `make demo` runs it on a scratch file and
#     calls no other program).
#   test: build and what the tests build with and call: GoogleTest, clang-format (format-check),
#     mount and losetup (mount), mkfs.ext4, sfdisk, mkswap, xmllint, yamllint, ansible-playbook,
#     chromium, python3 and its modules, cpack's dpkg-shlibdeps and file, sqlite3, openssl (the
#     archive's signature keys), a PostgreSQL server (the archive's tests start one of their
#     own, docs/archive.md), smartctl (smartmontools: the lab compares ATA SMART with it),
#     skdump (libatasmart-bin) and sg_logs (sg3-utils): the ATA and SCSI page tests decode the
#     same bytes with them; chromium and pdfinfo (poppler-utils): the HTML layout and print tests;
#     fio and fio-examples: fio's parser as the reference; nbdkit and nbdkit-plugin-dev (its filter
#     header): the power-cut lab's devices. A root filesystem made with only the Essential
#     packages (mmdebstrap --variant=apt) lacks mount and fdisk. Nothing here is best effort: a
#     test whose tool is missing fails naming it (tests/expected-skips lists the only skips).
set -euo pipefail
what=${1:-build}

build_pkgs=(build-essential cmake ninja-build pkg-config git
  liburing-dev libaio-dev libnvme-dev libjson-c-dev libssl-dev libblkid-dev libmount-dev libudev-dev libxxhash-dev libisal-dev
  libboost-program-options-dev libpugixml-dev nlohmann-json3-dev libsqlite3-dev libpq-dev)
test_pkgs=(googletest libgtest-dev libgmock-dev file clang clang-format libclang-rt-dev
  fio fio-examples util-linux mount fdisk e2fsprogs libxml2-utils python3 python3-junitparser python3-jsonschema python3-pil chromium poppler-utils dpkg-dev
  ccache ansible-core yamllint python3-yaml python3-kubernetes sqlite3 openssl postgresql
  smartmontools libatasmart-bin sg3-utils nbdkit nbdkit-plugin-dev kmod)

pkgs=("${build_pkgs[@]}")
case "$what" in
  test) pkgs+=("${test_pkgs[@]}") ;;
  demo|build) ;;
  *) echo "install-deps.sh: unknown set '$what' (build, test, demo)" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done
# The tests' zram devices need the module loaded, not assumed (as root, after kmod, which has
# modprobe, is installed; a kernel without it is said here, and the tests that need zram fail
# saying so too).
load_zram() {
  if [ "$what" = test ] && [ "$(id -u)" -eq 0 ] && [ ! -e /sys/class/zram-control/hot_add ]; then
    modprobe zram num_devices=0 2>/dev/null ||
      echo "storqual: the kernel has no zram module (modprobe zram failed): the zram tests will fail" >&2
  fi
  return 0
}
if [ ${#missing[@]} -eq 0 ]; then load_zram; exit 0; fi

if [ "$(id -u)" -ne 0 ]; then
  echo "storqual: missing Debian packages: ${missing[*]}" >&2
  echo "storqual: run 'make $what' once as root, or: sudo apt-get install ${missing[*]}" >&2
  # The build packages are required; without the test extras the tests that need them fail,
  # naming what is missing.
  for p in "${missing[@]}"; do
    for b in "${build_pkgs[@]}"; do [ "$p" = "$b" ] && exit 1; done
  done
  exit 0
fi

echo "storqual: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
load_zram
