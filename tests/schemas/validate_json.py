#!/usr/bin/env python3
"""validate_json.py SCHEMA DOCUMENT: validates DOCUMENT (JSON) against SCHEMA with
python3-jsonschema, under the draft SCHEMA's $schema names (SARIF 2.1.0's is draft-04). Prints
"valid" and exits 0, or prints each error (path: message) and exits 1 (tests/schemas/README.md)."""
import json
import sys

import jsonschema


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        document = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(document), key=lambda e: list(e.absolute_path))
    for e in errors:
        print("/" + "/".join(str(p) for p in e.absolute_path) + ": " + e.message)
    if errors:
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
