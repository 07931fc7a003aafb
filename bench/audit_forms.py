"""The generation gate's audit with its faster geometry against the previous forms (`shapes.REFERENCE_FORMS`), on
real trials: every trial's states-only files are built as the gate builds them (`trial.check_draw`), then audited
both ways. Reports whether every verdict, finding and contact-geometry float is the same, and the audit's CPU
time each way (process CPU, so the shared machine's load matters less; each trial is audited reference first,
then new, then reference again, and the two reference times are averaged).

    .venv/bin/python bench/audit_forms.py --trials 2 --json bench/results/audit-forms-<date>.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np


def audit_both(files: list) -> dict:
    """Audit one trial's files with the reference forms and the new ones; compare everything they produce."""
    from voebench.generator import solids as shapes
    from voebench.generator.audit.trial import audit_video
    from voebench.generator.audit.video import Video

    def run(reference: bool):
        shapes.REFERENCE_FORMS = reference
        try:
            c0 = time.process_time()
            videos = [Video(path, entry) for entry, path in files]
            results = []
            for i, v in enumerate(videos):
                twins = [w for j, w in enumerate(videos) if j != i]
                results.append(audit_video(v, twins[0] if len(twins) == 1 else None).as_dict())
            return time.process_time() - c0, results, videos
        finally:
            shapes.REFERENCE_FORMS = False

    t_ref1, ref, ref_videos = run(True)
    t_new, new, new_videos = run(False)
    t_ref2, _, _ = run(True)
    same_geometry, pairs, frames = True, 0, 0
    for rv, nv in zip(ref_videos, new_videos):
        assert rv._pairs.keys() == nv._pairs.keys()
        for key, rg in rv._pairs.items():
            ng = nv._pairs[key]
            pairs += 1
            frames += int(np.isfinite(rg.gap).sum())
            same_geometry &= np.array_equal(rg.gap, ng.gap, equal_nan=True) and np.array_equal(
                rg.normal, ng.normal, equal_nan=True
            )
    return {
        "same_results": ref == new,
        "same_geometry": bool(same_geometry),
        "pairs": pairs,
        "pair_frames": frames,
        "ok": [r["ok"] for r in new],
        "cpu_reference_s": (t_ref1 + t_ref2) / 2,
        "cpu_new_s": t_new,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", nargs="+", default=["grasp-l1", "grasp-l2", "avoe"])
    ap.add_argument("--trials", type=int, default=2, help="trials per test (indices 0..N-1, first draws)")
    ap.add_argument("--json")
    args = ap.parse_args()
    from voebench.generator import trial as trial_mod
    from voebench.generator.runner import RunConfig, effective_space, first_trial
    from voebench.generator.runner import suite_for as _suite

    rows = []
    captured: list = []
    real_audit = trial_mod.audit_files

    def capture(files, attempt):
        captured.append(list(files))
        return real_audit(files, attempt)

    trial_mod.audit_files = capture
    workdir = tempfile.mkdtemp(prefix="frames-audit-forms-")
    try:
        for suite_name in args.suites:
            suite = _suite(suite_name)
            for test in suite.tests:
                cfg = RunConfig(out=workdir, suite=suite_name, tests=[test], trials=args.trials)
                space = effective_space(suite, test, {})
                for index in range(args.trials):
                    trial = first_trial(suite, test, space, cfg, index)
                    if not trial.conditions:
                        continue
                    captured.clear()
                    p = trial_mod.draw(suite, space, trial, 0)
                    trial_mod.check_draw(suite, trial, p, cfg, space, 0, workdir)
                    if not captured:  # rejected before the audit (infeasible, statement)
                        continue
                    row = {"suite": suite_name, "test": test, "index": index, **audit_both(captured[0])}
                    rows.append(row)
                    print(
                        f"{suite_name}/{test}/{index}: same results {row['same_results']}, same geometry "
                        f"{row['same_geometry']} ({row['pairs']} pairs, {row['pair_frames']} frames), CPU "
                        f"{row['cpu_reference_s']:.3f} -> {row['cpu_new_s']:.3f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        trial_mod.audit_files = real_audit
        shutil.rmtree(workdir, ignore_errors=True)
    summary = {}
    for suite_name in args.suites:
        rs = [r for r in rows if r["suite"] == suite_name]
        if rs:
            ref, new = sum(r["cpu_reference_s"] for r in rs), sum(r["cpu_new_s"] for r in rs)
            summary[suite_name] = {
                "trials": len(rs),
                "all_same_results": all(r["same_results"] for r in rs),
                "all_same_geometry": all(r["same_geometry"] for r in rs),
                "failed_trials": sum(not all(r["ok"]) for r in rs),
                "cpu_reference_s": ref,
                "cpu_new_s": new,
                "ratio": ref / new if new else None,
            }
    out = {"uptime": os.popen("uptime").read().strip(), "summary": summary, "trials": rows}
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
