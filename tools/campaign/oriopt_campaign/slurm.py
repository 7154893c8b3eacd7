"""The Slurm side: sbatch a job array, ask squeue what is pending or running.

Accounting (sacct) needs slurmdbd; where it is not configured, squeue and the files the
tasks write are the source of truth (docs/campaigns.md).
"""

import os
import shlex
import shutil
import subprocess

from .spec import CampaignError


def _run(argv, timeout=30):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise CampaignError(f"{argv[0]}: not installed (Slurm's client commands are needed; "
                            "scripts/bootstrap installs slurm-wlm)")
    except subprocess.TimeoutExpired:
        raise CampaignError(f"{' '.join(argv)}: no answer in {timeout} s (is slurmctld running?)")


def check_controller():
    """Raises unless a Slurm controller answers."""
    if not shutil.which("sbatch"):
        raise CampaignError("sbatch: not installed (scripts/bootstrap installs slurm-wlm); "
                            "use --local to run the tasks here without Slurm")
    conf = os.environ.get("SLURM_CONF")
    if conf and not os.path.isfile(conf):
        # scontrol would retry for a minute before saying so
        raise CampaignError(f"SLURM_CONF={conf}: no such file, so no Slurm controller to submit to; "
                            "start one (tests/cluster/slurm-one-node) or use --local")
    try:
        r = _run(["scontrol", "ping"], timeout=15)
    except CampaignError as e:
        raise CampaignError(f"no Slurm controller answers: {e}")
    if r.returncode != 0 or "UP" not in r.stdout:
        detail = (r.stdout + r.stderr).strip().replace("\n", "; ")
        raise CampaignError(f"no Slurm controller answers (scontrol ping: {detail or 'exit ' + str(r.returncode)}); "
                            "set SLURM_CONF or start slurmctld, or use --local")


def array_ranges(indices):
    """[0,1,2,5] -> "0-2,5"."""
    out, start, prev = [], None, None
    for i in sorted(indices):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            out.append(f"{start}-{prev}" if prev > start else str(start))
            start = prev = i
    if start is not None:
        out.append(f"{start}-{prev}" if prev > start else str(start))
    return ",".join(out)


def write_task_script(d, tool):
    """DIR/task.sh: what each array task runs (this tool's run-task)."""
    path = os.path.join(d, "task.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n# Written by oriopt-campaign submit: one task of the job array.\n")
        f.write(f"exec {shlex.quote(os.environ.get('PYTHON', 'python3'))} {shlex.quote(tool)} run-task "
                f"{shlex.quote(os.path.abspath(d))} \"$SLURM_ARRAY_TASK_ID\"\n")
    os.chmod(path, 0o755)
    return path


def submit(d, spec, indices, tool, throttle, partition=None, time_limit=None, extra=()):
    """sbatch --array=INDICES%THROTTLE --requeue ...; returns the job id."""
    check_controller()
    script = write_task_script(d, tool)
    arr = array_ranges(indices) + (f"%{throttle}" if throttle else "")
    argv = ["sbatch", "--parsable", f"--array={arr}", "--requeue", "--cpus-per-task=1",
            f"--job-name=oriopt-{spec['kind']}-{spec['id'][:8]}",
            f"--output={os.path.abspath(d)}/logs/slurm-%A_%a.out",
            f"--chdir={os.path.abspath(d)}"]
    if partition:
        argv.append(f"--partition={partition}")
    if time_limit:
        argv.append(f"--time={time_limit}")
    argv += list(extra)
    argv.append(script)
    r = _run(argv, timeout=60)
    if r.returncode != 0:
        raise CampaignError(f"sbatch failed: {(r.stderr or r.stdout).strip()}")
    job = r.stdout.strip().split(";")[0]
    if not job.isdigit():
        raise CampaignError(f"sbatch gave no job id: {r.stdout.strip()!r}")
    return job


def queue_states(jobs):
    """{task index: squeue state} for the campaign's jobs still known to squeue; None when
    squeue does not answer (then only the files say anything)."""
    if not jobs or not shutil.which("squeue"):
        return None
    try:
        r = _run(["squeue", "-h", "-r", "-j", ",".join(jobs), "-o", "%i|%T"], timeout=30)
    except CampaignError:
        return None
    if r.returncode != 0:
        # squeue exits 1 for job ids it no longer knows: all of them finished long ago
        if "Invalid job id" in r.stderr:
            return {}
        return None
    out = {}
    for line in r.stdout.splitlines():
        jid, _, state = line.partition("|")
        base, _, idx = jid.partition("_")
        if base in jobs and idx.isdigit():
            out[int(idx)] = state.strip()
    return out


def requeue_self():
    """From inside an array task: requeue this one task (not the whole array: SLURM_JOB_ID
    of the array's first task is the array's id). True when scontrol accepted it."""
    job, idx = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    if not job or not idx:
        return False
    try:
        r = subprocess.run(["scontrol", "requeue", f"{job}_{idx}"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0
