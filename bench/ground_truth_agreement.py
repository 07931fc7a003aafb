"""How far the GPU ground-truth pass (generator/blender/ground_truth.py) agrees with the previous Workbench passes
(a flat Workbench render for segmentation, the compositor's depth EXR), on real scenes of every suite.

For each test: the first trial with a video, its last video, up to N distinct states spread over the video. Per
state, both passes; counted are the pixels whose object ids differ, how many of those are ties (the two surfaces
lie within Workbench's depth-buffer error, |dz| <= 6e-6 z^2, the tolerance tests/generator/test_ground_truth.py
derives), the largest |dz| / z^2 where the ids agree, and the GPU pass's CPU ms per state.

    .venv/bin/python bench/ground_truth_agreement.py --size 320x240 --states 6   # docs/bpy-notes.md's numbers
"""

from __future__ import annotations

import argparse
import os
import time

DEFAULT_TESTS = [
    "grasp-l2/t15_support_pin",
    "grasp-l1/shape",
    "grasp-l1/movement",
    "grasp-l1/relational",
    "grasp-l2/t01_unchangeableness",
    "grasp-l2/t03_solidity_continuity",
    "grasp-l2/t06_permanence_occluder",
    "grasp-l2/t07_permanence_drawbridge",
    "grasp-l2/t08_inertia_bounce",
    "grasp-l2/t09_gravity_incline",
    "grasp-l2/t12_continuity_tray",
    "grasp-l2/t13_gravity_continuity_gap",
    "grasp-l2/t14_collision",
    "grasp-l2/t16_inertia_corner",
    "avoe/A1",
    "avoe/B1",
    "avoe/C1",
    "avoe/D1",
    "avoe/E1",
    "newton/elasticity",
]
TIE = 6e-6  # |dz| <= TIE * z^2: within Workbench's 24-bit depth-buffer error


def scene_of(spec: str):
    from voebench.generator.runner import RunConfig, effective_space, first_trial
    from voebench.generator.runner import suite_for as _suite
    from voebench.generator.trial import draw

    suite_name, test = spec.split("/")
    seconds, fps = (50 / 24, 24.0) if suite_name == "avoe" else (10.0, 50.0)
    cfg = RunConfig(out="/tmp", suite=suite_name, tests=[test], trials=8, seconds=seconds, fps=fps)
    suite = _suite(suite_name)
    space = effective_space(suite, test, {})
    trial = next(t for t in (first_trial(suite, test, space, cfg, i) for i in range(8)) if t.conditions)
    return suite.make_scene(trial.jobs[-1], draw(suite, space, trial, 0), cfg.timing)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="*", default=DEFAULT_TESTS, help="suite/test ...")
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--states", type=int, default=6, help="distinct states per test")
    args = ap.parse_args()
    os.environ.setdefault("LP_NUM_THREADS", "1")
    import numpy as np

    from voebench.generator.blender import render
    from voebench.generator.blender.ground_truth import GroundTruthPass

    w, h = (int(x) for x in args.size.split("x"))
    total = {"pixels": 0, "differ": 0, "ties": 0}
    for spec in args.tests:
        scene = scene_of(spec)
        firsts = scene.first_frames()
        ts = firsts[:: max(1, len(firsts) // args.states)][: args.states]
        r = render.Renderer(scene, render.RenderSettings(w, h, ground_truth="workbench"))
        r.render_state(ts[0])
        gt = GroundTruthPass(r.obs, {n: o.id for n, o in scene.objects.items()}, r.cam, w, h)
        differ = ties = 0
        worst, cpu = 0.0, 0.0
        for t in ts:
            _, depth, seg = r.render_state(t, ("depth", "segmentation"))
            r.apply(t)
            c0 = time.process_time()
            seg2, depth2 = gt.draw()
            cpu += time.process_time() - c0
            bad = seg2 != seg
            differ += int(bad.sum())
            ties += int((bad & (np.abs(depth - depth2) <= TIE * depth**2)).sum())
            ok = ~bad & np.isfinite(depth)
            if ok.any():
                worst = max(worst, float(np.max(np.abs(depth[ok] - depth2[ok]) / depth[ok] ** 2)))
        gt.close()
        r.close()
        n = len(ts) * w * h
        total["pixels"] += n
        total["differ"] += differ
        total["ties"] += ties
        print(
            f"{spec:36s} {len(scene.objects):2d} objects, {len(ts):2d} states: ids differ at {differ} of {n} pixels "
            f"({ties} ties); max |dz|/z^2 where they agree {worst:.2e}; GPU pass {1000 * cpu / len(ts):.1f} ms/state",
            flush=True,
        )
    share = total["differ"] / max(total["pixels"], 1)
    n_differ, n_pixels = total["differ"], total["pixels"]
    print(f"all: ids differ at {n_differ} of {n_pixels} pixels ({100 * share:.4f}%), {total['ties']} ties")


if __name__ == "__main__":
    main()
