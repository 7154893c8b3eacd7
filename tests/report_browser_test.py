#!/usr/bin/env python3
"""The HTML report (oriopt --report=DIR) in a real browser: the ctest report_browser.

Runs `oriopt --pipeline=ptxas -O3 --report=DIR --print-changed --json INPUT`, loads index.html and
every function page in headless Chromium (`--dump-dom`), and checks from the DOM Chromium built:
  - index.html links every function's page (the functions --print-changed shows at the start);
  - a page holds exactly one <svg> for the function at the start plus one per phase that changed
    it, in the order --print-changed printed them (its "IR Dump After phase N NAME: function F"
    lines of the same run), each under its heading;
  - each drawing has as many block nodes as its caption says the function has blocks;
  - --json's per-phase functionsChanged agree with --print-changed.
Chromium that cannot run or render is a failure, not a skip: scripts/bootstrap installs
chromium-headless-shell (and graphviz, whose dot draws the CFGs).
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time


def fail(msg):
    print(f"report_browser: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def dump_dom(chromium, path, timeout):
    url = "file://" + os.path.abspath(path)
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--dump-dom", url]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"chromium took more than {timeout} s on {path}")
    if p.returncode != 0 or "</html>" not in p.stdout:
        fail(f"chromium could not render {path} (exit {p.returncode}):\n{p.stderr[-2000:]}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oriopt", required=True)
    ap.add_argument("--chromium", default="")
    ap.add_argument("--input", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()

    chromium = a.chromium if a.chromium and os.path.isfile(a.chromium) else shutil.which("chromium-headless-shell")
    if not chromium:
        fail("chromium-headless-shell not found: run scripts/bootstrap (it installs the Debian package)")
    if not os.path.isfile(a.input):
        fail(f"no input {a.input} (the shared corpus)")

    start = time.monotonic()
    report = os.path.join(a.workdir, "report")
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    cmd = [a.oriopt, "--pipeline=ptxas", "-O3", "--report=" + report, "--print-changed", "--json", a.input]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-2000:]}")

    # What --print-changed says: the functions at the start, and per function the phases that
    # changed it, in order.
    functions = re.findall(r"^// \*\*\* IR Dump At Start: function (\S+) \*\*\*$", p.stderr, re.M)
    changed = {f: [] for f in functions}
    for phase, name, fn in re.findall(r"^// \*\*\* IR Dump After phase (\d+) (\S+): function (\S+) \*\*\*$",
                                      p.stderr, re.M):
        changed[fn].append(f"After phase {phase} {name}")
    if not functions:
        fail("--print-changed printed no function")
    if sum(len(v) for v in changed.values()) < 2:
        fail(f"pick an input several phases change: {changed}")
    stats = json.loads(p.stdout)
    by_json = sum(ph["functionsChanged"] for ph in stats["phases"])
    if by_json != sum(len(v) for v in changed.values()):
        fail(f"--json counts {by_json} function changes, --print-changed {sum(len(v) for v in changed.values())}")

    index = dump_dom(chromium, os.path.join(report, "index.html"), a.timeout)
    links = dict((html.unescape(n), href) for href, n in re.findall(r'<a href="([^"]+)">([^<]+)</a>', index))
    for fn in functions:
        if fn not in links:
            fail(f"index.html does not link function {fn}; links: {links}")
        page = os.path.join(report, links[fn])
        if not os.path.isfile(page):
            fail(f"index.html links {links[fn]}, which does not exist")
        dom = dump_dom(chromium, page, a.timeout)
        svgs = dom.count("<svg")
        want = 1 + len(changed[fn])
        if svgs != want:
            fail(f"{fn}: {svgs} <svg> in the rendered page, want {want} (at start + {changed[fn]})")
        headings = re.findall(r"<h2>([^<]+)</h2>", dom)
        if headings != ["At start"] + changed[fn]:
            fail(f"{fn}: drawings {headings}, --print-changed says {['At start'] + changed[fn]}")
        # Each section: caption "N blocks, ...", then one <svg> with N block nodes.
        for section in re.findall(r"<section id=\"s\d+\">(.*?)</section>", dom, re.S):
            m = re.search(r"<p>(\d+) blocks,", section)
            nodes = len(re.findall(r'<g id="node\d+" class="node[^"]*">', section))
            if not m or section.count("<svg") != 1 or nodes != int(m.group(1)):
                fail(f"{fn}: a drawing with {nodes} nodes for the caption {m.group(0) if m else None}")
        print(f"report_browser: {fn}: {svgs} drawings ({', '.join(['At start'] + changed[fn])})")
    print(f"report_browser: ok ({len(functions)} functions, {time.monotonic() - start:.1f} s)")


if __name__ == "__main__":
    main()
