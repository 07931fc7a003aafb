"""AVoE suite: every sub-type builds both conditions, labels agree with the simulated tracks, splits are
deterministic, train is expected-only by default, and a tiny render of each category works."""

from __future__ import annotations

import json
from types import SimpleNamespace

import h5py
import numpy as np
import pytest

from conftest import voebench
from voebench.contract.avoe_labels import validate_labels
from voebench.generator.runner import RunConfig, plan
from voebench.generator.suite import Job
from voebench.scenes import REGISTRY
from voebench.scenes.avoe import SUBTYPES, TESTS, split_of
from voebench.scenes.avoe.world import local_points, world_points

SUITE = REGISTRY.get("avoe")
SEEDS_PER_SUBTYPE = 2


def trials(test, n, start=0):
    """The first n trials (index, seed, params) of a sub-type."""
    space, out, i = SUITE.space(test), [], start
    while len(out) < n:
        seed, p = SUITE.sample(test, space, 0, i)
        if SUITE.subtype(test, p) == test:
            out.append((i, seed, p))
        i += 1
    return out


def build(test, i, seed, p, condition):
    return SUITE.make_scene(Job("avoe", test, i, condition, seed, f"avoe/{test}/{i:05d}"), p, SUITE.default_timing)


# ------------------------------------------------------------------------ independent outcome checks


def _final_pts(scene, name):
    return world_points(scene[name], scene.n_frames - 1)


def check_A(scene, post, p=None):
    # held <=> the object's centre ends above the block's top face
    support = scene["support"]
    top = support.position[0, 2] + support.dimensions[2] / 2
    held = scene["object"].position[-1, 2] > top
    assert post["support_holds_object"] == held


def check_B(scene, post, p=None):
    # seen in the middle <=> in some frame a point of the object projects above the middle part's top edge and
    # between its sides, in pixels (independent of the script's ray/plane geometry)
    W, H = 960, 540
    K = scene.camera.intrinsics(W, H)
    E = scene.camera.extrinsics()
    mid = scene["screen_middle"]
    obj = scene["object"]
    loc = local_points(obj)
    seen = False
    for t in range(scene.n_frames):
        if not obj.visible[t]:
            continue
        c = mid.position[t]
        hx, hy, hz = mid.dimensions / 2
        edge = np.array([[c[0] - hx, c[1] + hy, c[2] + hz], [c[0] + hx, c[1] + hy, c[2] + hz]])
        e_px = (K @ (E[t] @ np.c_[edge, np.ones(2)].T)[:3]).T
        e_px = e_px[:, :2] / e_px[:, 2:]
        p = world_points(obj, t, loc)
        q = (K @ (E[t] @ np.c_[p, np.ones(len(p))].T)[:3]).T
        q = q[:, :2] / q[:, 2:]
        # the top edge's pixel row at each point's column (a straight line between the two corners)
        f = (q[:, 0] - e_px[0, 0]) / (e_px[1, 0] - e_px[0, 0])
        row = e_px[0, 1] + f * (e_px[1, 1] - e_px[0, 1])
        inside = (f > 0) & (f < 1) & (q[:, 1] < row - 1e-6) & (p[:, 2] > 0)
        seen |= bool(inside.any())
    assert post["object_seen_in_middle"] == seen


def check_C(scene, post, p):
    cont, obj = scene["container"], scene["object"]
    pts = _final_pts(scene, "object")
    rim = cont.position[0, 2] + cont.dimensions[2] / 2
    inner = p.container.width * p.container.scale_width / 2 - 0.1  # the walls' inner faces
    dx, dy = obj.position[-1, 0] - (-2.0), obj.position[-1, 1] - (-6.892)
    inside = max(abs(dx), abs(dy)) < inner if p.container.shape == "box" else np.hypot(dx, dy) < inner
    assert post["object_fit"] == bool(inside and pts[:, 2].min() < rim - 0.05)
    assert post["object_protruded"] == bool(pts[:, 2].max() > rim + 0.02)


def check_D(scene, post, p=None):
    for side in ("left", "right"):
        x = scene[f"{side}_object"].position[:, 0]
        release = scene[f"{side}_object"].body.release_frame
        before, after = x[release + 1] - x[release], x[-1] - x[-2]
        changed = abs(after) < max(1e-3, 0.01 * abs(before)) or np.sign(after) != np.sign(before)
        assert post[f"{side}_object_changed_direction"] == bool(changed)
        assert post[f"{side}_object_sped_up"] == bool(abs(after) > abs(before) * 1.0001)


def check_E(scene, post, p=None):
    barrier = [o for o in scene.objects.values() if o.role == "wall" and o.name.startswith(("wall", "strip"))]
    far = max(o.position[0, 0] + o.dimensions[0] / 2 for o in barrier)
    passed = _final_pts(scene, "object")[:, 0].min() > far - 0.05
    assert post["object_passed_through_wall"] == bool(passed)


CHECKS = {"A": check_A, "B": check_B, "C": check_C, "D": check_D, "E": check_E}


