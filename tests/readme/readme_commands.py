#!/usr/bin/env python3
"""Runs every shell command README.md's code blocks show, so that the README stays true.

Usage: tests/readme/readme_commands.py [--build DIR] [--list] [--only TEXT] [--keep]

Each fenced code block of README.md is read as shell: a line whose first word is one of the
project's programs (oriopt, oriverify, orifuzz, make, scripts/...) is a command (a line ending in
a backslash goes on on the next); what follows "#" is a comment; the other lines after a command
are output it shows, and each must appear in the command's standard output (as must the figures
the prose gives for a command: PROSE_OUTPUT). A block with no
command (the Layout) is a listing: every folder it names must exist and every top-level folder
of the repository must be named in it.

Commands run with build/bin first on PATH, in a scratch directory that links to the repository's
top-level entries (so `examples/saxpy.ori` and `scripts/demo` resolve) and holds the files the
README names as placeholders for the reader's own (PLACEHOLDERS below). A command must exit with
status 0. The few that would take minutes run as a bounded variant (BOUNDED below, each with the
reason); a BOUNDED entry whose command the README no longer shows is an error too, so the table
cannot go stale. Exit status: 0 when every command ran as the README says, 1 otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
PROGRAMS = ("oriopt", "oriverify", "orifuzz", "oriopt-campaign", "make", "cmake", "ctest")

# The files the README's commands name in place of the reader's own: the name, and where its
# text comes from (a path in the repository, with replacements).
PLACEHOLDERS = {
    "kernel.ptx": ("examples/dispatch.ptx", {}),  # a switch and nested conditions (make run's)
    "k.ptx": ("examples/dispatch.ptx", {}),
    "big.ptx": ("examples/dispatch.ptx", {}),
    # a loop and a branch; the README's --function k names the kernel
    "kernel.ori": ("examples/reduce.ori", {".entry reduce(": ".entry k("}),
    "k.ori": ("examples/reduce.ori", {".entry reduce(": ".entry k("}),
}
# --profile counts.txt k.ptx: a count for two of examples/dispatch.ptx's blocks.
PROFILE = "_Z8dispatchPKjPii $L__BB0_1 100\n_Z8dispatchPKjPii $L__BB0_2 7\n"

# README command -> (the command run instead, why). Everything else runs as written.
BOUNDED = {
    "make run": (
        "make -n run && bash scripts/demo build",
        "make run builds everything first (the build this test runs from is built already, and a "
        "rebuild from inside ctest would race it): make -n checks the target, then its demo runs "
        "(the saxpy commands it runs after are README commands of their own)"),
    "make test": (
        "make -n test",
        "make test runs this suite (25 minutes) and builds the fuzz targets: a dry run checks the "
        "target"),
    "oriverify": (
        "oriverify --only 'switch.*'",
        "every proof takes minutes: the switch-lowering proofs run (oriverify --only 'lop3.*' is "
        "a README command of its own)"),
    "oriverify --crosscheck": (
        "oriverify --crosscheck --samples 20",
        "10,000 inputs per combination take minutes: 20 per combination"),
    "orifuzz --check cfg-diff --runs 100000 --seed 1 --shard 0/2 --out repro/": (
        "orifuzz --check cfg-diff --runs 400 --seed 1 --shard 0/2 --out repro/",
        "a 100,000-run share takes minutes: 400 runs"),
    "scripts/go-vs-ptxas": (
        "scripts/go-vs-ptxas examples/divide.cu",
        "nvcc and ptxas on every example and corpus source take minutes: one example"),
    "scripts/switch-peers": (
        "scripts/switch-peers --no-jt examples/switches/sw_dense8.cu",
        "four tool chains and a step search per selector on seven kernels take minutes: one "
        "kernel, without the jump-table nvcc build"),
}

# Output a command must print beyond the lines its block shows: the figures README.md's prose
# gives for it. Checked when the tools named are on PATH.
PROSE_OUTPUT = {
    "make run": (["original:     1280 bytes of SASS", "after oriopt: 1152 bytes of SASS"],
                 ["ptxas"]),  # "(1,280 bytes of SASS before, 1,152 after)"
}
# Tools a command needs beside oriopt's own; without one it is skipped, and says so.
REQUIRES = [
    ("| dot ", ["dot"]),
    ("--report=", ["dot"]),
    ("scripts/go-vs-ptxas", ["nvcc", "ptxas", "readelf"]),
    ("scripts/switch-peers", ["nvcc", "ptxas", "clang-14", "llc-14"]),
]


def strip_comment(line):
    """The line without a trailing "# comment" (a # after a blank, outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def blocks(text):
    """The fenced code blocks of a Markdown text: (first line number, [lines]) each."""
    out, cur, indent, start = [], None, "", 0
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"^(\s*)```", line)
        if m and cur is None:
            cur, indent, start = [], m.group(1), n + 1
        elif m and cur is not None:
            out.append((start, cur))
            cur = None
        elif cur is not None:
            cur.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
    return out


