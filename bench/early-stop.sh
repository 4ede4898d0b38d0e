#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Early stop against the full runtime (see bench/early_stop.py --help). Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if [ $# -eq 0 ]; then
  echo "usage: bench/early-stop.sh zram|loop [--suites quick,sata-ssd] [--rule ci:1%@95] [--size 1g]" >&2
  exit 2
fi
exec "$py" "$here/early_stop.py" "$@"
