"""The predict suite: collision ground truth checked against the written states, balance, the cut before the
first collision, the audit, and an end-to-end run (tiny render, fake model, fake judge)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import voebench

from voebench.contract.hdf5 import read_states
from voebench.contract.manifest import read_manifest


@pytest.fixture(scope="module")
def states_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("predict") / "set"
    # 15 fps keeps Bullet's work small; the ground-truth rules are the same at any rate
    voebench("render", "predict", "--out", out, "--trials", 4, "--fps", 15, "--states-only", "--workers", 1, "--quiet")
    return out


def velocities(position, fps):
    return np.diff(position[:, :2], axis=0) * fps


def test_ground_truth_matches_the_states(states_set):
    """Independently of the suite's own detection: an object never hit keeps its velocity from the hand-over to
    the end (frictionless floor); a hit object keeps it until its first collision and then changes it; the two
    objects of a collision are within reach of each other at that frame; the cut comes before every collision."""
    entries = read_manifest(str(states_set / "manifest.jsonl"))
    assert sorted(e["condition"] for e in entries) == ["collision", "collision", "no_collision", "no_collision"]
    for e in entries:
        pred = e["prediction"]
        st = read_states(str(states_set / e["states"]))["objects"]
        name = {o["label"]: o["name"] for o in pred["objects"]}
        fps = e["fps"]
        assert (pred["collisions"] == []) == (e["condition"] == "no_collision")
        first_hit = {}
        for c in pred["collisions"]:
            assert c["frame"] > pred["cut_frame"]
            for lab in c["objects"]:
                first_hit.setdefault(lab, c["frame"])
            a, b = (st[name[x]] for x in c["objects"])
            gap = np.linalg.norm(a["position"][c["frame"], :2] - b["position"][c["frame"], :2])
            reach = max(a["dimensions"]) / np.sqrt(2) + max(b["dimensions"]) / np.sqrt(2)
            assert gap <= reach + 0.15, (e["id"], c)
        assert set(pred["unhit"]) == set(name) - set(first_hit)
        for lab, n in name.items():
            v = velocities(st[n]["position"], fps)[3:]  # from the hand-over to Bullet on
            end = first_hit.get(lab, e["n_frames"]) - 4  # up to the frame before the hit (v[t]: t -> t+1)
            assert np.abs(v[: end - 1] - v[0]).max() < 0.02, (e["id"], lab)
            if lab in first_hit:
                assert np.abs(v[end + 2 :] - v[0]).max() > 0.05, (e["id"], lab)
            final = st[n]["position"][-1, :2]
            assert np.allclose(pred["final_positions"][lab], final, atol=1e-3)


def test_the_set_passes_the_audit(states_set):
    proc = voebench("audit", states_set, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_end_to_end_with_fake_models_and_a_fake_judge(tmp_path):
    out = tmp_path / "set"
    voebench(
        "render",
        "predict",
        "--out",
        out,
        "--trials",
        2,
        "--resolution",
        "64x48",
        "--fps",
        "10",
        "--workers",
        1,
        "--quiet",
    )
    run = tmp_path / "run"
    voebench("predict", out, "--model", "fake:oracle", "--judge", "fake:messy", "--out", run, "--temperatures", "0,1")
    res = json.load(open(run / "results.json"))
    assert {(g["form"], g["temperature"]) for g in res["groups"]} == {
        ("image", 0.0),
        ("image", 1.0),
        ("video", 0.0),
        ("video", 1.0),
    }
    assert all(g["exact"]["macro_f1"] == 1.0 and g["judge"]["accuracy"] == 1.0 for g in res["groups"])
    never = tmp_path / "never"
    voebench("predict", out, "--model", "fake:never", "--forms", "video", "--out", never)
    res = json.load(open(never / "results.json"))
    assert res["groups"][0]["exact"]["macro_f1"] == 0.5  # one clip of each outcome


@pytest.mark.slow
def test_event_questions_for_grasp_level2_are_cut_before_the_event(tmp_path):
    """t14's plausible video is cut before the collision (the implausible twin's first differing frame) and asked
    which of the two descriptions comes true; t09's ball only appears at the event, so it gets no question."""
    out = tmp_path / "l2"
    voebench(
        "render",
        "grasp-l2",
        "--tests",
        "t09_gravity_incline,t14_collision",
        "--trials",
        1,
        "--resolution",
        "64x48",
        "--fps",
        "10",
        "--workers",
        1,
        "--quiet",
        "--out",
        out,
    )
    entries = {e["id"]: e for e in read_manifest(str(out / "manifest.jsonl"))}
    onset = entries["grasp-l2/t14_collision/00000-implausible"]["violation"]["first_frame"]
    for model, want in (("oracle", 1.0), ("random", None)):
        run = tmp_path / model
        proc = voebench("predict", out, "--model", f"fake:{model}", "--judge", "fake:exact", "--out", run)
        assert "1 pair(s) without an event question" in proc.stderr
        recs = [json.loads(x) for x in open(run / "samples.jsonl")]
        assert {r["test"] for r in recs} == {"t14_collision"} and {r["form"] for r in recs} == {"image", "video"}
        for r in recs:
            assert r["cut_frame"] == onset - 1 and max(r["frames"]) == onset - 1
            assert r["answer"] == entries["grasp-l2/t14_collision/00000-plausible"]["description"]
            assert r["options"][r["outcome"]] == r["answer"]
            if want is not None:
                assert r["exact"]["strict"] and r["judge_scores"]["accuracy"] == 1
