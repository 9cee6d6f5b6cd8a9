#!/usr/bin/env python3
"""JSON Schema checks for Tally's contract tests, run by ContractTests with `python3 validate.py`.

Reads one job as JSON on standard input:

    {
      "schemas": "/abs/path/to/schemas",
      "check_schemas": true,
      "items": [
        {"label": "docs line 12", "schema": "envelope.json", "instance": {...}},
        {"label": "live reply", "schema": "reply.json", "text": "<raw JSON>", "wire_order": true}
      ]
    }

and prints one JSON object on standard output:

    {
      "schema_files": ["commands/mmi.service.args.json", ...],
      "schema_problems": ["reply.json: ...", ...],
      "results": [{"label": "...", "errors": ["..."]}, ...]
    }

Every schema file under `schemas` is loaded into one `referencing.Registry` under its `$id`, so
`$ref`s between files resolve by `$id` (never over the network). With `check_schemas`, each file
is checked against the draft 2020-12 metaschema, its `$schema` and `$id` are checked against its
path, and every `$ref` in it must resolve. Each item is validated against the schema file at
`schema` (a path relative to `schemas`); an item may give raw JSON `text` instead of a parsed
`instance`, and with `wire_order` the text's key order is checked as Tally writes replies: `id`,
`ok`, then `result` or `error` at the top, and sorted keys in every object below.

Exit status: 0 when the job ran (whatever it found), 2 when it could not run; then the output is
{"fatal": "..."}.
"""

import json
import os
import sys
from urllib.parse import urljoin, urldefrag

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_PREFIX = "https://tally.example/schemas/"


def fatal(message):
    print(json.dumps({"fatal": message}))
    sys.exit(2)


try:
    import jsonschema
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012
except ImportError as error:  # pragma: no cover - depends on the machine
    fatal(f"the Python package jsonschema (with referencing) is missing ({error}); install it with: pip install jsonschema")


def load_schemas(directory):
    """Every *.json under `directory`, by path relative to it (with / separators)."""
    schemas, problems = {}, []
    for root, _, files in os.walk(directory):
        for name in files:
            if not name.endswith(".json"):
                continue
            path = os.path.join(root, name)
            relative = os.path.relpath(path, directory).replace(os.sep, "/")
            try:
                with open(path, encoding="utf-8") as handle:
                    schemas[relative] = json.load(handle)
            except (OSError, ValueError) as error:
                problems.append(f"{relative}: not readable JSON: {error}")
    return dict(sorted(schemas.items())), problems


def build_registry(schemas):
    resources = []
    for relative, contents in schemas.items():
        if isinstance(contents, dict):
            uri = contents.get("$id", ID_PREFIX + relative)
            resources.append((uri, Resource.from_contents(contents, default_specification=DRAFT202012)))
    return Registry().with_resources(resources)


# Keywords whose values are data, not subschemas: a "$ref" key inside them is not a reference.
DATA_KEYWORDS = {"const", "enum", "examples", "default"}


def references(node, base, found):
    """Every ($ref value, base URI it resolves against) in a schema, following nested $ids."""
    if isinstance(node, dict):
        if isinstance(node.get("$id"), str):
            base = urljoin(base, node["$id"])
        for key in ("$ref", "$dynamicRef"):
            if isinstance(node.get(key), str):
                found.append((node[key], base))
        for key, value in node.items():
            if key not in DATA_KEYWORDS:
                references(value, base, found)
    elif isinstance(node, list):
        for value in node:
            references(value, base, found)
    return found


