"""status, collect and compare: what the tasks' files (and squeue) say about a campaign.

collect writes DIR/report.json and DIR/report.sarif (SARIF 2.1.0) and never pretends: a
task without a result (died, cancelled, timed out, never ran) is listed as missing with the
runs or files it should have covered.
"""

import json
import os
import pathlib

from . import slurm
from .spec import CampaignError, describe_task, load_result, load_spec, same_work, task_name, write_json
from .task import PROGRESS_LINE


def task_states(d, spec):
    """[(t, state, result or None)], state one of pending, running, done, failed, missing.
    done: the tool ran to the end (failures found or not); failed: it crashed or timed out;
    missing: no result and Slurm does not know it (or Slurm does not answer)."""
    queue = slurm.queue_states(spec.get("jobs", [])) if not spec.get("local") else None
    out = []
    for t in range(spec["tasks"]):
        r = load_result(d, spec, t)
        q = (queue or {}).get(t)
        if q in ("PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "CONFIGURING", "RESV_DEL_HOLD"):
            state = "pending"
        elif q in ("RUNNING", "COMPLETING", "SUSPENDED", "STAGE_OUT", "RESIZING", "SIGNALING"):
            state = "running"
        elif r is not None and r.get("status") in ("ok", "failures"):
            state = "done"
        elif r is not None:
            state = "failed"
        else:
            state = "missing"
        out.append((t, state, r))
    return out


def _progress(d, t):
    """Runs so far of a running fuzz task, from the last progress line of its log."""
    best = 0
    logs = os.path.join(d, "logs")
    for name in os.listdir(logs):
        if name.startswith(f"task-{t}.attempt-") and name.endswith(".err"):
            with open(os.path.join(logs, name), errors="replace") as f:
                for m in PROGRESS_LINE.finditer(f.read()):
                    best = max(best, int(m.group(1)))
    return best


def _verify_progress(d, t):
    """Files finished by a running verify task: those of its latest attempt's logs but the last."""
    logs = [n for n in os.listdir(os.path.join(d, "logs")) if n.startswith(f"task-{t}.attempt-") and n.endswith(".err")]
    attempts = {n.split(".")[1] for n in logs}
    last = max(attempts, key=lambda a: int(a.removeprefix("attempt-")), default=None)
    return max(0, sum(1 for n in logs if n.split(".")[1] == last) - 1)


def status(d):
    spec = load_spec(d)
    states = task_states(d, spec)
    counts = {k: 0 for k in ("pending", "running", "done", "failed", "missing")}
    runs = failures = 0
    for t, state, r in states:
        counts[state] += 1
        if spec["kind"] == "fuzz":
            if r and r.get("orifuzz"):
                runs += r["orifuzz"]["done"]
                failures += len(r["orifuzz"]["failures"])
            elif state == "running":
                runs += _progress(d, t)
        elif r:
            runs += len(r.get("files", []))
            failures += sum(1 for f in r.get("files", []) if f["status"] != "ok")
        elif state == "running":
            runs += _verify_progress(d, t)
    what = "runs" if spec["kind"] == "fuzz" else "files"
    total = spec["fuzz"]["runs"] * len(spec["fuzz"]["checks"]) if spec["kind"] == "fuzz" else len(spec["verify"]["files"])
    print(f"campaign {spec['id']} ({spec['kind']}, {spec['tasks']} tasks, jobs {','.join(spec['jobs']) or 'local'})")
    print("tasks: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if not spec.get("local") and slurm.queue_states(spec.get("jobs", [])) is None:
        print("squeue does not answer: tasks without a result are counted missing")
    print(f"{what}: {runs} of {total} so far, {failures} failing")
    for t, state, r in states:
        if state in ("failed", "missing"):
            print(f"  {state}: {task_name(spec, t)}")
    return counts, runs, failures


def _sarif_result(rule, level, text, uri, function=None):
    if os.path.isabs(uri):
        uri = pathlib.Path(uri).as_uri()
    loc = {"physicalLocation": {"artifactLocation": {"uri": uri}}}
    if function:
        loc["logicalLocations"] = [{"name": function, "kind": "function"}]
    return {"ruleId": rule, "level": level, "message": {"text": text}, "locations": [loc]}


def collect(d):
    spec = load_spec(d)
    states = task_states(d, spec)
    tasks = [r for _, _, r in states if r]
    starts = [r["start_epoch"] for r in tasks if "start_epoch" in r]
    ends = [r["end_epoch"] for r in tasks if "end_epoch" in r]
    missing = [{"task": t, "state": s, "what": describe_task(spec, t), "name": task_name(spec, t)}
               for t, s, r in states if s != "done"]
    report = {"campaign": spec["id"], "kind": spec["kind"], "shards": spec["shards"], "tasks": spec["tasks"],
              "jobs": spec["jobs"], "complete": not missing, "missing": missing,
              "wall_seconds": round(max(ends) - min(starts), 3) if starts and ends else 0,
              "cpu_seconds": round(sum(r.get("cpu_seconds", 0) for r in tasks), 3),
              "task_seconds": round(sum(r.get("wall_seconds", 0) for r in tasks), 3)}
    sarif = []
    if spec["kind"] == "fuzz":
        f = spec["fuzz"]
        report.update({"runs": f["runs"], "seed": f["seed"], "size": f["size"]})
        checks = {c: {"runs": f["runs"], "runs_done": 0, "failures": [], "missing_shards": [], "seconds": 0.0,
                     "cpu_seconds": 0.0}
                  for c in f["checks"]}
        for t, state, r in states:
            c = checks[describe_task(spec, t)["check"]]
            if state != "done":
                c["missing_shards"].append(describe_task(spec, t)["shard"])
                if r and "crash_run" in r:
                    c.setdefault("crashes", []).append(r["crash_run"])
                continue
            o = r["orifuzz"]
            c["runs_done"] += o["done"]
            c["seconds"] += o["seconds"]
            c["cpu_seconds"] += r.get("cpu_seconds", 0)
            for x in o["failures"]:
                c["failures"].append({k: x[k] for k in ("run", "size", "message", "shrunk_message", "reproducer",
                                                         "replay")})
        for name, c in checks.items():
            c["failures"].sort(key=lambda x: x["run"])
            c["complete"] = not c["missing_shards"]
            # CPU time of the tasks (user + system of orifuzz), so other load does not count
            c["runs_per_cpu_second"] = round(c["runs_done"] / c["cpu_seconds"], 1) if c["cpu_seconds"] else None
            for x in c["failures"]:
                sarif.append(_sarif_result(f"orifuzz/{name}", "error",
                                           f"run {x['run']}: {x['shrunk_message'] or x['message']} "
                                           f"(replay: {x['replay']})", x["reproducer"] or "unknown"))
            for run in c.get("crashes", []):
                sarif.append(_sarif_result(f"orifuzz/{name}", "error", f"orifuzz crashed in run {run} "
                                           f"(replay: orifuzz --check {name} --seed {f['seed']} --size {f['size']} "
                                           f"--replay {run})", "unknown"))
        report["checks"] = checks
        report["failures"] = sum(len(c["failures"]) for c in checks.values())
    else:
        v = spec["verify"]
        report.update({"corpus": v["corpus"], "budget": v["budget"], "timeout": v["timeout"]})
        files, totals = {}, {"proved": 0, "refuted": 0, "unknown": 0}
        for _, state, r in states:
            for x in (r or {}).get("files", []):
                files[x["file"]] = x
                for y in x["verdicts"]:
                    totals[y["verdict"]] += 1
                    if y["verdict"] != "proved":
                        sarif.append(_sarif_result(f"verify/{y['verdict']}",
                                                   "error" if y["verdict"] == "refuted" else "warning",
                                                   f"{y['step']}: {y['verdict']} {y['function']} {y['detail']}".strip(),
                                                   os.path.join(v["corpus"], x["file"]), y["function"]))
                if x["status"] in ("error", "crashed", "timeout"):
                    sarif.append(_sarif_result(f"verify/{x['status']}", "error",
                                               f"oriopt {x['status']} (exit {x['exit']}): "
                                               f"{x.get('stderr_tail', '')[-300:]}", os.path.join(v["corpus"], x["file"])))
        report["files"] = {k: files[k] for k in sorted(files)}
        done = [x for x in files.values() if x["status"] not in ("crashed", "timeout")]
        report["files_per_cpu_hour"] = (round(len(done) * 3600 / report["cpu_seconds"], 1)
                                        if report["cpu_seconds"] else None)
        report["missing_files"] = sorted(set(v["files"]) - {k for k, x in files.items()
                                                             if x["status"] not in ("crashed", "timeout")})
        report["verdicts"] = totals
        report["file_status"] = {s: sum(1 for x in files.values() if x["status"] == s)
                                 for s in ("ok", "refuted", "error", "crashed", "timeout")}
    rules = sorted({x["ruleId"] for x in sarif})
    write_json(os.path.join(d, "report.json"), report)
    write_json(os.path.join(d, "report.sarif"), {
        "version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{"tool": {"driver": {"name": "oriopt-campaign", "informationUri": "docs/campaigns.md",
                                      "rules": [{"id": r} for r in rules]}},
                  "invocations": [{"executionSuccessful": report["complete"]}],
                  "results": sarif}]})
    _print_report(spec, report)
    return report


