"""Scripted panels with known accuracy, stored through the study's own store, exported and scored by
`voebench report`: the report must recover the accuracy within its CI, exclude the participants who fail the
attention checks, flag the videos people get wrong, and compute the panel statistics."""

from __future__ import annotations

import json
import os
import random

import pytest

HARD = 5  # t01 videos (implausible, first pairs) that people get wrong


def _truth_accuracy(trial: dict, accuracies: dict[str, float], hard: set[str]) -> float:
    if trial.get("video_id") in hard:
        return 0.1
    return accuracies[trial["entry"]["test"]]


def _run_panel(study_dir, accuracies, hard, careless=(), seed=0):
    """Every participant answers every trial through Study.answer, right with the trial's accuracy; `careless`
    participant numbers fail every attention check and answer at random."""
    from humans_fixtures import answer_for

    from voebench.evaluate.humans.store import Study

    study = Study(study_dir)
    plans: dict[int, list[dict]] = {}
    for a in study.answers():
        plans.setdefault(a["participant"], []).append(a["trial"])
    for (number, token), trials in zip(study.tokens(), plans.values()):
        rng = random.Random(f"{seed}/{number}")
        study.consent(token, True)
        study.instructions(token)
        for t in trials:
            public = {"question": t["question"], "response": t["response"]}
            if number in careless:
                if t["phase"] == "attention":
                    value = ("no" if t["expect"] == "yes" else "yes") if t["response"] == "yesno" else 50
                else:
                    value = answer_for(public, t.get("truth"), rng, 0.5)
            else:
                acc = _truth_accuracy(t, accuracies, hard) if t.get("truth") else 1.0
                value = answer_for(public, t.get("truth"), rng, acc)
            study.answer(token, t["position"], value, 1000, None)
    study.close()


def test_fleiss_kappa_matches_the_textbook_example():
    """Fleiss (1971) as in Wikipedia's worked example: 10 subjects, 14 raters, 5 categories, kappa = 0.210."""
    from voebench.evaluate.humans.stats import fleiss_kappa

    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    counts = [{str(j): n for j, n in enumerate(row) if n} for row in table]
    assert fleiss_kappa(counts) == pytest.approx(0.2099, abs=5e-4)
    assert fleiss_kappa([{"yes": 3}, {"no": 3}]) == pytest.approx(1.0)
    assert fleiss_kappa([{"yes": 3}, {"yes": 3}]) is None  # one category only: undefined
    assert fleiss_kappa([{"yes": 1}]) is None  # no subject with two ratings


def test_grasp_panel_recovers_its_accuracy(tmp_path):
    from conftest import voebench
    from humans_fixtures import make_plausibility_set

    from voebench.evaluate.humans import design, study

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 60, "t02": 60}, videos=True)
    accuracies = {"t01": 0.9, "t02": 0.65}
    hard = {f"grasp-l2/t01/{i:05d}-implausible" for i in range(HARD)}
    # 30 honest + 2 careless participants, 3 votes per video; the simulated panel answers at once (no viewing rule)
    d = design.default_design("grasp", 32, min_viewing="off")
    study_dir = str(tmp_path / "study")
    study.create(root, study_dir, d).close()
    _run_panel(study_dir, accuracies, hard, careless=(3, 17))

    run_dir = str(tmp_path / "run")
    voebench("humans", "export", study_dir, "--out", run_dir, "--no-report")
    out = voebench("report", run_dir)  # a human panel is scored like any run
    assert "## Human panel" in out.stdout
    res = json.load(open(os.path.join(run_dir, "results.json")))
    h = res["humans"]
    assert sorted(p["participant"] for p in h["excluded"]) == ["P004", "P018"]
    assert h["included"] == 30 and h["participants"] == 32
    expected = {"t01": (120 - HARD) / 120 * 0.9 + HARD / 120 * 0.1, "t02": 0.65}
    for row in res["tests"]:
        lo, hi = row["ci95"]
        assert lo <= expected[row["test"]] <= hi, (row["test"], row["acc"], row["ci95"])
        # an informative interval, not a trivially wide one; participants and videos are both resampled (crossed,
        # evaluate/uncertainty.py), which is conservative with 3 votes per video: 0.154 wide on t02, 0.102 before
        # when only videos were resampled
        assert hi - lo < 0.17
        assert row["chance"] == 0.5
    kappa = {t["test"]: t["fleiss_kappa"] for t in h["tests"]}
    assert kappa["t01"] > kappa["t02"] > 0  # people agree more where they are more often right
    # With about 1.5 votes per video in each half, the expected Spearman-Brown value is about 0.32 here (between-
    # video variance of the true accuracy 0.025, binomial noise of a half's mean 0.106): positive, but modest.
    assert h["split_half"] is not None and 0.15 < h["split_half"]["spearman_brown"] < 0.6
    # Flags: the stimuli people misjudge (right 10% of the time) are flagged; among the 115 easy t01 videos (right
    # 90%) a majority of 3 votes is wrong by chance for about 3% (a t02 video, right 65%, for 28%: with 3 votes
    # a flag is a stimulus to inspect, not a verdict; docs/humans.md).
    flagged = {v["video_id"] for v in h["flagged"]}
    assert len(hard & flagged) >= HARD - 1
    assert len({v for v in flagged if "/t01/" in v} - hard) <= 8
    assert {v["video_id"] for v in h["flagged"][:3]} <= hard  # listed first: least likely by chance
    answers = [json.loads(x) for x in open(os.path.join(run_dir, "answers.jsonl"))]
    assert {a["participant"] for a in answers if a["excluded"]} == {"P004", "P018"}
    assert not any("token" in k for a in answers for k in a)
    header = open(os.path.join(run_dir, "answers.csv")).readline().strip().split(",")
    assert header[:3] == ["participant", "position", "phase"]


def test_avoe_panel_retest_and_pairs(tmp_path):
    from humans_fixtures import make_plausibility_set

    from voebench.evaluate import report
    from voebench.evaluate.humans import design, export, study

    root = make_plausibility_set(str(tmp_path / "set"), {"A1": 12}, suite="avoe", videos=True)
    d = design.default_design("avoe", 6, repeat_fraction=0.5, min_viewing="off")  # answers at once
    study_dir = str(tmp_path / "study")
    study.create(root, study_dir, d).close()
    _run_panel(study_dir, {"A1": 0.85}, set())
    run_dir = str(tmp_path / "run")
    export.export(study_dir, run_dir)
    res = report.write_report(run_dir)
    h = res["humans"]
    assert h["excluded"] == [] and h["attention_pass_rate"] == 1.0
    assert h["retest"]["n"] == 6 * 12 and 0.5 < h["retest"]["same_answer"] <= 1.0
    assert h["retest"]["rating_r"] > 0
    assert h["pair_accuracy"]["n"] == 6 * 12 and h["pair_accuracy"]["acc"] > 0.6
    (row,) = res["tests"]
    assert row["ci95"][0] <= 0.85 <= row["ci95"][1]
    assert res["run"]["strategy"] == "human-avoe" and row["n"] == 6 * 24
