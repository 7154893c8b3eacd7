#!/usr/bin/env python3
"""Prints NAME=BYTES for each NAME=CUBIN argument: the sum of the cubin's .text.<function>
section sizes (SASS bytes, 16 per instruction), read with readelf as scripts/go-vs-ptxas does."""
import re
import subprocess
import sys

out = []
for arg in sys.argv[1:]:
    name, cubin = arg.split("=", 1)
    sections = subprocess.run(["readelf", "-S", "-W", cubin], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, check=True).stdout
    total = sum(int(m.group(1), 16) for m in
                re.finditer(r"\]\s+\.text\.\S+\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", sections))
    out.append(f"{name}={total}")
print(" ".join(out))
