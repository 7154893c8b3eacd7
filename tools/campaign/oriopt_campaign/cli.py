"""oriopt-campaign: random testing and corpus verification as Slurm job arrays
(docs/campaigns.md). Exit status 0 on success, 1 on bad input or a failed command.
"""

import argparse
import concurrent.futures
import fnmatch
import os
import subprocess
import sys
import tempfile
import time

from . import report, slurm
from .spec import CampaignError, create_dir, load_spec, new_spec, task_count, write_json, campaign_path
from .task import run_task

TOOL = os.path.abspath(sys.argv[0])
EXAMPLES = """examples:
  oriopt-campaign submit --check cfg-diff,liveness-diff --runs 1000000 --shards 64 --throttle 32 \\
      --partition short --time 2:00:00 DIR
  oriopt-campaign submit --corpus ../shared/corpus/ptx --shards 16 --budget 60 DIR
  oriopt-campaign status DIR           tasks pending/running/done/failed/missing, runs so far
  oriopt-campaign wait --timeout 600 DIR
  oriopt-campaign collect DIR          DIR/report.json and DIR/report.sarif
  oriopt-campaign resubmit DIR         rerun the tasks that failed or are missing
  oriopt-campaign compare DIR1 DIR2    same failures / verdicts however split (exit 1 if not)
"""


def default_bin():
    here = os.path.dirname(TOOL)
    if os.path.exists(os.path.join(here, "orifuzz")):
        return here  # the copy CMake puts in build/bin
    if os.environ.get("ORIOPT_BIN"):
        return os.environ["ORIOPT_BIN"]
    return os.path.join(os.path.dirname(os.path.dirname(here)), "build", "bin")


def _check_bin(bin_dir, tool):
    p = os.path.join(bin_dir, tool)
    if not os.access(p, os.X_OK):
        raise CampaignError(f"{p}: not found (build it, or give --bin DIR)")
    return p


def _validate_checks(bin_dir, checks):
    orifuzz = _check_bin(bin_dir, "orifuzz")
    if not checks:
        raise CampaignError("--check: give at least one check (see orifuzz --list-checks)")
    with tempfile.TemporaryDirectory() as tmp:
        for c in checks:
            if c == "cuda-host-diff":
                raise CampaignError("--check cuda-host-diff: not a campaign check (it batches nvcc calls and writes "
                                    "no --report; see scripts/cuda-host-diff-campaign)")
            r = subprocess.run([orifuzz, "--check", c, "--runs", "0", "--out", tmp], capture_output=True, text=True)
            if r.returncode != 0:
                raise CampaignError(r.stderr.strip().removeprefix("orifuzz: error: ") or f"--check {c}: orifuzz exit {r.returncode}")


def _corpus_files(corpus, pattern, names):
    if not os.path.isdir(corpus):
        raise CampaignError(f"--corpus {corpus}: no such directory")
    all_files = sorted(f for f in os.listdir(corpus)
                       if fnmatch.fnmatch(f, pattern) and os.path.isfile(os.path.join(corpus, f)))
    if names:
        unknown = [n for n in names if n not in all_files]
        if unknown:
            raise CampaignError(f"--files: not in {corpus}: {', '.join(unknown)}")
        all_files = sorted(names)
    if not all_files:
        raise CampaignError(f"--corpus {corpus}: no file matches {pattern}")
    return all_files


def _run_local(d, indices, jobs):
    def one(t):
        return subprocess.run([sys.executable, TOOL, "run-task", d, str(t)]).returncode
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, indices))


def cmd_submit(a):
    bin_dir = os.path.abspath(a.bin or default_bin())
    if a.corpus and a.check:
        raise CampaignError("give --check (random testing) or --corpus (verification), not both")
    if a.corpus:
        _check_bin(bin_dir, "oriopt")
        corpus = os.path.abspath(a.corpus)
        files = _corpus_files(corpus, a.pattern, [x for x in (a.files or "").split(",") if x])
        spec = new_spec("verify", a.shards, bin_dir,
                        verify={"corpus": corpus, "files": files, "budget": a.budget, "timeout": a.timeout,
                                "file_timeout": a.file_timeout, "extra": a.oriopt_arg or []})
    elif a.check:
        checks = [c for c in a.check.split(",") if c]
        if len(set(checks)) != len(checks):
            raise CampaignError(f"--check {a.check}: a check is named twice")
        _validate_checks(bin_dir, checks)
        if a.runs < 1:
            raise CampaignError(f"--runs {a.runs}: expected at least 1")
        spec = new_spec("fuzz", a.shards, bin_dir, fuzz={"checks": checks, "runs": a.runs, "seed": a.seed,
                                                         "size": a.size})
    else:
        raise CampaignError("give --check NAMES (random testing) or --corpus DIR (verification)")
    spec["local"] = a.local
    spec["slurm"] = {"partition": a.partition, "time": a.time, "throttle": a.throttle, "extra": a.sbatch_arg or []}
    if not a.local:
        slurm.check_controller()  # before anything is written
    create_dir(a.dir, spec)
    indices = list(range(task_count(spec)))
    if a.local:
        _run_local(a.dir, indices, a.jobs)
        print(f"oriopt-campaign: ran {len(indices)} tasks here into {a.dir}")
        return 0
    job = slurm.submit(a.dir, spec, indices, TOOL, a.throttle, a.partition, a.time, a.sbatch_arg or [])
    spec["jobs"].append(job)
    write_json(campaign_path(a.dir), spec)
    print(f"oriopt-campaign: submitted job {job}: {len(indices)} tasks into {a.dir}")
    return 0


