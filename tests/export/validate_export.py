#!/usr/bin/python3
"""Exports every template given, in both formats, with the built clusterdeckctl, and validates
each output against its published schema:

  jobset   the JobSet CRD's spec.versions[v1alpha2].schema.openAPIV3Schema, read as JSON Schema
           draft 7 (x-kubernetes-* keys dropped; objects with properties take no other keys, as
           `kubectl apply --validate=strict` would have it)
  compose  the compose-spec JSON schema

usage: validate_export.py CLUSTERDECKCTL SCHEMA_DIR TEMPLATE...
Exit 0 when every export validates, 1 otherwise (each problem on stderr).
Needs python3-jsonschema and python3-yaml (scripts/setup.sh installs them)."""
import copy
import json
import os
import subprocess
import sys

import jsonschema
import yaml


def openapi_to_jsonschema(node):
    if isinstance(node, list):
        return [openapi_to_jsonschema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-"):
            continue
        if key == "nullable":
            continue
        if key == "properties":
            out[key] = {k: openapi_to_jsonschema(v) for k, v in value.items()}
        else:
            out[key] = openapi_to_jsonschema(value)
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    # Structural schemas prune unknown fields; strict validation rejects them: so do we, unless
    # the schema keeps unknown fields or says what other keys may hold.
    if ("properties" in out and "additionalProperties" not in out
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def jobset_schema(schema_dir):
    with open(os.path.join(schema_dir, "jobset.x-k8s.io_jobsets.yaml")) as f:
        crd = yaml.safe_load(f)
    for version in crd["spec"]["versions"]:
        if version["name"] == "v1alpha2":
            schema = openapi_to_jsonschema(version["schema"]["openAPIV3Schema"])
            schema["$schema"] = "http://json-schema.org/draft-07/schema#"
            return schema
    raise SystemExit("validate_export: the CRD has no v1alpha2 version")


def compose_schema(schema_dir):
    with open(os.path.join(schema_dir, "compose-spec.json")) as f:
        return json.load(f)


def problems(validator, document):
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    ctl, schema_dir, templates = sys.argv[1], sys.argv[2], sys.argv[3:]
    validators = {
        "jobset": jsonschema.Draft7Validator(jobset_schema(schema_dir)),
        "compose": jsonschema.Draft7Validator(compose_schema(schema_dir)),
    }
    failures = 0
    checked = 0
    for template in templates:
        for fmt, validator in validators.items():
            what = f"{os.path.basename(template)} --format {fmt}"
            run = subprocess.run([ctl, "export", template, "--format", fmt],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {what}: exit {run.returncode}: {run.stderr.strip()}", file=sys.stderr)
                failures += 1
                continue
            documents = list(yaml.safe_load_all(run.stdout))
            if len(documents) != 1 or not isinstance(documents[0], dict):
                print(f"FAIL {what}: not one YAML mapping", file=sys.stderr)
                failures += 1
                continue
            document = documents[0]
            found = problems(validator, document)
            for e in found:
                path = "/".join(str(p) for p in e.absolute_path)
                print(f"FAIL {what}: {path}: {e.message}", file=sys.stderr)
            failures += bool(found)
            # The schema has teeth: broken copies of the same document do not validate (a value
            # of the wrong type; a key the format does not have).
            for breakage in ("type", "unknown key"):
                broken = copy.deepcopy(document)
                if fmt == "jobset":
                    job = broken["spec"]["replicatedJobs"][0]["template"]["spec"]
                    if breakage == "type":
                        job["parallelism"] = "many"
                    else:
                        job["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
                else:
                    service = next(iter(broken["services"].values()))
                    if breakage == "type":
                        service["hostname"] = ["not", "a", "string"]
                    else:
                        service["mem_limitt"] = "1g"
                if not problems(validator, broken):
                    print(f"FAIL {what}: the schema accepts a copy with a {breakage} broken",
                          file=sys.stderr)
                    failures += 1
            checked += 1
            if not found:
                print(f"ok   {what}")
    print(f"validate_export: {checked} exports checked, {failures} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
