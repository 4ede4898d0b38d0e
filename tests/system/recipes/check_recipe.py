#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Checks of the recipes in docs/recipes/ for tests/system/recipes_test.cpp, with the models the
# ecosystems publish (run by Debian's /usr/bin/python3):
#   check_recipe.py kubernetes FILE NODE  every document of FILE (with @NODE@ set to NODE) read
#                                         into the typed models of python3-kubernetes: an unknown
#                                         field, a value of the wrong type or a missing required
#                                         field is an error
#   check_recipe.py gitlab-script FILE JOB  prints the job's script, one line each, for bash
#   check_recipe.py github FILE           the workflow against GitHub's documented workflow syntax
#                                         (keys of a workflow, job and step; `uses` or `run`)
# Prints what it checked; exits 1 with the reasons when something is wrong.
import json
import re
import sys

import yaml


def fail(problems):
    for p in problems:
        print("error: " + p)
    sys.exit(1 if problems else 0)


# ---- Kubernetes ----

def check_model(value, type_name, path, problems, client):
    """Walks `value` as the OpenAPI type `type_name` of the kubernetes client."""
    if value is None:
        return
    m = re.fullmatch(r"list\[(.+)\]", type_name)
    if m:
        if not isinstance(value, list):
            problems.append(f"{path}: expected a list")
            return
        for i, item in enumerate(value):
            check_model(item, m.group(1), f"{path}[{i}]", problems, client)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", type_name)
    if m:
        if not isinstance(value, dict):
            problems.append(f"{path}: expected a map")
            return
        for k, item in value.items():
            check_model(item, m.group(1), f"{path}.{k}", problems, client)
        return
    scalar = {"str": str, "int": int, "bool": bool, "float": (int, float)}
    if type_name in scalar:
        if type_name == "int" and isinstance(value, bool) or not isinstance(value, scalar[type_name]):
            problems.append(f"{path}: expected {type_name}, got {type(value).__name__} {value!r}")
        return
    if type_name == "object":
        return
    model = getattr(client, type_name)
    if not isinstance(value, dict):
        problems.append(f"{path}: expected an object ({type_name})")
        return
    by_json = {v: k for k, v in model.attribute_map.items()}
    for key, item in value.items():
        if key not in by_json:
            problems.append(f"{path}.{key}: not a field of {type_name}")
            continue
        check_model(item, model.openapi_types[by_json[key]], f"{path}.{key}", problems, client)


def kubernetes(path, node):
    import kubernetes.client as client
    from kubernetes.client import ApiClient

    text = open(path).read().replace("@NODE@", node)
    api = ApiClient()
    problems = []
    checked = []
    for doc in yaml.safe_load_all(text):
        if doc is None:
            continue
        kind, version = doc.get("kind"), doc.get("apiVersion", "")
        type_name = version.split("/")[-1].capitalize() + str(kind)  # batch/v1 Job -> V1Job
        if not hasattr(client, type_name):
            problems.append(f"{kind} {version}: no such model in python3-kubernetes")
            continue
        before = len(problems)
        check_model(doc, type_name, kind, problems, client)
        if len(problems) == before:
            # The typed constructors refuse a missing required field or a bad enum value.
            class Response:
                data = json.dumps(doc)
            try:
                api.deserialize(Response(), type_name)
            except (ValueError, TypeError) as e:
                problems.append(f"{kind}: {e}")
        checked.append(f"{type_name} {doc.get('metadata', {}).get('name') or doc.get('metadata', {}).get('generateName')}")
    print("checked: " + ", ".join(checked))
    fail(problems)


# ---- GitLab ----

def gitlab_script(path, job):
    doc = yaml.safe_load(open(path))
    for line in doc[job]["script"]:
        print(line)


# ---- GitHub Actions (https://docs.github.com/actions/reference/workflow-syntax-for-github-actions) ----

WORKFLOW_KEYS = {"name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"}
JOB_KEYS = {"name", "permissions", "needs", "if", "runs-on", "environment", "concurrency", "outputs",
            "env", "defaults", "steps", "timeout-minutes", "strategy", "continue-on-error",
            "container", "services", "uses", "with", "secrets"}
STEP_KEYS = {"id", "if", "name", "uses", "run", "working-directory", "shell", "with", "env",
             "continue-on-error", "timeout-minutes"}
EVENTS = {"workflow_dispatch", "schedule", "push", "pull_request", "workflow_call", "release"}
INPUT_KEYS = {"description", "required", "default", "type", "options"}
INPUT_TYPES = {"string", "boolean", "choice", "number", "environment"}


def github(path):
    doc = yaml.safe_load(open(path))
    problems = []
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as "on".
    if True in doc:
        doc["on"] = doc.pop(True)
    for key in doc:
        if key not in WORKFLOW_KEYS:
            problems.append(f"workflow: unknown key {key}")
    for key in ("on", "jobs"):
        if key not in doc:
            problems.append(f"workflow: missing {key}")
    on = doc.get("on") or {}
    for event, spec in on.items():
        if event not in EVENTS:
            problems.append(f"on.{event}: not an event this check knows")
        if event == "workflow_dispatch":
            for name, inp in (spec or {}).get("inputs", {}).items():
                for k in inp:
                    if k not in INPUT_KEYS:
                        problems.append(f"on.workflow_dispatch.inputs.{name}.{k}: unknown key")
                if inp.get("type", "string") not in INPUT_TYPES:
                    problems.append(f"on.workflow_dispatch.inputs.{name}.type: {inp['type']}")
        if event == "schedule":
            for entry in spec:
                if len(str(entry.get("cron", "")).split()) != 5:
                    problems.append("on.schedule: cron needs five fields")
    for job_id, job in doc.get("jobs", {}).items():
        for k in job:
            if k not in JOB_KEYS:
                problems.append(f"jobs.{job_id}.{k}: unknown key")
        if "runs-on" not in job and "uses" not in job:
            problems.append(f"jobs.{job_id}: missing runs-on")
        ids = set()
        for i, step in enumerate(job.get("steps", [])):
            where = f"jobs.{job_id}.steps[{i}]"
            for k in step:
                if k not in STEP_KEYS:
                    problems.append(f"{where}.{k}: unknown key")
            if ("uses" in step) == ("run" in step):
                problems.append(f"{where}: exactly one of uses and run")
            if "id" in step:
                ids.add(step["id"])
        # Every steps.<id>.outputs reference names a step of the job.
        for ref in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", json.dumps(job)):
            if ref not in ids:
                problems.append(f"jobs.{job_id}: reference to an unknown step '{ref}'")
    print(f"checked: workflow '{doc.get('name')}', {len(doc.get('jobs', {}))} job(s)")
    fail(problems)


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "kubernetes":
        kubernetes(sys.argv[2], sys.argv[3])
    elif what == "gitlab-script":
        gitlab_script(sys.argv[2], sys.argv[3])
    elif what == "github":
        github(sys.argv[2])
    else:
        fail([f"unknown check {what}"])
