#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Validates every line of OCP Test & Validation JSONL files against the output artifact schema in
# schema/ (README.md names its source): python3-jsonschema's Draft 2020-12 validator, the schema's
# files resolved by their $id. Also checks what the schema cannot say: sequence numbers counting
# from 0, the schemaVersion artifact first, testRunStart next and testRunEnd last, and a
# testRunEnd (status, result) pair the specification allows.
# Usage: validate.py FILE.jsonl...   Exit 0 when every file is valid; the errors otherwise.
import json
import pathlib
import sys

import jsonschema

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent / "schema"
ALLOWED_ENDS = {("COMPLETE", "PASS"), ("COMPLETE", "FAIL"), ("ERROR", "NOT_APPLICABLE"),
                ("SKIP", "NOT_APPLICABLE")}


def validator():
    store = {}
    for path in SCHEMA_DIR.glob("*.json"):
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    root = store["https://github.com/opencomputeproject/ocp-diag-core/output"]
    resolver = jsonschema.RefResolver.from_schema(root, store=store)
    return jsonschema.Draft202012Validator(root, resolver=resolver,
                                           format_checker=jsonschema.FormatChecker())


def check(path, v):
    errors = []
    lines = pathlib.Path(path).read_text().splitlines()
    if not lines:
        return [f"{path}: empty"]
    for i, line in enumerate(lines):
        try:
            artifact = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"{path}:{i + 1}: not JSON: {e}")
            continue
        for e in v.iter_errors(artifact):
            errors.append(f"{path}:{i + 1}: {e.message} at {list(e.absolute_path)}")
        if artifact.get("sequenceNumber") != i:
            errors.append(f"{path}:{i + 1}: sequenceNumber {artifact.get('sequenceNumber')}")
    first, second, last = (json.loads(lines[k]) for k in (0, min(1, len(lines) - 1), -1))
    if "schemaVersion" not in first:
        errors.append(f"{path}:1: not the schemaVersion artifact")
    if "testRunStart" not in second.get("testRunArtifact", {}):
        errors.append(f"{path}:2: not testRunStart")
    end = last.get("testRunArtifact", {}).get("testRunEnd")
    if end is None:
        errors.append(f"{path}:{len(lines)}: not testRunEnd")
    elif (end.get("status"), end.get("result")) not in ALLOWED_ENDS:
        errors.append(f"{path}:{len(lines)}: status/result {end} not a valid combination")
    return errors


def main():
    v = validator()
    errors = [e for path in sys.argv[1:] for e in check(path, v)]
    for e in errors:
        print(e)
    if not errors:
        print(f"valid: {len(sys.argv) - 1} file(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
