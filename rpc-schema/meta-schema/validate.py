#!/usr/bin/env python3
"""Checks an OpenRPC document against the OpenRPC meta-schema, offline.

    python3 rpc-schema/meta-schema/validate.py rpc-schema/openrpc.json

Prints nothing and exits 0 when the document is valid; otherwise prints each problem and exits 1.
Needs Python's jsonschema package (Debian's python3-jsonschema, or pip's); with jsonschema 4.18 or later it uses
the referencing package, with older ones jsonschema's own RefResolver.
"""
import json
import os
import sys

import jsonschema

TOOLS_URIS = ("https://meta.json-schema.tools", "https://meta.json-schema.tools/")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "meta-schema.json")) as file:
    meta = json.load(file)
with open(os.path.join(here, "jst-meta-schema.json")) as file:
    tools = json.load(file)
try:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT7

    registry = Registry().with_resources([(uri, Resource.from_contents(tools, default_specification=DRAFT7)) for uri in TOOLS_URIS])
    validator = jsonschema.Draft7Validator(meta, registry=registry)
except ImportError:
    resolver = jsonschema.RefResolver.from_schema(meta, store={uri: tools for uri in TOOLS_URIS})
    validator = jsonschema.Draft7Validator(meta, resolver=resolver)
with open(sys.argv[1]) as file:
    document = json.load(file)
errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
for error in errors:
    print("/".join(str(part) for part in error.path) or "(document)", ":", error.message)
sys.exit(1 if errors else 0)
