"""GRASP Level 1: every positive statement is true of the ground truth and every negative one is false,
judged from what the camera sees (projected positions), for many sampled videos; plus a tiny render."""

import json

import h5py
import numpy as np
import pytest

from voebench.contract import manifest as mf
from voebench.generator.scene import project
from voebench.generator.suite import Job, Timing
from voebench.scenes import REGISTRY
from voebench.scenes.grasp_l1 import truth

SUITE = REGISTRY.get("grasp-l1")
N = 24  # videos per test checked without rendering
W, H = 320, 240


def scenes(test):
    space = SUITE.space(test)
    for index in range(N):
        seed, p = SUITE.sample(test, space, 0, index)
        (condition,) = SUITE.conditions(test, p, {})
        job = Job("grasp-l1", test, index, condition, seed, None)
        scene = SUITE.make_scene(job, p, Timing(10, 50))
        yield job, p, scene, SUITE.entry(job, p, scene)


@pytest.mark.parametrize("test", SUITE.tests)
def test_statements_are_true_of_what_the_camera_sees(test):
    """The positive statement and open answer are true and the negative statement false, judged from the
    projected ground truth (scenes/grasp_l1/truth.py, the check the generation gate runs)."""
    for job, p, scene, entry in scenes(test):
        assert truth.check(test, scene, p, entry, W, H) == [], job.id


def test_rolling_ball_slows_down_and_rolls_without_slipping():
    for _, p, scene, _ in scenes("directionality"):
        ball = scene["ball"]
        speed = np.linalg.norm(np.diff(ball.position, axis=0), axis=1) * scene.fps
        moving = speed > 1e-9
        assert moving.any()
        s = speed[moving]
        assert s[0] == pytest.approx(p.speed, rel=0.05) and np.all(np.diff(s) <= 1e-9), "decelerates monotonically"
        assert speed[-1] == 0.0, "comes to rest"
        # rolling without slipping: the ball turns by distance / radius (|q0 . q1| = |cos(angle / 2)|)
        distance = np.linalg.norm(ball.position[-1] - ball.position[0])
        angle = distance / (p.ball.diameter / 2)
        assert abs(np.dot(ball.quaternion[0], ball.quaternion[-1])) == pytest.approx(abs(np.cos(angle / 2)), abs=1e-9)


def test_labels_are_balanced():
    for test in SUITE.tests:
        labels = [entry["label"] for *_, entry in scenes(test)]
        if test != "ordering":
            counts = {lab: labels.count(lab) for lab in set(labels)}
            assert max(counts.values()) - min(counts.values()) <= 1, (test, counts)


# ----------------------------------------------------------------------------- rendered


def test_rendered_set_is_complete_and_verified(level1_set):
    from conftest import voebench

    entries = [json.loads(line) for line in open(level1_set / "manifest.jsonl")]
    assert len(entries) == 12 and {e["test"] for e in entries} == set(SUITE.tests)
    for e in entries:
        for k in mf.REQUIRED_KEYS:  # the data contract's list, not a copy of it
            assert k in e
        assert (level1_set / e["video"]).stat().st_size > 0
    dataset = json.load(open(level1_set / "dataset.json"))
    assert dataset["suites"]["grasp-l1"]["identity"]["width"] == 64
    assert voebench("verify", level1_set).returncode == 0


def test_segmentation_ids_match_objects(level1_set):
    for e in map(json.loads, open(level1_set / "manifest.jsonl")):
        with h5py.File(level1_set / e["states"]) as f:
            seg, depth = f["segmentation"][()], f["depth"][()]
            assert seg.shape == depth.shape == (10, 48, 64)
            K, E = f["camera/intrinsics"][()], f["camera/extrinsics"][()]
            ids = {int(g.attrs["id"]): n for n, g in f["objects"].items()}
            visible = {}
            assert set(np.unique(seg)) - {0} <= set(ids)
            assert np.array_equal(np.isinf(depth), seg == 0), "background in depth and segmentation agree"
            for name, g in f["objects"].items():
                counts = (seg == g.attrs["id"]).sum(axis=(1, 2))
                assert np.array_equal(counts, g["visible_pixels"][()])
                visible[name] = counts
                if g.attrs["role"] in ("ball", "cube"):  # the objects the questions are about are in view
                    assert g["visible_pixels"][0] > 4
                    uv, z = project(g["position"][0][None], K, E[0])
                    u, v = uv[0].astype(int)
                    assert seg[0, v, u] == g.attrs["id"], "projected centre lands on its own id"
                    assert depth[0, v, u] < z[0], "the visible surface is nearer than the centre"
        # the statements are true at the rendered resolution, and what they are about is seen in every frame
        p, scene = rebuild(e)
        assert truth.check(e["test"], scene, p, e, e["width"], e["height"]) == [], e["id"]
        assert truth.check_pixels(e["test"], scene, visible) == [], e["id"]


def rebuild(e):
    """(params, scene) of a manifest entry, rebuilt from its sampled parameters and settings."""
    from voebench.generator.params import Params

    p = Params.wrap(e["params"]["sampled"])
    config = e["params"]["config"]
    job = Job("grasp-l1", e["test"], e["index"], e["condition"], e["seed"], None)
    scene = SUITE.make_scene(job, p, Timing(config["seconds"], config["fps"]))
    return p, scene
