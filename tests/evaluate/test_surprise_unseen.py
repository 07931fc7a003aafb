"""A pair whose violation cannot appear in the frames a world model sees is flagged and left out of the score,
with a count in the report, not scored as a tie (issue 30, fix 5; evaluate/surprise/visibility.py).

The set: 16 frames of 32x48 (the model sees the central 32x32), a square moving right, and one pair per case:
- `blip`: the implausible square jumps aside on frames 5-6 only; at frame step 4 (frames 0, 4, 8, 12 sampled)
  the edit falls between sampled frames and both videos' sampled frames are identical;
- `shift`: the square jumps aside at frame 9 (the recorded edit) and stays there: the edit falls between sampled
  frames too, but frame 12 shows its effect: scored, and flagged;
- `late`: the square jumps at frame 13, after the last sampled frame;
- `border`: from frame 4 on a dot appears in the left border that the central crop cuts away: sampled, but the
  model sees identical frames;
- `seen`: the square jumps at frame 8 and stays: a sampled frame shows it.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from contract_fixtures import complete_entry, write_dataset
from test_surprise import _write_lossless

from voebench.contract import manifest as mf
from voebench.evaluate.surprise import metrics, visibility

N, H, W = 16, 32, 48
#: violation windows (first, last) as the manifest records them; `shift` records its one-frame edit, whose effect
#: (the displacement) lasts to the end of the video
CASES = {"blip": (5, 6), "shift": (9, 9), "late": (13, 15), "border": (4, 15), "seen": (8, 15)}
STEP4 = ["--frame-step", "4", "--window", "4", "--stride", "1", "--context-lengths", "2", "--fixed-context", "2"]


def _video(case: str | None) -> np.ndarray:
    v = np.full((N, H, W, 3), 60, np.uint8)
    first, last = CASES[case] if case else (N, N)
    for t in range(N):
        shifted = first <= t <= (N if case == "shift" else last)
        x = 8 + t + (10 if case != "border" and shifted else 0)
        v[t, 10:16, x : x + 6] = 255
        if case == "border" and t >= first:
            v[t, 4:8, 1:5] = 255  # columns 1-4: outside the central square (columns 8-39)
    return v


def _set(root: str) -> str:
    entries = []
    for i, case in enumerate(CASES):
        for cond in ("plausible", "implausible"):
            rel = f"grasp-l2/t09_gravity/{i:05d}-{cond}"
            os.makedirs(os.path.join(root, "grasp-l2/t09_gravity"), exist_ok=True)
            _write_lossless(os.path.join(root, rel + ".mp4"), _video(case if cond == "implausible" else None))
            first, last = CASES[case]
            entries.append(complete_entry({
                "id": rel, "suite": "grasp-l2", "test": "t09_gravity", "index": i, "condition": cond,
                "pair_id": f"grasp-l2/t09_gravity/{case}", "seed": i, "video": rel + ".mp4", "states": rel + ".h5",
                "n_frames": N, "fps": 10.0, "width": W, "height": H, "pair_conditions": ["plausible", "implausible"],
                "violation": None if cond == "plausible" else {
                    "principles": ["gravity"], "kind": "teleport", "object": "ball", "first_frame": first,
                    "last_frame": last, "hidden": False},
            }))  # fmt: skip
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


@pytest.fixture(scope="module")
def unseen_set(tmp_path_factory) -> str:
    return _set(str(tmp_path_factory.mktemp("unseen")))


def test_violations_between_sampled_frames_are_left_out_not_tied(unseen_set, tmp_path, capsys):
    pytest.importorskip("transformers")
    from voebench.cli import main

    out = str(tmp_path / "run")
    assert main(["evaluate", unseen_set, "--model", "vjepa2-random:tiny", "--out", out, "--no-progress",
                 "--device", "cpu", *STEP4]) == 0  # fmt: skip
    curves = {json.loads(x)["id"]: json.loads(x) for x in open(os.path.join(out, "surprise.jsonl"))}
    rec = {(r["pair_id"].rsplit("/", 1)[1], r["plausible"]): r for r in curves.values()}
    # the model's input is the same in both videos of blip, late and border: their surprise ties in every window
    for case in ("blip", "late", "border"):
        assert rec[(case, True)]["surprise"] == rec[(case, False)]["surprise"], case
    assert rec[("seen", True)]["surprise"] != rec[("seen", False)]["surprise"]

    res = json.load(open(os.path.join(out, "results.json")))
    left = res["left_out"]
    reason = {it["pair_id"].rsplit("/", 1)[1]: it["reason"] for it in left["items"]}
    assert reason == {"blip": "between-sampled-frames", "late": "after-scored-windows", "border": "identical-frames"}
    assert left["comparisons"] == 3 and left["by_test"] == [
        {"suite": "grasp-l2", "test": "t09_gravity", "between-sampled-frames": 1, "after-scored-windows": 1,
         "identical-frames": 1}
    ]  # fmt: skip
    assert [it["pair_id"].rsplit("/", 1)[1] for it in left["scored_but_flagged"]] == ["shift"]
    t = res["tests"][0]
    assert res["pairs"] == 2 and t["pairs"] == 2 and res["videos_without_twin"] == 0
    # the unseen pairs' ties (0.5 each) are not in the score: two scored pairs give 0, 0.5 or 1, never 0.25 or 0.75
    assert t["fixed"]["avg"]["relative"] in (0.0, 0.5, 1.0)
    assert rec[("shift", True)]["surprise"] != rec[("shift", False)]["surprise"]
    report = open(os.path.join(out, "report.md")).read()
    assert "Left out: 3 comparison(s) of 3 pair(s)" in report
    assert "t09_gravity: 1 after-scored-windows, 1 between-sampled-frames, 1 identical-frames" in report
    assert "Flagged, scored: 1 comparison(s) whose edit falls between sampled frames" in report
    assert "3 comparison(s) left out" in capsys.readouterr().err

    # every frame sampled: blip, shift and late show their violation and are scored; border stays unseen
    out1 = str(tmp_path / "run1")
    assert main(["evaluate", unseen_set, "--model", "vjepa2-random:tiny", "--out", out1, "--no-progress",
                 "--device", "cpu", "--frame-step", "1", "--window", "8", "--context-lengths", "2,4",
                 "--fixed-context", "4"]) == 0  # fmt: skip
    res1 = json.load(open(os.path.join(out1, "results.json")))
    assert [it["reason"] for it in res1["left_out"]["items"]] == ["identical-frames"] and res1["pairs"] == 4


def _rec(plausible: bool, window=(5, 6), digest=None, s=1.0) -> dict:
    return {"id": f"p-{plausible}", "suite": "s", "test": "t", "pair_id": "p", "plausible": plausible,
            "condition": "x", "onset": window[0], "violation_window": list(window), "frame_step": 4, "window": 4,
            "window_end": [12], "surprise": {"2": [s]}, **({"frame_digest": digest} if digest else {})}  # fmt: skip


def test_the_rule_on_stored_records():
    """With frame digests the frames decide; runs scored before digests were stored fall back on exactly equal
    surprise curves (a deterministic model that saw no difference)."""
    assert visibility.scored_frames(_rec(False)) == [0, 4, 8, 12]
    assert visibility.unseen_reason(_rec(True), _rec(False)) == "between-sampled-frames"
    assert visibility.unseen_reason(_rec(True), _rec(False, s=2.0)) is None  # the edit's effect reached the model
    assert visibility.edit_between_samples(_rec(False)) and not visibility.edit_between_samples(_rec(False, (4, 6)))
    assert visibility.unseen_reason(_rec(True, (4, 6)), _rec(False, (4, 6))) == "identical-surprise"
    assert visibility.unseen_reason(_rec(True, (4, 6)), _rec(False, (4, 6), s=0.5)) is None
    assert visibility.unseen_reason(_rec(True, (13, 14)), _rec(False, (13, 14), s=2.0)) == "after-scored-windows"
    same, other = ["a", "b", "c", "d"], ["a", "b", "x", "x"]
    # digests decide over the curves: equal frames are left out even if the curves differ, and the reverse
    assert visibility.unseen_reason(_rec(True, (4, 9), same), _rec(False, (4, 9), same, s=2.0)) == "identical-frames"
    assert visibility.unseen_reason(_rec(True, (4, 9), same), _rec(False, (4, 9), other)) is None
    assert visibility.unseen_reason(_rec(True, (5, 6), same), _rec(False, (5, 6), other)) is None  # effect persists
    s = metrics.summarize([_rec(True), _rec(False)], [2], 2, n_boot=10)  # everything left out: a report, no error
    assert s["pairs"] == 0 and s["tests"] == [] and s["left_out"]["comparisons"] == 1
    from voebench.evaluate.surprise import report

    assert "Left out: 1 comparison(s)" in report.markdown(s, {})