@pytest.mark.parametrize("test", TESTS)
def test_subtype_builds_both_conditions_with_labels_from_tracks(test):
    for i, seed, p in trials(test, SEEDS_PER_SUBTYPE):
        posts, scenes = {}, {}
        for condition in ("expected", "surprising"):
            scene = scenes[condition] = build(test, i, seed, p, condition)
            assert (scene.violation is not None) == (condition == "surprising")
            labels = SUITE.module(test).labels(scene, p)
            validate_labels(test[0], labels)
            CHECKS[test[0]](scene, labels["posterior_rules"], p)
            # the measured outcome: posterior rules and posterior features (D's velocities: a D2 surprising
            # trial where both objects are thrown up by a cone's slope shows the same directions and speed-ups as
            # its expected twin, while one object stops dead instead of bouncing back)
            posts[condition] = (
                labels["posterior_rules"],
                {k: x for k, x in labels["features"].items() if "posterior" in k},
            )
            entry = SUITE.entry(Job("avoe", test, i, condition, seed, "x"), p, scene)
            assert entry["prompts"][0]["answer"] == ("yes" if condition == "expected" else "no")
            assert entry["labels"] == labels and entry["subtype"] == test and entry["description"]
        v, exp = scenes["surprising"].violation, scenes["expected"]
        for name, o in scenes["surprising"].objects.items():  # identical before the violation
            assert np.allclose(o.position[: v.first_frame], exp[name].position[: v.first_frame]), name
            assert np.array_equal(o.visible[: v.first_frame], exp[name].visible[: v.first_frame]), name
        assert posts["expected"] != posts["surprising"], f"{test} trial {i}: the surprising outcome looks expected"


@pytest.mark.parametrize("cat", "ABC")
def test_expected_outcome_is_the_subtype(cat):
    """A, B, C sub-types are outcomes: the expected video shows the one its parameters were classed as."""
    rule = {
        "A": lambda q: q["support_holds_object"],
        "B": lambda q: q["object_seen_in_middle"],
        "C": lambda q: q["object_fit"] and not q["object_protruded"],
    }[cat]
    for test in SUBTYPES[cat]:
        for i, seed, p in trials(test, 3, start=50):
            post = SUITE.module(test).labels(build(test, i, seed, p, "expected"), p)["posterior_rules"]
            assert rule(post) == (test == SUBTYPES[cat][0]), (test, i)


def test_splits_deterministic_and_proportioned():
    seeds = range(6000)
    splits = [split_of(s) for s in seeds]
    assert splits == [split_of(s) for s in seeds]
    share = {k: splits.count(k) / len(splits) for k in ("train", "validation", "test")}
    assert (
        abs(share["train"] - 0.75) < 0.02
        and abs(share["validation"] - 0.15) < 0.02
        and abs(share["test"] - 0.10) < 0.02
    )


@pytest.mark.heavy
def test_plan_train_expected_only_unless_both_conditions():
    cfg = RunConfig(out="/nonexistent", suite="avoe", tests=list(TESTS), trials=40)
    jobs = plan(cfg, SUITE)
    assert jobs == plan(cfg, SUITE)
    by_trial = {}
    for j in jobs:
        by_trial.setdefault(j.pair_id, []).append(j)
    # one trial index belongs to exactly one sub-type per category
    for cat in "ABCDE":
        idx = [int(pid.rsplit("/", 1)[1]) for pid in by_trial if pid.split("/")[1][0] == cat]
        assert sorted(idx) == list(range(40))
    for js in by_trial.values():
        conds = sorted(j.condition for j in js)
        assert conds == (["expected"] if split_of(js[0].seed) == "train" else ["expected", "surprising"])
    cfg.options = {"both_conditions": True}
    assert all(len([j for j in plan(cfg, SUITE) if j.pair_id == pid]) == 2 for pid in by_trial)


def test_cli_hooks():
    assert SUITE.select_tests(None, "A,e") == ["A1", "A2", "E1", "E2", "E3"]
    assert SUITE.select_tests("D2,b", None) == ["B1", "B2", "D2"]
    assert SUITE.select_tests(None, None) == list(TESTS)
    assert SUITE.options_from_args(SimpleNamespace(both_conditions=True)) == {"both_conditions": True}
    assert SUITE.default_trials == 5000 and SUITE.default_resolution == (960, 540)
    assert SUITE.default_timing.n_frames == 50


@pytest.mark.heavy
def test_tiny_render_one_trial_per_category(tmp_path):
    out = tmp_path / "avoe"
    voebench(
        "render",
        "avoe",
        "--out",
        out,
        "--trials",
        1,
        "--both-conditions",
        "--resolution",
        "64x48",
        "--fps",
        12,  # (at 8 fps Bullet's coarse steps jolt D's collisions, and the gate refuses D)
        "--workers",
        1,
        "--quiet",
    )
    entries = [json.loads(line) for line in open(out / "manifest.jsonl")]
    assert sorted({e["category"] for e in entries}) == list("ABCDE")
    assert len(entries) == 10
    for e in entries:
        assert e["split"] in ("train", "validation", "test") and e["pair_id"]
        with h5py.File(out / e["states"]) as f:
            assert json.loads(f["labels"].attrs["posterior_rules"]) == e["labels"]["posterior_rules"]
            assert f["depth"].shape == (e["n_frames"], 48, 64)
            assert ("violation" in f) == (e["condition"] == "surprising")
        assert (out / e["video"]).stat().st_size > 0
