"""Rendering benchmarks for docs/performance.md. Every ratio is measured within one invocation.

    .venv/bin/python bench/bench_render.py paths --json bench/results/paths-<machine>.json  # today's path vs new
    .venv/bin/python bench/bench_render.py quality --json bench/results/quality-<machine>.json  # AA vs 4x reference
    .venv/bin/python bench/bench_render.py project --paths-from bench/results/paths-<machine>.json \\
        --unique-from bench/results/unique-frames-<date>.json   # written by bench/unique_frames.py --json

  paths         today's render path (Blender FXAA, one render() per state) against the new one (aliased render +
                numpy FXAA, one render(animation=True) per batch and pass, frames shared within a trial) on a
                still Level 1 video, a Level 2 video, a Level 2 pair and an AVoE video at 960x540
  quality       mean absolute error of Blender's FXAA, the aliased render and the numpy FXAA against a 4x4
                supersampled render; writes side-by-side crops to docs/img/
  project       core-hours of the full default GRASP (L1 + L2) and of the AVoE 10% subset, per path
  run-check     a real `voebench render --workers W` against the same trials made one by one in this process:
                what a run pays beyond its trials, and whether trial 0 prices the others
  reuse-still   10 s, 50 fps still Level 1 video, frame reuse vs naive; asserts bit-identical output   (was a)
  reuse-l2      a typical Level 2 video, reuse vs naive, with where the time goes                      (was b)
  warm          warm worker (one process, many videos) vs a fresh process per video                     (was c)
  workers       workers x LP_NUM_THREADS in {1x1, 1x2, 2x1}: frames/s and frames/s per core             (was d)
  memory        resident memory of one worker after 30 and after 300 videos                            (was e)
  project-reuse projection of the previous round (reuse vs naive wall time), from reuse-l2 and workers  (was f)

Times are wall seconds and CPU seconds (this process + ffmpeg children); on a shared machine CPU seconds are the
steadier number, so both are printed, with the load average. Where the time goes is measured with explicit
timers (`Timers`) around named functions, found by reference: a renamed function fails loudly instead of
timing nothing.

This script parses the command line; the benchmarks live in bench/render/, one module per concern (timers,
reuse, paths, quality, project, legacy for the previous round's subcommands, report for the tables).
"""

from __future__ import annotations

import argparse
import json
import os

# This script's folder is on sys.path when it runs, so its package of benchmarks imports by name.
from render.common import RESULTS, ROOT, log, machine, save
from render.legacy import part_a, part_b, part_c, part_d, part_e, part_f
from render.paths import cmd_paths
from render.project import cmd_project
from render.quality import cmd_quality
from render.runcheck import cmd_run_check
from render.report import markdown


COMMANDS = {
    "paths": cmd_paths,
    "quality": cmd_quality,
    "project": cmd_project,
    "run-check": cmd_run_check,
    "reuse-still": part_a,
    "reuse-l2": part_b,
    "warm": part_c,
    "workers": part_d,
    "memory": part_e,
    "project-reuse": part_f,
}
OLD_NAMES = {"reuse-still": "a", "reuse-l2": "b", "warm": "c", "workers": "d", "memory": "e", "project-reuse": "f"}


def main():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", help="write all results here (rewritten after each step)")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("paths", parents=[common], help="today's render path vs the new one")
    p.add_argument(
        "--items",
        nargs="+",
        default=["l1-still", "l2", "l2-pair", "avoe-960x540", "l2-640x480", "avoe-pair"],
        choices=["l1-still", "l2", "l2-pair", "avoe-960x540", "l2-640x480", "avoe-pair"],
    )
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--l2-test", default="t15_support_pin", help="the Level 2 test (t15: a median Level 2 test)")
    p.add_argument("--avoe-test", default="C1", help="AVoE test (C1: all 50 frames distinct)")
    p = sub.add_parser("quality", parents=[common], help="anti-aliasing error against a 4x supersampled render")
    p.add_argument("--img-dir", default=os.path.join(ROOT, "docs", "img"), help="where the crops go ('' for none)")
    p.add_argument("--crops", type=int, default=3)
    p = sub.add_parser("project", parents=[common], help="core-hours of the default suites, per path")
    p.add_argument("--paths-from", required=True, help="JSON written by `paths --json`")
    p.add_argument("--unique-from", help="distinct-frame survey from bench/unique_frames.py --json")
    p = sub.add_parser("run-check", parents=[common], help="a real run against its trials made in this process")
    p.add_argument("--suite", default="grasp-l2")
    p.add_argument("--test", default="t15_support_pin")
    p.add_argument("--trials", type=int, default=6)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--resolution", default="320x240")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--fps", type=float, default=50.0)
    p = sub.add_parser("reuse-still", parents=[common], help="(a) still L1 video, reuse vs naive")
    p.add_argument("--repeats", type=int, default=3, help="reuse runs (naive runs once)")
    p = sub.add_parser("reuse-l2", parents=[common], help="(b) a Level 2 video, reuse vs naive")
    p.add_argument("--l2-test", default="t15_support_pin")
    p = sub.add_parser("warm", parents=[common], help="(c) warm worker vs a process per video")
    p.add_argument("--videos-c", type=int, default=4)
    p.add_argument("--repeats-c", type=int, default=2)
    p = sub.add_parser("workers", parents=[common], help="(d) workers x threads")
    p.add_argument("--videos-d", type=int, default=3, help="trials per test (2 tests)")
    p.add_argument("--repeats-d", type=int, default=2)
    p = sub.add_parser("memory", parents=[common], help="(e) resident memory over many videos")
    p.add_argument("--videos-e", type=int, default=300)
    p = sub.add_parser("project-reuse", parents=[common], help="(f) previous round's projection")
    p.add_argument(
        "--results-from",
        action="append",
        default=[],
        help="JSON of an earlier run whose reuse-l2 (b) and workers (d) results to use",
    )
    p.add_argument("--unique-from", help="distinct-frame survey from bench/unique_frames.py --json")
    p.add_argument("--l2-test", default="t15_support_pin")
    p.add_argument("--avoe-test", default="C1")
    p.add_argument("--repeats", type=int, default=1)
    p.set_defaults(videos_d=3, repeats_d=2)
    args = ap.parse_args()
    for path in getattr(args, "results_from", []):
        with open(path) as f:
            RESULTS.update(json.load(f))
    # one single-threaded worker per core is the default (docs/performance.md (d)); set before bpy loads
    os.environ.setdefault("LP_NUM_THREADS", "1")
    log(f"== {args.command} (LP_NUM_THREADS={os.environ['LP_NUM_THREADS']}; {machine()['uptime']})")
    res = COMMANDS[args.command](args)
    if args.command in OLD_NAMES:
        RESULTS[OLD_NAMES[args.command]] = res
    save(args)
    print(markdown(RESULTS))


if __name__ == "__main__":
    main()