def _print_report(spec, rep):
    print(f"campaign {rep['campaign']} ({rep['kind']}): {spec['tasks']} tasks, "
          f"{'complete' if rep['complete'] else 'INCOMPLETE'}; wall {rep['wall_seconds']:.1f} s, "
          f"CPU {rep['cpu_seconds']:.1f} s")
    if rep["kind"] == "fuzz":
        for name, c in rep["checks"].items():
            rate = f", {c['runs_per_cpu_second']} runs per CPU second" if c["runs_per_cpu_second"] else ""
            print(f"  {name}: {c['runs_done']} of {c['runs']} runs, {len(c['failures'])} failures{rate}"
                  + (f"; MISSING shards {c['missing_shards']}" if c["missing_shards"] else ""))
            for x in c["failures"][:10]:
                print(f"    run {x['run']}: {x['shrunk_message'] or x['message']}\n      {x['replay']}  ({x['reproducer']})")
            if len(c["failures"]) > 10:
                print(f"    ... {len(c['failures']) - 10} more in report.json")
    else:
        print(f"  {len(rep['files'])} files: " + ", ".join(f"{v} {k}" for k, v in rep["file_status"].items())
              + "; functions: " + ", ".join(f"{v} {k}" for k, v in rep["verdicts"].items())
              + (f"; {rep['files_per_cpu_hour']} files per CPU hour" if rep["files_per_cpu_hour"] else ""))
        if rep["missing_files"]:
            print(f"  MISSING {len(rep['missing_files'])} files: {' '.join(rep['missing_files'][:20])}")
    for m in rep["missing"]:
        print(f"  {m['state']}: {m['name']}")
    print(f"  report: report.json, report.sarif")