def cmd_resubmit(a):
    spec = load_spec(a.dir)
    todo = [t for t, s, _ in report.task_states(a.dir, spec) if s in ("failed", "missing")]
    if not todo:
        print("oriopt-campaign: nothing to resubmit")
        return 0
    for t in todo:
        for p in (os.path.join(a.dir, "results", f"task-{t}.json"),):
            if os.path.exists(p):
                os.replace(p, p + f".replaced-{int(time.time())}")
    if spec.get("local"):
        _run_local(a.dir, todo, a.jobs)
        print(f"oriopt-campaign: reran {len(todo)} tasks here")
        return 0
    s = spec["slurm"]
    # The first submission's sbatch arguments, but not those that would keep the rerun waiting.
    extra = [x for x in s["extra"] if not x.startswith(("--hold", "--begin", "-H"))]
    job = slurm.submit(a.dir, spec, todo, TOOL, s["throttle"], s["partition"], s["time"], extra)
    spec["jobs"].append(job)
    write_json(campaign_path(a.dir), spec)
    print(f"oriopt-campaign: resubmitted {len(todo)} tasks as job {job}: {slurm.array_ranges(todo)}")
    return 0


def cmd_wait(a):
    spec = load_spec(a.dir)
    deadline = time.time() + a.timeout
    while True:
        states = [s for _, s, _ in report.task_states(a.dir, spec)]
        if not any(s in ("pending", "running") for s in states):
            report.status(a.dir)
            return 0
        if time.time() >= deadline:
            report.status(a.dir)
            raise CampaignError(f"{a.dir}: still {states.count('pending')} pending and {states.count('running')} "
                                f"running after {a.timeout} s")
        time.sleep(a.poll)


def cmd_compare(a):
    diffs = report.compare(a.dir1, a.dir2)
    for x in diffs:
        print(f"DIFFERENT {x}")
    print(f"oriopt-campaign: {a.dir1} and {a.dir2}: " + ("the same results" if not diffs else f"{len(diffs)} differences"))
    return 1 if diffs else 0


def _version():
    """The version of the oriopt next to this tool (build/bin), which the campaigns run."""
    try:
        out = subprocess.run([os.path.join(default_bin(), "oriopt"), "--version"], capture_output=True,
                             text=True, timeout=30).stdout.split()
        return out[1] if len(out) >= 2 and out[0] == "oriopt" else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown (no oriopt next to it)"


class _VersionAction(argparse.Action):
    """--version, asking oriopt only when it is given."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"oriopt-campaign {_version()}")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 1 like every other bad input (argparse's own status is 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"oriopt-campaign: error: {message}\n")


def parser():
    p = _Parser(prog="oriopt-campaign", description=__doc__, epilog=EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction,
                   help="print the version (that of the oriopt it runs) and exit")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("submit", help="submit a campaign as one Slurm job array (or run it here with --local)")
    s.add_argument("dir", help="results directory (new or empty)")
    s.add_argument("--check", help="random testing: comma-separated orifuzz checks")
    s.add_argument("--runs", type=int, default=1000, help="runs per check (default 1000)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--size", type=int, default=100, help="orifuzz --size (default 100)")
    s.add_argument("--corpus", help="verification: directory of PTX files")
    s.add_argument("--pattern", default="*.ptx", help="files of --corpus (default *.ptx)")
    s.add_argument("--files", help="only these files of --corpus, comma-separated")
    s.add_argument("--budget", type=int, default=60, help="oriopt --verify-budget (default 60)")
    s.add_argument("--timeout", type=int, default=30, help="oriopt --verify-timeout (default 30)")
    s.add_argument("--file-timeout", type=int, default=3600, help="seconds per file (default 3600)")
    s.add_argument("--oriopt-arg", action="append", help="extra oriopt argument (repeatable)")
    s.add_argument("--shards", type=int, default=4, help="shards (per check for --check; default 4)")
    s.add_argument("--throttle", type=int, default=0, help="at most M tasks at once (--array=...%%M)")
    s.add_argument("--partition")
    s.add_argument("--time", help="Slurm time limit per task, e.g. 2:00:00")
    s.add_argument("--sbatch-arg", action="append", help="extra sbatch argument (repeatable)")
    s.add_argument("--local", action="store_true", help="run the tasks here, without Slurm")
    s.add_argument("--jobs", type=int, default=1, help="--local: tasks at once (default 1)")
    s.add_argument("--bin", help="directory of orifuzz and oriopt (default: next to this tool, or build/bin)")
    for name, h in (("status", "tasks and runs so far"), ("collect", "write report.json and report.sarif"),
                    ("resubmit", "rerun failed and missing tasks"), ("wait", "wait until no task is pending or running")):
        x = sub.add_parser(name, help=h)
        x.add_argument("dir")
        if name == "wait":
            x.add_argument("--timeout", type=float, default=3600)
            x.add_argument("--poll", type=float, default=2)
        if name == "resubmit":
            x.add_argument("--jobs", type=int, default=1)
    c = sub.add_parser("compare", help="assert two campaigns (split differently) found the same")
    c.add_argument("dir1")
    c.add_argument("dir2")
    r = sub.add_parser("run-task", help="run one task (what each array task runs)")
    r.add_argument("dir")
    r.add_argument("task", type=int)
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    try:
        if a.cmd == "submit":
            return cmd_submit(a)
        if a.cmd == "status":
            report.status(a.dir)
            return 0
        if a.cmd == "collect":
            report.collect(a.dir)
            return 0
        if a.cmd == "resubmit":
            return cmd_resubmit(a)
        if a.cmd == "wait":
            return cmd_wait(a)
        if a.cmd == "compare":
            return cmd_compare(a)
        if a.cmd == "run-task":
            return run_task(a.dir, a.task)
    except CampaignError as e:
        print(f"oriopt-campaign: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 1