def check_schema_files(schemas, registry):
    problems = []
    for relative, contents in schemas.items():
        if not isinstance(contents, dict):
            problems.append(f"{relative}: a schema file must hold a JSON object")
            continue
        if contents.get("$schema") != SCHEMA_DIALECT:
            problems.append(f"{relative}: $schema must be {SCHEMA_DIALECT}, not {contents.get('$schema')!r}")
        if contents.get("$id") != ID_PREFIX + relative:
            problems.append(f"{relative}: $id must be {ID_PREFIX + relative}, not {contents.get('$id')!r}")
        try:
            Draft202012Validator.check_schema(contents)
        except jsonschema.exceptions.SchemaError as error:
            problems.append(f"{relative}: not a valid draft 2020-12 schema: {error.message} (at /{'/'.join(map(str, error.absolute_path))})")
        base = contents.get("$id", ID_PREFIX + relative)
        for ref, ref_base in references(contents, base, []):
            try:
                registry.resolver(base_uri=ref_base).lookup(ref)
            except Unresolvable as error:
                problems.append(f"{relative}: $ref {ref!r} (against {ref_base}) does not resolve ({type(error).__name__})")
    return problems


class OrderProblem(Exception):
    pass


def check_wire_order(text):
    """Checks key order as Tally writes a reply; returns a problem, or None."""

    def pairs(items):
        return ("object", items)

    try:
        parsed = json.loads(text, object_pairs_hook=pairs)
    except ValueError as error:
        return f"not JSON: {error}"

    def nested(node, path):
        if isinstance(node, tuple) and node[0] == "object":
            keys = [key for key, _ in node[1]]
            if keys != sorted(keys):
                raise OrderProblem(f"keys of {path or 'the object'} are not sorted: {keys}")
            for key, value in node[1]:
                nested(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                nested(value, f"{path}[{index}]")

    if not (isinstance(parsed, tuple) and parsed[0] == "object"):
        return "a reply is a JSON object"
    keys = [key for key, _ in parsed[1]]
    expected = (["id"] if "id" in keys else []) + ["ok"] + [key for key in keys if key in ("result", "error")][:1]
    if keys != expected:
        return f"top-level keys must come in the order id, ok, result|error; got {keys}"
    try:
        for key, value in parsed[1]:
            nested(value, key)
    except OrderProblem as problem:
        return str(problem)
    return None


def describe(error):
    where = "/" + "/".join(map(str, error.absolute_path))
    text = f"at {where}: {error.message}"
    if error.context:
        # oneOf/anyOf: say why the branch that came closest (fewest errors) failed.
        branches = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        closest = min(branches.values(), key=len)
        text += " (closest branch: " + "; ".join(describe(sub) for sub in closest) + ")"
    return text


def validate_items(items, schemas, registry):
    validators, results = {}, []
    for item in items:
        label, errors = item.get("label", ""), []
        schema_path = item.get("schema")
        if "text" in item:
            try:
                instance = json.loads(item["text"])
            except ValueError as error:
                results.append({"label": label, "errors": [f"not JSON: {error}"]})
                continue
            if item.get("wire_order"):
                problem = check_wire_order(item["text"])
                if problem:
                    errors.append(f"wire format: {problem}")
        else:
            instance = item.get("instance")
        if schema_path not in schemas:
            errors.append(f"there is no schema file schemas/{schema_path}")
        else:
            if schema_path not in validators:
                validators[schema_path] = Draft202012Validator(schemas[schema_path], registry=registry)
            try:
                errors += [describe(error) for error in sorted(
                    validators[schema_path].iter_errors(instance), key=lambda error: list(map(str, error.absolute_path)))]
            except Unresolvable as error:
                errors.append(f"a $ref in schemas/{schema_path} does not resolve ({type(error).__name__}: {getattr(error, 'ref', '')})")
        results.append({"label": label, "errors": errors})
    return results


def main():
    try:
        job = json.load(sys.stdin)
    except ValueError as error:
        fatal(f"the job on standard input is not JSON: {error}")
    directory = job.get("schemas")
    if not directory or not os.path.isdir(directory):
        fatal(f"no schemas directory at {directory!r}")
    schemas, problems = load_schemas(directory)
    registry = build_registry(schemas)
    if job.get("check_schemas"):
        problems += check_schema_files(schemas, registry)
    output = {
        "schema_files": list(schemas),
        "schema_problems": problems,
        "results": validate_items(job.get("items", []), schemas, registry),
    }
    print(json.dumps(output))


if __name__ == "__main__":
    main()
