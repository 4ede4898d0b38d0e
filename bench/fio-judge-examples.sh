#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fio JSON of the example sheets judged as storqual judges its own runs (bench/fio_judge_examples.py --help).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/fio_judge_examples.py" "$@"