def _verdict_key(x):
    return (x["step"], x["function"], x["verdict"])


def compare(a, b):
    """Same failures (check, run) and the same verdicts (file, step, function) in both
    campaigns; both must be complete and ask the same question. Returns the differences."""
    sa, sb = load_spec(a), load_spec(b)
    if not same_work(sa, sb):
        raise CampaignError(f"{a} and {b} are not the same campaign split differently "
                            f"({sa['kind']} {sa.get(sa['kind'])} vs {sb['kind']} {sb.get(sb['kind'])})")
    ra, rb = collect_quiet(a), collect_quiet(b)
    for d, r in ((a, ra), (b, rb)):
        if not r["complete"]:
            raise CampaignError(f"{d}: incomplete ({len(r['missing'])} tasks missing): cannot compare")
    diffs = []
    if sa["kind"] == "fuzz":
        for c in sa["fuzz"]["checks"]:
            fa = [x["run"] for x in ra["checks"][c]["failures"]]
            fb = [x["run"] for x in rb["checks"][c]["failures"]]
            if ra["checks"][c]["runs_done"] != rb["checks"][c]["runs_done"]:
                diffs.append(f"{c}: {ra['checks'][c]['runs_done']} runs vs {rb['checks'][c]['runs_done']}")
            if fa != fb:
                diffs.append(f"{c}: failing runs differ: only in {a}: {sorted(set(fa) - set(fb))}, "
                             f"only in {b}: {sorted(set(fb) - set(fa))}")
    else:
        for name in sorted(set(ra["files"]) | set(rb["files"])):
            xa, xb = ra["files"].get(name), rb["files"].get(name)
            if not xa or not xb:
                diffs.append(f"{name}: verified in one campaign only")
                continue
            va = sorted(map(_verdict_key, xa["verdicts"]))
            vb = sorted(map(_verdict_key, xb["verdicts"]))
            if xa["status"] != xb["status"] or va != vb:
                diffs.append(f"{name}: {xa['status']} {va} vs {xb['status']} {vb}")
    return diffs


def collect_quiet(d):
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        return collect(d)
