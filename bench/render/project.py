"""Core-hours of the full default suites (GRASP L1 + L2, the AVoE 10% subset), per render path, from the CPU
seconds that `paths` measured and the distinct-frame counts of bench/unique_frames.py."""

from __future__ import annotations

import json
import os
import statistics
import sys

from .common import RESULTS, ROOT, save
from .paths import PATHS


def cmd_project(args):
    """CPU model per path, from whole-video CPU seconds measured by `paths` (one core per worker):
    a 500-frame GRASP video costs cpu(still L1 video) + (distinct - 1) * r, where r, the marginal CPU of a
    distinct frame, is (cpu(L2 video) - cpu(still L1 video)) / (distinct(L2) - 1); it includes depth,
    segmentation, gzip and every per-frame cost. On the new path the second video of a pair does not render
    the states it shares with the first (bench/unique_frames.py counts them). An AVoE video (50 frames, almost
    all distinct) costs cpu(AVoE video) / distinct(AVoE video) per distinct frame, its fixed cost included.
    The generation gate (generator/trial.py: every attempt's states-only build, files and audit, and the audit of
    the rendered files) is taken out of each video's CPU and counted on its own line, per video: the CPU that the
    gate's two timers measured for a whole trial (l1-still: one video; l2-pair, avoe-pair: both videos) divided by
    its videos. It includes the trial's simulation (make_scene), which the rendering then reuses; at the default
    settings every test accepts its first draw (docs/validity.md), so one attempt per trial."""
    with open(args.paths_from) as f:
        paths = json.load(f)
    paths = paths.get("paths", paths)
    if args.unique_from:
        with open(args.unique_from) as f:
            suites = json.load(f)
        suites = suites.get("unique_frames", suites)
    else:
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        from unique_frames import survey

        suites = {
            "grasp-l1": survey("grasp-l1", 2),
            "grasp-l2": survey("grasp-l2", 2),
            "avoe": survey("avoe", 2, fraction=0.1),
        }
    it = {k: v["summary"] for k, v in paths["items"].items()}
    out = {"model": cmd_project.__doc__.strip(), "paths": {}}
    for path in PATHS:
        gate = gate_per_video(it, path)
        still, l2 = it["l1-still"][path], it["l2"][path]
        still_cpu = still["cpu_s"] - gate_of(still)
        r = (l2["cpu_s"] - gate_of(l2) - still_cpu) / (l2["blender_distinct"] - 1)
        av = it.get("avoe-960x540", {}).get(path)
        r_avoe = (av["cpu_s"] - gate_of(av)) / av["blender_distinct"] if av else None
        proj = {}
        for name, s in suites.items():
            tests = [v for v in s["tests"].values() if v.get("videos")]
            if not tests or (name == "avoe" and r_avoe is None):
                continue
            cpu = statistics.mean(video_cpu(path, name, v, still_cpu, r, r_avoe) for v in tests)
            g = gate.get(name, 0.0)
            proj[name] = {
                "videos": s["videos"],
                "fraction": s.get("fraction", 1.0),
                "cpu_s_per_video": cpu,
                "gate_cpu_s_per_video": g,
                "render_core_hours": s["videos"] * cpu / 3600,
                "gate_core_hours": s["videos"] * g / 3600,
                "core_hours": s["videos"] * (cpu + g) / 3600,
            }
        grasp = sum(proj[k]["core_hours"] for k in ("grasp-l1", "grasp-l2") if k in proj)
        res = {
            "r_ms_per_distinct_frame_320x240": 1000 * r,
            "still_video_cpu_s": still_cpu,
            "gate_cpu_s_per_video": gate,
            "r_ms_per_distinct_frame_960x540": 1000 * r_avoe if r_avoe else None,
            "suites": proj,
            "grasp_core_hours": grasp,
            "grasp_gate_core_hours": sum(proj[k]["gate_core_hours"] for k in ("grasp-l1", "grasp-l2") if k in proj),
            "grasp_hours_2_cores": grasp / 2,
            "grasp_hours_16_cores": grasp / 16,
        }
        big = it.get("l2-640x480", {}).get(path)
        if big:  # the same model with r measured at 640x480 (the fixed part measured at 320x240)
            r640 = (big["cpu_s"] - gate_of(big) - still_cpu) / (big["blender_distinct"] - 1)
            res["r_ms_per_distinct_frame_640x480"] = 1000 * r640
            res["grasp_core_hours_640x480"] = (
                sum(
                    suites[k]["videos"]
                    * statistics.mean(
                        video_cpu(path, k, v, still_cpu, r640, None) + gate.get(k, 0.0)
                        for v in suites[k]["tests"].values()
                        if v.get("videos")
                    )
                    for k in ("grasp-l1", "grasp-l2")
                )
                / 3600
            )
        out["paths"][path] = res
    t, n = out["paths"]["today"], out["paths"]["new"]
    out["ratio_grasp"] = t["grasp_core_hours"] / n["grasp_core_hours"]
    if "avoe" in t["suites"] and "avoe" in n["suites"]:
        out["ratio_avoe"] = t["suites"]["avoe"]["core_hours"] / n["suites"]["avoe"]["core_hours"]
    RESULTS["project"] = out
    save(args)
    return out


def gate_of(summary: dict) -> float:
    """The gate's CPU inside one measured item (0 for results measured before the gate existed)."""
    return summary.get("gate_cpu_s", 0.0)


def gate_per_video(it: dict, path: str) -> dict:
    """The gate's CPU per video, by suite, from the items that make whole trials. The gate's code does not depend
    on the render path (its pixel audit reads the files either path writes), so an item measured on the new path
    only (avoe-pair) stands for both."""
    out = {}
    for suite, item in (("grasp-l1", "l1-still"), ("grasp-l2", "l2-pair"), ("avoe", "avoe-pair")):
        s = it.get(item, {})
        s = s.get(path) or s.get("new")
        if s and "gate_cpu_s" in s:
            out[suite] = s["gate_cpu_s"] / s.get("videos", 1)
    return out


def video_cpu(path, suite, v, still_cpu, r, r_avoe) -> float:
    """CPU seconds of one video of a test with v["unique"] distinct states, v["shared"] of them (mean over
    the trial's videos) already rendered for the other video of its trial."""
    saved = v.get("shared", 0.0) if path == "new" else 0.0
    if suite == "avoe":
        return (v["unique"] - saved) * r_avoe
    return still_cpu + (v["unique"] - 1 - saved) * r
