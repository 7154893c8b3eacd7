"""One task of a campaign (`oriopt-campaign run-task DIR T`): what a Slurm array task, or
--local, runs. It writes DIR/results/task-T.started when it starts and DIR/results/task-T.json
when it ends (atomically); a task that dies leaves no result and is reported missing.

A task whose tool crashed (a signal, or an exit status other than 0 and 1) asks Slurm once
to requeue it (SLURM_RESTART_COUNT says which attempt this is); the second crash stays in
the result.
"""

import json
import os
import re
import resource
import socket
import subprocess
import time

from . import slurm
from .spec import describe_task, load_spec, now_iso, result_path, started_path, write_json

# `verify phase 29 GeneralOptimize: proved NAME ...` (pipeline/verify_phases.cpp)
VERIFY_LINE = re.compile(r"^verify (.+?): (proved|refuted|unknown) (\S+)(.*)$")
CRASH_LINE = re.compile(r"orifuzz: crashed in run (\d+)")
PROGRESS_LINE = re.compile(r"orifuzz: \S+ shard \d+/\d+: (\d+)/(\d+) runs")


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _attempt():
    try:
        return int(os.environ.get("SLURM_RESTART_COUNT", "0"))
    except ValueError:
        return 0


def _fuzz(d, spec, t, desc, log_base):
    f = spec["fuzz"]
    check, shard = desc["check"], desc["shard"]
    report = os.path.join(d, "results", f"task-{t}.orifuzz.json")
    try:
        os.remove(report)
    except FileNotFoundError:
        pass
    argv = [os.path.join(spec["bin"], "orifuzz"), "--check", check, "--runs", str(f["runs"]),
            "--seed", str(f["seed"]), "--size", str(f["size"]), "--shard", f"{shard}/{spec['shards']}",
            "--keep-going", "--out", os.path.join(d, "repro", check), "--report", report]
    with open(log_base + ".out", "w") as out, open(log_base + ".err", "w") as err:
        rc = subprocess.run(argv, stdout=out, stderr=err).returncode
    res = {"check": check, "shard": shard, "exit": rc, "command": argv}
    try:
        with open(report) as fh:
            res["orifuzz"] = json.load(fh)
    except (OSError, ValueError):
        res["orifuzz"] = None
    with open(log_base + ".err", errors="replace") as fh:
        text = fh.read()
    m = CRASH_LINE.search(text)
    if m:
        res["crash_run"] = int(m.group(1))
    if rc in (0, 1) and res["orifuzz"] is not None:
        res["status"] = "failures" if res["orifuzz"]["failures"] else "ok"
    else:
        res["status"] = "crashed"
        res["stderr_tail"] = text[-2000:]
    return res


def parse_verdicts(text):
    out = []
    for line in text.splitlines():
        m = VERIFY_LINE.match(line)
        if m:
            out.append({"step": m.group(1), "verdict": m.group(2), "function": m.group(3),
                        "detail": m.group(4).strip(" :;")})
    return out


def _verify_file(d, spec, name, log_base):
    v = spec["verify"]
    path = os.path.join(v["corpus"], name)
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    argv = [os.path.join(spec["bin"], "oriopt"), path, "--pipeline=ptxas", "-O3", "--verify", "--json",
            "--verify-budget", str(v["budget"]), "--verify-timeout", str(v["timeout"]),
            "-o", os.path.join(d, "out", stem + ".json")] + list(v.get("extra", []))
    start = time.time()
    err_path = f"{log_base}.{stem}.err"
    with open(err_path, "w") as err:
        try:
            rc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err, timeout=v["file_timeout"]).returncode
        except subprocess.TimeoutExpired:
            rc = None
    with open(err_path, errors="replace") as fh:
        text = fh.read()
    verdicts = parse_verdicts(text)
    if rc is None:
        status = "timeout"
    elif rc < 0 or rc > 1:
        status = "crashed"
    elif any(x["verdict"] == "refuted" for x in verdicts):
        status = "refuted"
    elif rc != 0:
        status = "error"
    else:
        status = "ok"
    r = {"file": name, "status": status, "exit": rc, "seconds": round(time.time() - start, 3),
         "verdicts": verdicts, "command": argv}
    if status in ("error", "crashed", "timeout"):
        r["stderr_tail"] = "\n".join(l for l in text.splitlines() if not l.startswith("verify "))[-2000:]
    return r


def run_task(d, t):
    spec = load_spec(d)
    if not 0 <= t < spec["tasks"]:
        from .spec import CampaignError
        raise CampaignError(f"task {t}: the campaign has tasks 0..{spec['tasks'] - 1}")
    attempt = _attempt()
    desc = describe_task(spec, t)
    info = {"campaign": spec["id"], "task": t, "attempt": attempt, "host": socket.gethostname(),
            "slurm_job": os.environ.get("SLURM_JOB_ID"), "slurm_array_job": os.environ.get("SLURM_ARRAY_JOB_ID"),
            "started": now_iso()}
    write_json(started_path(d, t), info)
    log_base = os.path.join(d, "logs", f"task-{t}.attempt-{attempt}")
    t0, cpu0 = time.time(), _children_cpu()
    if spec["kind"] == "fuzz":
        res = _fuzz(d, spec, t, desc, log_base)
    else:
        files = [_verify_file(d, spec, name, log_base) for name in desc["files"]]
        statuses = {f["status"] for f in files}
        # a timeout is not retried (it would most likely time out again); a crash is, once
        res = {"files": files,
               "status": "crashed" if "crashed" in statuses else "timeout" if "timeout" in statuses
               else "failures" if statuses & {"refuted", "error"} else "ok"}
    info.update(res)
    info["ended"] = now_iso()
    info["start_epoch"], info["end_epoch"] = t0, time.time()
    info["wall_seconds"] = round(time.time() - t0, 3)
    info["cpu_seconds"] = round(_children_cpu() - cpu0, 3)
    requeue = res["status"] == "crashed" and attempt == 0 and os.environ.get("SLURM_ARRAY_TASK_ID") is not None
    info["requeued"] = requeue
    write_json(result_path(d, t), info)
    if requeue and slurm.requeue_self():
        return 0
    return 0 if res["status"] in ("ok", "failures") else 1
