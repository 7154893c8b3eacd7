"""A campaign's description (DIR/campaign.json) and how its tasks split the work.

A campaign is either random testing (kind "fuzz": checks x shards tasks, task t runs
check checks[t // shards] on shard t % shards of `runs` runs) or corpus verification
(kind "verify": `shards` tasks, task t verifies the files whose index in the sorted
list is t modulo shards). Task t of a Slurm job array is array index t.
"""

import datetime
import json
import os
import uuid

FORMAT = "oriopt-campaign/1"


class CampaignError(Exception):
    """Bad input or state: printed as `oriopt-campaign: error: ...`, exit status 1."""


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def campaign_path(d):
    return os.path.join(d, "campaign.json")


def new_spec(kind, shards, bin_dir, **fields):
    if shards < 1:
        raise CampaignError(f"--shards {shards}: expected at least 1")
    spec = {
        "format": FORMAT,
        "id": str(uuid.uuid4()),
        "kind": kind,
        "created": now_iso(),
        "bin": os.path.abspath(bin_dir),
        "shards": shards,
        "jobs": [],  # Slurm job ids (the first submission, then resubmissions)
    }
    spec.update(fields)
    spec["tasks"] = task_count(spec)
    return spec


def task_count(spec):
    if spec["kind"] == "fuzz":
        return len(spec["fuzz"]["checks"]) * spec["shards"]
    return spec["shards"]


def describe_task(spec, t):
    """What task t does: a dict with the check and shard, or the list of files."""
    n = spec["shards"]
    if spec["kind"] == "fuzz":
        return {"check": spec["fuzz"]["checks"][t // n], "shard": t % n}
    files = spec["verify"]["files"]
    return {"files": [f for i, f in enumerate(files) if i % n == t]}


def task_name(spec, t):
    d = describe_task(spec, t)
    if spec["kind"] == "fuzz":
        return f"task {t} ({d['check']} shard {d['shard']}/{spec['shards']})"
    return f"task {t} (shard {t}/{spec['shards']}, {len(d['files'])} files)"


def same_work(a, b):
    """Whether two campaigns ask the same question (however split)."""
    if a["kind"] != b["kind"]:
        return False
    if a["kind"] == "fuzz":
        return a["fuzz"] == b["fuzz"]
    va, vb = dict(a["verify"]), dict(b["verify"])
    return va == vb


def write_json(path, data):
    """Written to PATH.tmp then renamed: a reader sees the old file or the whole new one."""
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def load_spec(d):
    p = campaign_path(d)
    if not os.path.isdir(d):
        raise CampaignError(f"{d}: no such results directory")
    if not os.path.isfile(p):
        raise CampaignError(f"{d}: not a campaign's results directory (no campaign.json)")
    try:
        with open(p) as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise CampaignError(f"{p}: cannot read: {e}")
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise CampaignError(f"{p}: not an {FORMAT} campaign description")
    return spec


def create_dir(d, spec):
    """Makes the results directory for a new campaign; refuses one that holds another."""
    if os.path.exists(campaign_path(d)):
        try:
            old = load_spec(d)
            what = f"campaign {old['id']} ({old['kind']}, created {old['created']})"
        except CampaignError:
            what = "an unreadable campaign.json"
        raise CampaignError(f"{d} already holds {what}: give a new results directory")
    if os.path.isdir(d) and os.listdir(d):
        raise CampaignError(f"{d} is not empty and holds no campaign: give a new results directory")
    for sub in ("", "results", "logs", "repro", "out"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    write_json(campaign_path(d), spec)


def result_path(d, t):
    return os.path.join(d, "results", f"task-{t}.json")


def started_path(d, t):
    return os.path.join(d, "results", f"task-{t}.started")


def load_result(d, spec, t):
    """Task t's result, None when there is none; a result of another campaign is an error."""
    p = result_path(d, t)
    try:
        with open(p) as f:
            r = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        return {"status": "unreadable", "error": str(e), "task": t}
    if r.get("campaign") != spec["id"]:
        raise CampaignError(f"{p} belongs to campaign {r.get('campaign')}, not to {spec['id']} of {d}: "
                            "results of another campaign were copied in")
    return r
