#!/usr/bin/env python3
"""Tests of oriopt-campaign (docs/campaigns.md), run by ctest (label campaign).

  campaign_test.py local TOOL WORKDIR CORPUS   no Slurm: split vs single, missing shards,
                                               bad input
  campaign_test.py slurm TOOL WORKDIR CORPUS   a one-node Slurm cluster (tests/cluster/
                                               slurm-one-node) runs the campaigns; exit 77
                                               (skipped, said loudly) without slurm-wlm/munge

Expected results are not pasted from a run: the equality is between the same campaign split
in 4 and run as one process, the failing runs of selftest-fail-on-loop are those whose
function has a natural loop (non-empty is asserted, so the equality is not vacuous), and each
bad input must give exit status 1 with the message named here.
"""
import json
import os
import shutil
import subprocess
import sys
import time

MODE, TOOL, WORK, CORPUS = sys.argv[1:5]
HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = "cfg-diff,selftest-fail-on-loop"
RUNS = "400"
# Six small corpus files whose verification is decided well inside the short bounds.
FILES = ("zluda_spirv_run_bra.ptx,nvcc13_gpuocelot_TestSplitMerge.ptx,zluda_spirv_run_call.ptx,"
         "nvcc13_gpuocelot_globals_global.ptx,zluda_spirv_run_vote_all.ptx,nvcc13_cuassembler_cutest.ptx")
VERIFY = ["--corpus", CORPUS, "--files", FILES, "--budget", "30", "--timeout", "20", "--file-timeout", "120"]
failed = []


def run(*args, expect=0, contains=None, env=None):
    r = subprocess.run([TOOL, *args], capture_output=True, text=True, env=env)
    ok = r.returncode == expect and (contains is None or contains in r.stdout + r.stderr)
    print(f"{'ok  ' if ok else 'FAIL'} oriopt-campaign {' '.join(args)} -> {r.returncode}")
    if not ok:
        print(f"  expected exit {expect}" + (f" and {contains!r}" if contains else "") + f"\n{r.stdout}{r.stderr}")
        failed.append(" ".join(args))
    return r


def report(d):
    with open(os.path.join(d, "report.json")) as f:
        return json.load(f)


def assert_true(cond, what):
    print(f"{'ok  ' if cond else 'FAIL'} {what}")
    if not cond:
        failed.append(what)


def single_process(d):
    """The reference: the same campaigns as one process each, here."""
    run("submit", "--local", "--check", CHECKS, "--runs", RUNS, "--shards", "1", f"{d}/fuzz-1")
    run("submit", "--local", *VERIFY, "--shards", "1", f"{d}/verify-1")


def check_split(d, suffix):
    run("collect", f"{d}/fuzz-{suffix}", contains="complete")
    rep = report(f"{d}/fuzz-{suffix}")
    loops = rep["checks"]["selftest-fail-on-loop"]["failures"]
    assert_true(rep["complete"] and len(loops) > 0 and rep["checks"]["cfg-diff"]["failures"] == [],
                f"fuzz-{suffix}: complete, selftest-fail-on-loop fails on some runs ({len(loops)}), cfg-diff on none")
    assert_true(all(os.path.exists(x["reproducer"]) and "--replay" in x["replay"] for x in loops),
                f"fuzz-{suffix}: every failure has a reproducer file and a replay command")
    run("compare", f"{d}/fuzz-1", f"{d}/fuzz-{suffix}", contains="the same results")
    run("collect", f"{d}/verify-{suffix}", contains="complete")
    rep = report(f"{d}/verify-{suffix}")
    assert_true(rep["complete"] and len(rep["files"]) == 6 and rep["verdicts"]["proved"] > 0,
                f"verify-{suffix}: six files verified, some functions proved")
    with open(f"{d}/verify-{suffix}/report.sarif") as f:
        sarif = json.load(f)
    assert_true(sarif["version"] == "2.1.0" and len(sarif["runs"]) == 1, f"verify-{suffix}: report.sarif is SARIF 2.1.0")
    run("compare", f"{d}/verify-1", f"{d}/verify-{suffix}", contains="the same results")


