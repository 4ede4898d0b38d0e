#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Imported fio job files run by storqual and by fio on one zram device (bench/fio_jobs_vs_fio.py --help).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/fio_jobs_vs_fio.py" "$@"
