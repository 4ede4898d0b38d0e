#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# storqual side by side with fio (see bench/vs_fio.py --help). Needs root for loop/zram targets.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if [ $# -eq 0 ]; then
  echo "usage: bench/vs-fio.sh TARGET|loop|zram [--pairs N] [--runtime S] [--cases a,b] [--fidelity] [--memory]" >&2
  exit 2
fi
exec "$py" "$here/vs_fio.py" "$@"
