"""Reads oriopt's .ori output on standard input and fails (exit 1) if an instruction stayed
OPAQUE, listing each mnemonic and how often; mnemonics matching --allow (a regular
expression, the whole mnemonic) are counted apart and allowed."""
import argparse
import collections
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--allow", default="(?!)")
args = ap.parse_args()
allow = re.compile(args.allow)
seen, allowed = collections.Counter(), collections.Counter()
for line in sys.stdin:
    m = re.search(r'OPAQUE "([^ "]+)', line)
    if m:
        (allowed if allow.fullmatch(m.group(1)) else seen)[m.group(1)] += 1
for name, n in sorted(allowed.items()):
    print(f"allowed OPAQUE {name}: {n}")
for name, n in sorted(seen.items()):
    print(f"OPAQUE {name}: {n}")
print(f"not native: {sum(seen.values())}")
sys.exit(1 if seen else 0)