def local(d):
    single_process(d)
    run("submit", "--local", "--jobs", "2", "--check", CHECKS, "--runs", RUNS, "--shards", "4", f"{d}/fuzz-4")
    run("submit", "--local", "--jobs", "2", *VERIFY, "--shards", "4", f"{d}/verify-4")
    check_split(d, "4")
    # A task that died leaves no result: its shard is reported missing, never pretended.
    os.rename(f"{d}/fuzz-4/results/task-5.json", f"{d}/task-5.json")
    run("collect", f"{d}/fuzz-4", contains="INCOMPLETE")
    rep = report(f"{d}/fuzz-4")
    assert_true(not rep["complete"] and rep["checks"]["selftest-fail-on-loop"]["missing_shards"] == [1],
                "a lost task is reported as selftest-fail-on-loop shard 1 missing")
    run("compare", f"{d}/fuzz-1", f"{d}/fuzz-4", expect=1, contains="incomplete")
    run("resubmit", f"{d}/fuzz-4", contains="reran 1 tasks")
    run("compare", f"{d}/fuzz-1", f"{d}/fuzz-4", contains="the same results")
    # A tool that crashes: the task is failed, its shard missing, the crash kept in the report.
    fake = f"{d}/crashing-bin"
    os.makedirs(fake)
    with open(f"{fake}/orifuzz", "w") as f:
        f.write('#!/bin/sh\n# --runs 0 validates the check; any real run crashes\n'
                'case " $* " in *" --runs 0 "*) exit 0;; esac\n'
                'echo "orifuzz: crashed in run 7; reproduce it alone with --replay RUN" >&2\nkill -SEGV $$\n')
    os.chmod(f"{fake}/orifuzz", 0o755)
    run("submit", "--local", "--bin", fake, "--check", "cfg-diff", "--runs", "20", "--shards", "2", f"{d}/crash")
    run("status", f"{d}/crash", contains="2 failed")
    run("collect", f"{d}/crash", contains="INCOMPLETE")
    rep = report(f"{d}/crash")
    assert_true(rep["checks"]["cfg-diff"]["missing_shards"] == [0, 1] and rep["checks"]["cfg-diff"]["crashes"] == [7, 7],
                "a crashing tool leaves its shards missing and the crashing run in the report")
    # Results of another campaign copied in.
    shutil.copy(f"{d}/verify-4/results/task-0.json", f"{d}/fuzz-4/results/task-0.json")
    run("collect", f"{d}/fuzz-4", expect=1, contains="belongs to campaign")
    # Bad input.
    run("submit", "--local", "--check", "no-such-check", f"{d}/bad1", expect=1, contains="no such check")
    run("submit", "--local", "--corpus", f"{d}/no-such-dir", f"{d}/bad2", expect=1, contains="no such directory")
    run("submit", "--local", "--check", "cfg-diff", f"{d}/fuzz-1", expect=1, contains="already holds campaign")
    run("submit", "--local", "--check", "cfg-diff", "--runs", "many", f"{d}/bad4", expect=1, contains="invalid int")
    run("status", f"{d}/no-such-dir", expect=1, contains="no such results directory")
    run("status", CORPUS, expect=1, contains="not a campaign's results directory")
    run("compare", f"{d}/fuzz-1", f"{d}/verify-1", expect=1, contains="not the same campaign")
    env = dict(os.environ, SLURM_CONF=f"{d}/no-such-slurm.conf")
    run("submit", "--check", "cfg-diff", f"{d}/bad3", expect=1, contains="Slurm", env=env)
    assert_true(not os.path.exists(f"{d}/bad1") and not os.path.exists(f"{d}/bad3"),
                "a refused submission leaves no results directory")


def slurm(d):
    cluster = f"{d}/cluster"
    r = subprocess.run([f"{HERE}/slurm-one-node", "start", cluster], capture_output=True, text=True)
    if r.returncode == 77:
        print(f"campaign_test: SKIPPED: {r.stderr.strip()}")
        sys.exit(77)
    if r.returncode != 0:
        # Installed but not startable here (a sandbox without daemons, say): skipped, loudly, with
        # the daemons' logs; ORIOPT_REQUIRE_SLURM=1 makes it a failure (where Slurm must work).
        print(f"campaign_test: the one-node cluster did not start:\n{r.stdout}{r.stderr}")
        subprocess.run([f"{HERE}/slurm-one-node", "stop", cluster])
        if os.environ.get("ORIOPT_REQUIRE_SLURM") == "1":
            sys.exit(1)
        print("campaign_test: SKIPPED: Slurm is installed but its daemons did not start here")
        sys.exit(77)
    os.environ["SLURM_CONF"] = r.stdout.strip().split("=", 1)[1]
    try:
        run("submit", "--check", CHECKS, "--runs", RUNS, "--shards", "4", "--throttle", "2", f"{d}/fuzz-4")
        run("submit", *VERIFY, "--shards", "4", "--throttle", "2", f"{d}/verify-4")
        # A task cancelled before it ran is missing; resubmit runs it (held, so that it is cancelled
        # while still pending).
        run("submit", "--check", "cfg-diff", "--runs", RUNS, "--shards", "2", "--sbatch-arg=--hold", f"{d}/held")
        with open(f"{d}/held/campaign.json") as f:
            job = json.load(f)["jobs"][0]
        subprocess.run(["scancel", f"{job}_1"], check=True)
        subprocess.run(["scontrol", "release", job], check=True)
        single_process(d)  # while the cluster works
        for c in ("fuzz-4", "verify-4", "held"):
            run("wait", "--timeout", "150", "--poll", "1", f"{d}/{c}")
        check_split(d, "4")
        run("collect", f"{d}/held", contains="INCOMPLETE")
        assert_true(report(f"{d}/held")["checks"]["cfg-diff"]["missing_shards"] == [1],
                    "the cancelled task is reported as cfg-diff shard 1 missing")
        run("resubmit", f"{d}/held", contains="resubmitted 1 tasks")
        run("wait", "--timeout", "60", "--poll", "1", f"{d}/held")
        run("collect", f"{d}/held", contains="complete")
        assert_true(report(f"{d}/held")["complete"], "after resubmit the campaign is complete")
        run("status", f"{d}/fuzz-4", contains="8 done")
    finally:
        subprocess.run([f"{HERE}/slurm-one-node", "stop", cluster])
    run("submit", "--check", "cfg-diff", f"{d}/after-stop", expect=1, contains="no Slurm controller answers")


if __name__ == "__main__":
    if not os.path.isdir(CORPUS):
        print(f"campaign_test: SKIPPED: no corpus at {CORPUS}")
        sys.exit(77)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    start = time.time()
    (local if MODE == "local" else slurm)(WORK)
    print(f"campaign_test {MODE}: {len(failed)} failures, {time.time() - start:.1f} s")
    sys.exit(1 if failed else 0)
