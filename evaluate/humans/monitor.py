"""The researcher's live monitor (issue 25): where the study stands while it runs, read-only, without exporting.

    GET /monitor/MONITOR_TOKEN          an HTML page (refreshes itself every REFRESH_S seconds)
    GET /monitor/MONITOR_TOKEN/data     the same as JSON

MONITOR_TOKEN is the study's own secret (store.Study.monitor_token, printed by `serve`), never a participant's link:
a participant token opens no monitor and the monitor token opens no participant page. Shown: slots, participants
started / in progress / finished / excluded (screened out, or over the export's attention-check rule) / returned (by
reason) / declined / idle past the timeout, second sessions refused, the time per trial (the server's span from
showing a trial to its answer: median and 90th percentile, per phase), the answers per design cell (suite, test,
condition: answered of planned), and the current report (`voebench report --complete-pairs-only` of an export made
in a temporary folder and deleted, since mid-study many pairs still lack one video; nothing is written in the
study). Aggregates only: no participant's answers, no platform ids. Every text is HTML-escaped.
"""

from __future__ import annotations

import html
import os
import statistics
import tempfile
from collections import Counter, defaultdict

from voebench.evaluate.humans.export import parse, timing
from voebench.evaluate.humans.store import Study

REFRESH_S = 15


def _quantiles(values: list[int]) -> dict:
    if not values:
        return {"n": 0, "median_ms": None, "p90_ms": None}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered)),
        "p90_ms": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
    }


def snapshot(study: Study, with_report: bool = True) -> dict:
    """The monitor's numbers (see the module)."""
    people = study.people()
    rows = study.answers()
    refusals = study.refusals()
    limit = (study.platform or {}).get("max_failed_checks", 0)
    failed: Counter = Counter()
    times: dict[str, list[int]] = defaultdict(list)
    planned: Counter = Counter()
    answered: Counter = Counter()
    for r in rows:
        t = r["trial"]
        if r["answer"] is not None and t["phase"] == "attention" and not parse(t, r["answer"])[2]:
            failed[r["participant"]] += 1
        if r["answer"] is not None:
            ms = timing(r)["server_ms"]
            if ms is not None:
                times["all"].append(ms)
                times[t["phase"]].append(ms)
        if t["phase"] == "main":
            e = t.get("entry") or {}
            cell = f"{e.get('suite')}/{e.get('test')} {e.get('condition')}"
            planned[cell] += 1
            answered[cell] += r["answer"] is not None
    outcomes = Counter(p["outcome"] for p in people)
    returned = Counter(p["outcome_reason"] or "withdrew" for p in people if p["outcome"] == "returned")
    screened = sum(1 for p in people if p["outcome"] == "screened_out")
    over_rule = sum(
        1 for p in people if p["outcome"] != "screened_out" and p["consent"] and failed[p["participant"]] > limit
    )
    counts = {
        "slots": len(people),
        "platform_assigned": sum(p["platform"] for p in people),
        "started": sum(1 for p in people if p["consent"]),
        "declined": sum(1 for p in people if p["consent"] is False),
        "in_progress": sum(1 for p in people if p["consent"] and p["outcome"] is None and not p["finished"]),
        "finished": outcomes["completed"],
        "excluded": screened + over_rule,
        "screened_out": screened,
        "returned": outcomes["returned"],
        "returned_by_reason": dict(sorted(returned.items())),
        "idle_now": sum(p["idle"] for p in people),
        "second_sessions_refused": sum(1 for r in refusals if r["reason"] == "second session"),
        "refused_study_full": sum(1 for r in refusals if r["reason"] == "study full"),
    }
    out = {
        "participants": counts,
        "time_per_trial": {k: _quantiles(v) for k, v in sorted(times.items())},
        "cells": {c: {"answered": answered[c], "planned": planned[c]} for c in sorted(planned)},
        "answers": sum(1 for r in rows if r["answer"] is not None),
        "trials": len(rows),
    }
    if with_report:
        out["report"] = current_report(study.dir, limit)
    return out


def current_report(study_dir: str, max_failed_checks: int) -> str:
    """`voebench report`'s markdown of the answers so far, from an export in a temporary folder (deleted)."""
    from voebench.evaluate import report
    from voebench.evaluate.humans.export import export

    with tempfile.TemporaryDirectory(prefix="voebench-monitor-") as tmp:
        try:
            info = export(study_dir, tmp, max_failed_checks=max_failed_checks)
            if not info["samples"]:
                return "No scored answers yet."
            report.write_report(tmp, complete_pairs_only=True)  # mid-study many pairs still lack a video
            with open(os.path.join(tmp, "report.md"), encoding="utf-8") as fh:
                return fh.read()
        except Exception as e:  # noqa: BLE001 - the monitor shows why, and keeps running
            return f"The report could not be made yet: {e}"


def page(snap: dict) -> str:
    """The monitor as one HTML page (every value escaped)."""
    e = html.escape

    def table(head: tuple, rows: list) -> str:
        th = "".join(f"<th>{e(str(h))}</th>" for h in head)
        body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table><tr>{th}</tr>{body}</table>"

    counts = snap["participants"]
    people = table(("", "count"), [(k.replace("_", " "), v) for k, v in counts.items() if k != "returned_by_reason"])
    reasons = ", ".join(f"{k}: {v}" for k, v in counts["returned_by_reason"].items()) or "none"
    times = table(
        ("phase", "answers", "median ms", "90th percentile ms"),
        [(k, v["n"], v["median_ms"], v["p90_ms"]) for k, v in snap["time_per_trial"].items()],
    )
    cells = table(("cell", "answered", "planned"), [(k, v["answered"], v["planned"]) for k, v in snap["cells"].items()])
    report = f"<h2>Current report</h2><pre>{e(snap['report'])}</pre>" if "report" in snap else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{REFRESH_S}"><title>Study monitor</title>'
        '<link rel="stylesheet" href="/static/style.css"></head><body><main id="monitor">'
        f"<h1>Study monitor</h1><p>{snap['answers']} of {snap['trials']} trials answered. Read-only; refreshes every "
        f"{REFRESH_S} s.</p><h2>Participants</h2>{people}<p>Returned by reason: {e(reasons)}</p>"
        f"<h2>Time per trial (showing to answer, server clock)</h2>{times}<h2>Answers per design cell</h2>{cells}"
        f"{report}</main></body></html>"
    )
