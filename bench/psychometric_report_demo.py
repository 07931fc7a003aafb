"""The psychometric report end to end on simulated scorers: a swept set (manifest only), a video-language model
stand-in scored by the real `voebench evaluate` (fake:psychometric, known curve, `--strategy text`: no video is
decoded), a simulated world model (surprise.jsonl) and a simulated human panel (an export's samples.jsonl), all
given to `voebench report ... --psychometric DIR`, which fits every scorer per test and draws them on one plot.

    .venv/bin/python bench/psychometric_report_demo.py --work /tmp/psy-demo \
        --figure docs/img/psychometric-report-example.png

Prints the report (psychometric.md) and the wall time of the report command; the figure of the first graded test
is copied to --figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkout import import_evaluate

import_evaluate()

from voebench.cli import main as voebench  # noqa: E402
from voebench.evaluate.psychometrics import simulate  # noqa: E402
from voebench.evaluate.psychometrics.report import MARKDOWN, figure_name  # noqa: E402

GRADED = {"t08_inertia_bounce": "m", "t05_hover": "s"}
BINARY = ("t01_color_change",)
MODEL = "fake:psychometric:threshold=0.45,slope=10,guess=0.15,lapse=0.02"


def run(work: str, trials: int, levels: int, boot: int, figure: str | None) -> None:
    if os.path.exists(work):
        raise SystemExit(f"{work} exists: give a new folder")
    xs = [i / (levels - 1) for i in range(levels)]
    root = os.path.join(work, "set")
    entries = simulate.write_graded_set(root, GRADED, xs, trials=trials, binary=BINARY)
    model, world, humans, out = (os.path.join(work, n) for n in ("model", "world", "humans", "psychometric"))
    rc = voebench(
        [
            "evaluate",
            root,
            "--model",
            MODEL,
            "--strategy",
            "text",
            "--repeats",
            "1",
            "--out",
            model,
            "--no-progress",
            "--tests",
            ",".join(GRADED),
        ]
    )
    if rc != 0:
        raise SystemExit(f"evaluate exited {rc}")
    simulate.write_surprise_run(root, entries, world, gain=1.2, seed=1, name="simulated world model (gain 1.2)")
    simulate.write_human_panel(
        root, entries, humans, participants=8, threshold=0.25, spread=0.05, slope=15.0, seed=2, with_levels=False
    )
    t0 = time.perf_counter()
    rc = voebench(["report", model, world, humans, "--psychometric", out, "--psychometric-boot", str(boot)])
    wall = time.perf_counter() - t0
    if rc != 0:
        raise SystemExit(f"report exited {rc}")
    print(
        f"\nreport --psychometric: {wall:.1f} s wall ({len(GRADED)} graded tests x 3 scorers, {boot} draws)",
        file=sys.stderr,
    )
    if figure:
        shutil.copyfile(os.path.join(out, figure_name("grasp-l2", next(iter(GRADED)))), figure)
        print(f"figure -> {figure}", file=sys.stderr)
    print(f"report -> {os.path.join(out, MARKDOWN)}", file=sys.stderr)


def cli() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="a new folder for the set, the runs and the report")
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--levels", type=int, default=7, help="levels from 0 to 1, evenly spaced (0 = plausible twin)")
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap draws per fit")
    ap.add_argument("--figure", help="copy the first graded test's figure here")
    a = ap.parse_args()
    run(a.work, a.trials, a.levels, a.boot, a.figure)


if __name__ == "__main__":
    cli()
