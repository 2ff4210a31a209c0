#!/usr/bin/env python3
"""openapi_check.py DOC OAS_SCHEMA RESPONSES: validate the OpenAPI document
DOC against the OpenAPI 3.0 schema OAS_SCHEMA (Debian's
openapi-specification), then every recorded response in RESPONSES (a JSON
list of {path, method, status, body}) against the schema DOC gives for
its route and status.  Exits 77 without python3-jsonschema."""
import json
import re
import sys
import urllib.parse

try:
    import jsonschema
except ImportError:
    print("SKIP: no python3-jsonschema")
    sys.exit(77)

doc_path, oas_path, resp_path = sys.argv[1:4]
doc = json.load(open(doc_path))
jsonschema.Draft4Validator(json.load(open(oas_path))).validate(doc)


def plain(s):
    """An OpenAPI 3.0 schema object as JSON Schema: nullable is a union."""
    if isinstance(s, list):
        return [plain(x) for x in s]
    if not isinstance(s, dict):
        return s
    s = {k: plain(v) for k, v in s.items()}
    if s.pop("nullable", False):
        return {"anyOf": [s, {"type": "null"}]}
    return s


defs = plain(doc["components"]["schemas"])
routes = []
for tmpl, item in doc["paths"].items():
    rx = "^" + re.sub(r"\\\{[a-z]+\\\}", "[^/]+", re.escape(tmpl)) + "$"
    routes.append((re.compile(rx), item["get"]))


def check(schema, body, where):
    root = {"components": {"schemas": defs}}
    root.update(plain(schema))
    v = jsonschema.Draft7Validator(root)
    errs = sorted(v.iter_errors(body), key=str)
    if errs:
        sys.exit("%s: %s" % (where, errs[0].message[:300]))


n = 0
for r in json.load(open(resp_path)):
    path = urllib.parse.urlsplit(r["path"]).path
    where = "%s %s %d" % (r["method"], r["path"][:80], r["status"])
    op = next((o for rx, o in routes if rx.match(path)), None)
    if op is None:
        # No route: the error every route may give.
        if r["status"] != 404:
            sys.exit("%s: not a documented route" % where)
        check({"$ref": "#/components/schemas/Error"}, r["body"], where)
        n += 1
        continue
    resp = op["responses"].get(str(r["status"]))
    if resp is None:
        sys.exit("%s: status not documented" % where)
    if "content" not in resp:
        if r["body"] is not None:
            sys.exit("%s: a body where none is documented" % where)
        n += 1
        continue
    if r["method"] == "HEAD":
        n += 1
        continue
    check(resp["content"]["application/json"]["schema"], r["body"], where)
    n += 1
print("openapi: the document validates; %d responses match it" % n)
