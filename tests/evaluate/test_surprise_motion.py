"""The motion-energy baseline (evaluate/surprise/motion.py): surprise = the frame-difference energy of the frames
a model would predict, no model. Its numbers by hand, `--model motion-energy` end to end, and the per-test line
beside a world model's own numbers in that model's report."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from test_surprise import SMALL, make_paired_set

from voebench.evaluate.surprise.motion import motion_energy


def test_energy_by_hand():
    clip = np.full((1, 8, 32, 32, 3), 100, np.uint8)
    clip[0, 5] = 151  # frame 5 differs by 51/255 = 0.2 everywhere: steps 4->5 and 5->6 are 0.2, the rest 0
    e = motion_energy(clip, [2, 6])
    np.testing.assert_allclose(e, [[0.4 / 6, 0.2 / 2]], rtol=1e-6)  # C=2: steps 2..7 (6); C=6: steps 6, 7
    wide = np.full((1, 8, 36, 64, 3), 100, np.uint8)
    wide[0, 5, :, :14] = 255  # a change in the left border only, which the central-square crop cuts away
    wide[0, 5, :, 50:] = 255
    assert motion_energy(wide, [2]).tolist() == [[0.0]]
    wide[0, 5, :, 14] = 255  # the first column of the square
    assert motion_energy(wide, [2])[0, 0] > 0


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> str:
    return make_paired_set(str(tmp_path_factory.mktemp("motion")), pairs=3)


def test_motion_energy_run_and_the_line_in_a_model_report(pairs, tmp_path):
    from voebench.cli import main

    base = ["--no-progress", "--device", "cpu", *SMALL]
    me = str(tmp_path / "me")
    assert main(["evaluate", pairs, "--model", "motion-energy", "--out", me, *base]) == 0
    res = json.load(open(os.path.join(me, "results.json")))
    assert res["run"]["model"]["kind"] == "motion-energy" and res["pairs"] == 3
    curves = [json.loads(x) for x in open(os.path.join(me, "surprise.jsonl"))]
    assert all("motion" not in r for r in curves)  # a motion run does not store itself twice
    # the square jumps at the onset in the violated video: more change to predict, so motion says "violated"
    rel = res["tests"][0]["fixed"]["avg"]["relative"]
    assert rel == 1.0
    assert main(["evaluate", pairs, "--model", "motion-energy:x", "--out", str(tmp_path / "bad"), *base]) == 2

    pytest.importorskip("transformers")
    wm = str(tmp_path / "wm")
    assert main(["evaluate", pairs, "--model", "vjepa2-random:tiny", "--out", wm, *base]) == 0
    recs = {json.loads(x)["id"]: json.loads(x) for x in open(os.path.join(wm, "surprise.jsonl"))}
    for r in curves:  # the stored motion curves are the motion-energy run's curves
        np.testing.assert_allclose(recs[r["id"]]["motion"]["4"], r["surprise"]["4"], rtol=1e-12)
    res_wm = json.load(open(os.path.join(wm, "results.json")))
    rows = {r["test"]: r for r in res_wm["motion_baseline"]["tests"]}
    assert set(rows) == {"t09_gravity", "**all**"} and rows["t09_gravity"]["comparisons"] == 3
    assert rows["t09_gravity"]["motion"] == rel
    assert rows["t09_gravity"]["model"] == res_wm["tests"][0]["fixed"]["avg"]["relative"]
    # motion calls every pair "violated" (outcome 1), so agreement = the share of pairs the model calls so too
    by_pair: dict[str, dict[bool, float]] = {}
    for r in recs.values():
        by_pair.setdefault(r["pair_id"], {})[r["plausible"]] = float(np.mean(r["surprise"]["4"]))
    model_says_violated = [s[False] > s[True] for s in by_pair.values()]
    assert rows["t09_gravity"]["agreement"] == pytest.approx(np.mean(model_says_violated))
    report = open(os.path.join(wm, "report.md")).read()
    assert "Motion-energy baseline" in report and "| grasp-l2 | t09_gravity | 3 |" in report
