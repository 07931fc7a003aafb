"""bench/world_model_curve.py on stored curves (issue 30's first GPU call, seed 0 at steps 500 and 1963): the per-seed
number is the report's, the random distribution and the differences are what the runs give, and a snapshot whose
segment did not reach its point is left out."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "issue30-10x"
SET = "test-l2-128"


def _layout(tmp: Path) -> tuple[Path, Path]:
    with tarfile.open(RESULTS / "curves-trained.tgz") as tf:
        tf.extractall(tmp / "x", filter="data")
    runs = tmp / "x" / "c1" / "wmtrain" / "seed0"
    early, late = runs / "step000500" / SET, runs / "step001963" / SET
    trained, rnd = tmp / "trained", tmp / "random"
    shutil.copytree(early, trained / "seed0" / "step000500" / SET)
    shutil.copytree(late, trained / "seed0" / "step001963" / SET)
    shutil.copytree(late, trained / "seed1" / "step001963" / SET)  # seed 1 stopped at step 190 in that call
    shutil.copytree(early, rnd / "vjepa2-random-small-128" / "bfloat16" / "seed00" / SET)
    shutil.copytree(late, rnd / "vjepa2-random-small-128" / "bfloat16" / "seed01" / SET)
    shutil.copytree(early, rnd / "motion-energy" / SET)
    return trained, rnd


def test_curve_on_stored_runs(tmp_path: Path) -> None:
    trained, rnd = _layout(tmp_path)
    out = tmp_path / "curve.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "world_model_curve.py"), "--trained", str(trained), "--summaries",
         str(RESULTS / "call1-train-summary.json"), "--random", str(rnd), "--sets", SET, "--out", str(out)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    s = json.loads(out.read_text())["sets"][SET]
    summary = json.loads((RESULTS / "call1-train-summary.json").read_text())["runs"]["0"]
    reported = {p["step"]: p["suites"]["grasp-l2"]["voebench"] for p in summary}
    steps = {row["step"]: row for row in s["steps"]}
    assert sorted(steps) == [500, 1963]
    assert all(list(row["seeds"]) == ["0"] for row in s["steps"])  # seed 1's folder names a point it never reached
    for step, row in steps.items():
        assert abs(row["seeds"]["0"]["voebench"]["point"] - reported[step]) < 1e-9
        assert row["pooled"]["point"] == row["seeds"]["0"]["voebench"]["point"]  # one seed: pooled is that seed
    a, b = reported[500], reported[1963]
    assert a != b
    assert abs(s["random"]["mean"] - (a + b) / 2) < 1e-9
    assert abs(steps[500]["minus_random"]["point"] - (a - (a + b) / 2)) < 1e-9
    assert abs(steps[1963]["minus_random"]["point"] - (b - (a + b) / 2)) < 1e-9
    assert steps[500]["agreement_with_motion"] == 1.0  # the motion run is the step-500 run itself
    lo, hi = steps[1963]["minus_random"]["lo"], steps[1963]["minus_random"]["hi"]
    assert lo <= steps[1963]["minus_random"]["point"] <= hi
    assert steps[1963]["minus_random"]["resampled"] == "tests, then pairs within tests"
