"""CPU time of the numpy FXAA filter (generator/antialias.py) against its form at an earlier commit, on aliased
frames of a real video, in one run; asserts that both give the same bytes.

    LP_NUM_THREADS=1 .venv/bin/python bench/fxaa_time.py --before 8432a31   # the commit before the one-shot search

Frames: the first --frames distinct states of grasp-l2/t15 trial 0 (plausible), rendered aliased at --size.
Each form runs --reps passes over all frames, alternating; the minimum pass is reported (CPU of this process).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_at(rev: str):
    src = subprocess.run(
        ["git", "-C", ROOT, "show", f"{rev}:generator/antialias.py"], check=True, capture_output=True, text=True
    ).stdout
    path = os.path.join(tempfile.mkdtemp(prefix="vb-fxaa-"), "antialias_before.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location("antialias_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def frames(size, n):
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender import render
    from voebench.generator.runner import RunConfig, effective_space, first_trial
    from voebench.generator.runner import suite_for as _suite
    from voebench.generator.trial import draw

    suite, test = _suite("grasp-l2"), "t15_support_pin"
    space = effective_space(suite, test, {})
    cfg = RunConfig(out="/tmp", suite="grasp-l2", tests=[test], trials=1)
    trial = first_trial(suite, test, space, cfg, 0)
    scene = suite.make_scene(trial.jobs[0], draw(suite, space, trial, 0), cfg.timing)
    r = render.Renderer(scene, render.RenderSettings(*size))
    firsts = scene.first_frames()
    r._rgb_mode()
    r._animate(firsts[:n], "rgb_")
    paths = [os.path.join(r.tmp, f"rgb_{i:04d}.bmp") for i in range(1, n + 1)]
    out = [np.ascontiguousarray(render.read_bmp(path)[..., :3]) for path in paths]
    r.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="git revision of the form to compare with")
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--frames", type=int, default=16)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    from voebench.generator import antialias

    before = module_at(args.before)
    imgs = frames(tuple(int(x) for x in args.size.split("x")), args.frames)
    assert all(np.array_equal(before.fxaa(im), antialias.fxaa(im)) for im in imgs), "the two forms differ"
    best = {"before": 1e9, "now": 1e9}
    for rep in range(args.reps):
        for name, fn in (("before", before.fxaa), ("now", antialias.fxaa))[:: 1 if rep % 2 == 0 else -1]:
            c0 = time.process_time()
            for im in imgs:
                fn(im)
            best[name] = min(best[name], (time.process_time() - c0) / len(imgs))
    print(
        f"fxaa {args.size}, {len(imgs)} frames, same bytes: before ({args.before}) {1000 * best['before']:.2f} ms, "
        f"now {1000 * best['now']:.2f} ms per frame (min of {args.reps} passes, CPU; load {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
