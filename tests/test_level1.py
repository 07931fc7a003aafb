"""GRASP Level 1: every positive statement is true of the ground truth and every negative one is false,
judged from what the camera sees (projected positions), for many sampled videos; plus a tiny render."""

import json

import h5py
import numpy as np
import pytest

from voebench.generator.scene import project
from voebench.generator.suite import Job, Timing
from voebench.scenes import REGISTRY

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


def pixel(scene, name, t):
    K, E = scene.camera.intrinsics(W, H), scene.camera.extrinsics()[t]
    uv, depth = project(scene[name].position[t][None], K, E)
    assert depth[0] > 0, f"{name} is behind the camera"
    return uv[0]


def statements(entry):
    pos = next(p for p in entry["prompts"] if p.get("polarity") == "positive")
    neg = next(p for p in entry["prompts"] if p.get("polarity") == "negative")
    assert pos["answer"] == "yes" and neg["answer"] == "no" and pos["observation"] != neg["observation"]
    assert pos["observation"] in pos["text"] and neg["observation"] in neg["text"]
    return pos["observation"], neg["observation"]


def in_image(uv):
    return 0 <= uv[0] < W and 0 <= uv[1] < H


def test_shape_and_color_statements_match_the_object():
    for test in ("shape", "color"):
        for job, p, scene, entry in scenes(test):
            true, false = statements(entry)
            obj = next(o for o in scene.objects.values() if o.role in ("ball", "cube"))
            if test == "shape":
                assert {"ball": "sphere", "cube": "box"}[true] == obj.shape
                assert {"ball": "sphere", "cube": "box"}[false] != obj.shape
            else:
                from voebench.scenes.common import COLORS
                assert np.allclose(obj.color[0], COLORS[true]) and not np.allclose(obj.color[0], COLORS[false])
            assert in_image(pixel(scene, obj.name, 0))
            opened = next(p for p in entry["prompts"] if p["kind"] == "open")
            assert opened["answer"] == true and true in opened["choices"]


def image_motion(scene, name):
    """Net motion of the object in the image (pixels; +u right, +v down)."""
    return pixel(scene, name, scene.n_frames - 1) - pixel(scene, name, 0)


def test_direction_statement_matches_projected_motion():
    expected = {"forward": (0, -1), "backward": (0, 1), "left": (-1, 0), "right": (1, 0)}  # image u, v
    for job, p, scene, entry in scenes("directionality"):
        true, false = statements(entry)
        motion = image_motion(scene, "ball")
        assert np.linalg.norm(motion) > 20, "the ball must visibly travel"
        unit = motion / np.linalg.norm(motion)
        assert np.dot(unit, expected[true]) > 0.99
        assert np.dot(unit, expected[false]) < 0.5
        assert in_image(pixel(scene, "ball", 0)) and in_image(pixel(scene, "ball", scene.n_frames - 1))


def test_rolling_ball_slows_down_and_rolls_without_slipping():
    for job, p, scene, entry in scenes("directionality"):
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


def test_movement_statement_matches_displacement():
    seen = set()
    for job, p, scene, entry in scenes("movement"):
        true, false = statements(entry)
        moved = np.linalg.norm(image_motion(scene, "ball"))
        assert (moved > 20) == (true == "moving") and (moved > 0) == (true == "moving")
        seen.add(true)
    assert seen == {"moving", "not moving"}


def test_ordering_statement_lists_objects_left_to_right_in_the_image():
    from voebench.scenes.common import COLORS

    for job, p, scene, entry in scenes("ordering"):
        true, false = statements(entry)
        objs = sorted((o for o in scene.objects.values() if o.name.startswith("object")),
                      key=lambda o: pixel(scene, o.name, 0)[0])
        seen = []
        for o in objs:
            color = next(c for c, rgb in COLORS.items() if np.allclose(o.color[0], rgb))
            seen.append(f"{color} {'ball' if o.shape == 'sphere' else 'cube'}")
            assert in_image(pixel(scene, o.name, 0))
        assert true == ", ".join(seen)
        assert false != true and sorted(false.split(", ")) == sorted(seen)
        assert len(set(seen)) == len(seen) == p.count


def test_relational_statement_matches_image_side():
    for job, p, scene, entry in scenes("relational"):
        true, false = statements(entry)
        side = "left" if pixel(scene, "ball", 0)[0] < pixel(scene, "barrier", 0)[0] else "right"
        assert true == side and false != side


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
        for k in ("id", "suite", "test", "condition", "pair_id", "seed", "video", "states", "n_frames", "fps",
                  "width", "height", "prompts", "description"):
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
            assert set(np.unique(seg)) - {0} <= set(ids)
            assert np.array_equal(np.isinf(depth), seg == 0), "background in depth and segmentation agree"
            for name, g in f["objects"].items():
                counts = (seg == g.attrs["id"]).sum(axis=(1, 2))
                assert np.array_equal(counts, g["visible_pixels"][()])
                if g.attrs["role"] in ("ball", "cube"):  # the objects the questions are about are in view
                    assert g["visible_pixels"][0] > 4
                    uv, z = project(g["position"][0][None], K, E[0])
                    u, v = uv[0].astype(int)
                    assert seg[0, v, u] == g.attrs["id"], "projected centre lands on its own id"
                    assert depth[0, v, u] < z[0], "the visible surface is nearer than the centre"