def is_command(line):
    word = line.split()[0] if line.split() else ""
    return word in PROGRAMS or (word.startswith("scripts/") and word != "scripts/")


def parse(text):
    """[(line number, command, [output lines])] and [(line number, listing lines)]."""
    commands, listings = [], []
    for start, lines in blocks(text):
        if not any(is_command(strip_comment(l)) for l in lines):
            listings.append((start, lines))
            continue
        i = 0
        while i < len(lines):
            line, n = strip_comment(lines[i]), start + i
            i += 1
            if not line:
                continue
            if not is_command(line):
                if not commands or commands[-1][0] < start:
                    raise SystemExit(f"README.md:{n}: neither a command nor its output: {line}")
                commands[-1][2].append(line.strip())
                continue
            while line.endswith("\\") and i < len(lines):
                line = line[:-1].rstrip() + " " + strip_comment(lines[i]).strip()
                i += 1
            commands.append((n, line, []))
    return commands, listings


def check_listing(start, lines):
    problems, named = [], set()
    for k, line in enumerate(lines):
        m = re.match(r"^(\S+/)\s", line + " ")
        if not m:
            continue
        path = m.group(1)
        named.add(path.split("/")[0])
        if not os.path.isdir(os.path.join(ROOT, path)):
            problems.append(f"README.md:{start + k}: {path} is not a folder of the repository")
    tracked = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True)
    tops = {p.split("/")[0] for p in tracked.stdout.split() if "/" in p}
    if tracked.returncode == 0:
        for top in sorted(tops - named):
            problems.append(f"README.md:{start}: the Layout leaves out {top}/")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--list", action="store_true", help="print the commands and what runs")
    ap.add_argument("--only", help="run only the commands containing this text")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()
    with open(os.path.join(ROOT, "README.md")) as f:
        commands, listings = parse(f.read())
    problems = []
    shown = {c for _, c, _ in commands}
    for stale in sorted(set(BOUNDED) - shown):
        problems.append(f"BOUNDED names a command README.md does not show: {stale}")
    if listings:
        for start, lines in listings:
            problems += check_listing(start, lines)
    if args.list:
        for n, c, out in commands:
            run = BOUNDED.get(c, (c, ""))[0]
            print(f"README.md:{n}: {c}" + (f"\n    runs: {run}" if run != c else ""))
        return 0

    build = os.path.realpath(args.build)
    work = tempfile.mkdtemp(prefix="readme-")
    for entry in os.listdir(ROOT):
        if entry not in (".git", "build") and not entry.startswith("build-"):
            os.symlink(os.path.join(ROOT, entry), os.path.join(work, entry))
    os.symlink(build, os.path.join(work, "build"))
    for name, (src, subs) in PLACEHOLDERS.items():
        with open(os.path.join(ROOT, src)) as f:
            text = f.read()
        for a, b in subs.items():
            text = text.replace(a, b)
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    with open(os.path.join(work, "counts.txt"), "w") as f:
        f.write(PROFILE)
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env["BUILD"] = "build"  # the Makefile's build directory, for make -n
    env.pop("MAKEFLAGS", None)

    total = time.time()
    for n, command, output in commands:
        if args.only and args.only not in command:
            continue
        run, why = BOUNDED.get(command, (command, ""))
        missing = [t for key, tools in REQUIRES if key in run for t in tools
                   if not shutil.which(t, path=env["PATH"])]
        if missing:
            print(f"README.md:{n}: skipped (no {', '.join(missing)} on PATH): {command}")
            continue
        started = time.time()
        r = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=work, env=env,
                           stdin=subprocess.DEVNULL if "<" not in run else None,
                           capture_output=True, text=True)
        took = time.time() - started
        status = "ok" if r.returncode == 0 else f"FAILED (exit status {r.returncode})"
        print(f"README.md:{n}: {status} in {took:.1f} s: {command}" +
              (f"\n    (bounded: {run})" if run != command else ""))
        if r.returncode != 0:
            problems.append(f"README.md:{n}: {command}: exit status {r.returncode}\n"
                            f"{r.stderr[-2000:]}")
        lines, tools = PROSE_OUTPUT.get(command, ([], []))
        if all(shutil.which(t, path=env["PATH"]) for t in tools):
            output = output + lines
        for line in output:
            if line not in r.stdout:
                problems.append(f"README.md:{n}: {command}: the README shows the output line "
                                f"'{line}', which it does not print")
    print(f"{len(commands)} commands in {time.time() - total:.1f} s")
    if args.keep:
        print(f"scratch directory: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("error: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
