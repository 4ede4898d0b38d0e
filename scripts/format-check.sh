#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks (or with --fix, applies) .clang-format on every C++ file of the project.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.cpp' '*.hpp' | grep -v '^build')
[ ${#files[@]} -eq 0 ] && exit 0
if ! command -v clang-format >/dev/null; then
  echo "format-check: clang-format not installed, skipped" >&2; exit 0
fi
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run --Werror "${files[@]}"
  echo "format-check: ${#files[@]} files formatted"
fi
