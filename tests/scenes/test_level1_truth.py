"""Every GRASP Level 1 statement is true of what the video shows, under any accepted setting: built in Python
(no rendering) and judged by scenes/grasp_l1/truth.py, the check the generation gate runs before a trial is
kept. A draw the scene cannot honour raises Infeasible (the gate redraws it)."""

import numpy as np
import pytest

from voebench.errors import Infeasible
from voebench.generator.params import Range
from voebench.generator.suite import Job, Timing
from voebench.scenes import REGISTRY
from voebench.scenes.grasp_l1 import truth

SUITE = REGISTRY.get("grasp-l1")


def build(test, index, seconds, fps, space=None, seed_base=0):
    """(params, scene, manifest entry) of one video, as `voebench render` builds it."""
    space = SUITE.space(test) if space is None else space
    seed, p = SUITE.sample(test, space, seed_base, index)
    (condition,) = SUITE.conditions(test, p, {})
    job = Job("grasp-l1", test, index, condition, seed, None)
    scene = SUITE.make_scene(job, p, Timing(seconds, fps))
    return p, scene, SUITE.entry(job, p, scene)


@pytest.mark.parametrize("seconds", [1, 2])
def test_short_low_resolution_videos_state_only_what_they_show(seconds):
    """The reproduction: `voebench render grasp-l1 --videos-per-test 4 --resolution 96x72 --fps 10 --seconds 1`
    made directionality/00002 ("The ball is rolling left", yes) and movement/00000 ("The ball is moving") with a
    ball that never moved, because the 0-3 s start delay fell after the end of the video. Now every video of
    that command (and of --seconds 2) is buildable and every statement is true."""
    for test in SUITE.tests:
        for index in range(4):
            p, scene, entry = build(test, index, seconds, 10)
            assert truth.check(test, scene, p, entry, 96, 72) == [], f"{test}/{index:05d}"


def widened(test, rng, factor_range=(0.5, 2.0)):
    """The test's space with every real-valued range scaled about its centre by a random factor in 0.5-2,
    kept inside the values the parameter can take (fractions in [0, 1], sizes and speeds positive)."""
    overrides = {}
    for key, leaf in SUITE.space(test).leaves().items():
        if not isinstance(leaf, Range) or leaf.integer:
            continue
        centre, half = (leaf.lo + leaf.hi) / 2, (leaf.hi - leaf.lo) / 2 * rng.uniform(*factor_range)
        lo, hi = centre - half, centre + half
        bounds = (0.0, 1.0) if leaf.hi <= 1.0 else (0.05, np.inf)  # every Level 1 range up to 1 is a fraction
        overrides[key] = [float(np.clip(lo, *bounds)), float(np.clip(hi, *bounds))]
    return SUITE.space(test).override(overrides)


def random_setting(rng):
    """seconds 1-20, fps 8-60, a landscape resolution between 48x36 and 960x540 (aspect 4:3 to 16:9)."""
    width = int(rng.integers(24, 481)) * 2
    height = max(36, 2 * int(round(width / rng.uniform(4 / 3, 16 / 9) / 2)))
    return float(rng.uniform(1, 20)), float(rng.uniform(8, 60)), width, height


def test_statements_hold_over_random_settings_and_widened_ranges():
    """Over random lengths, frame rates, resolutions and widened ranges every built video's statements are
    true. The only problems allowed are the ones a build cannot foresee because it does not know the
    resolution (an object too small or out of view at this width x height: the gate redraws those), and
    they must stay rare."""
    rng = np.random.default_rng(7)
    built = infeasible = resolution_only = 0
    for draw in range(10):
        seconds, fps, width, height = random_setting(rng)
        for test in SUITE.tests:
            space = widened(test, rng)
            for index in range(4):
                try:
                    p, scene, entry = build(test, index, seconds, fps, space, seed_base=draw)
                except Infeasible as e:
                    assert e.keys and e.reason
                    infeasible += 1
                    continue
                built += 1
                problems = truth.check(test, scene, p, entry, width, height)
                where = f"{test}/{index} at {seconds:.1f} s, {fps:.1f} fps, {width}x{height}"
                assert all("resolution" in pr.keys for pr in problems), (where, problems)
                resolution_only += bool(problems)
    assert built >= 0.8 * (built + infeasible), (built, infeasible)
    assert resolution_only <= 0.1 * built, (resolution_only, built)


# ------------------------------------------------------------------------------ the check catches falsehoods


def problems_after(test, edit, index=0, size=(320, 240), seconds=2, fps=10):
    p, scene, entry = build(test, index, seconds, fps)
    assert truth.check(test, scene, p, entry, *size) == []
    edit(p, scene, entry)
    return truth.check(test, scene, p, entry, *size)


def positive(entry):
    return next(pr for pr in entry["prompts"] if pr.get("polarity") == "positive")


def negative(entry):
    return next(pr for pr in entry["prompts"] if pr.get("polarity") == "negative")


def test_a_still_ball_labelled_moving_is_caught():
    def freeze(p, scene, entry):
        scene["ball"].hold(0)

    index = next(i for i in range(4) if build("movement", i, 2, 10)[0].movement == "moving")
    problems = problems_after("movement", freeze, index)
    assert any("moves during 0 frame steps" in pr for pr in problems)
    assert any("start_delay" in pr.keys for pr in problems)


def test_a_ball_that_starts_too_late_to_be_seen_rolling_is_caught():
    def late(p, scene, entry):  # the roll starts at the last frame step (the old delay at --seconds 2 came close)
        ball = scene["ball"]
        ball.position[:-1] = ball.position[0]

    problems = problems_after("directionality", late)
    assert any("frame steps" in pr for pr in problems)


def test_a_moving_ball_labelled_not_moving_is_caught():
    def relabel(p, scene, entry):
        positive(entry)["observation"], negative(entry)["observation"] = "not moving", "moving"

    index = next(i for i in range(4) if build("movement", i, 2, 10)[0].movement == "moving")
    assert any("says not moving" in pr for pr in problems_after("movement", relabel, index))


@pytest.mark.parametrize("test", ["shape", "color", "directionality", "relational"])
def test_swapped_labels_are_caught(test):
    """The negative statement made positive and vice versa: both are reported."""

    def swap(p, scene, entry):
        pos, neg = positive(entry), negative(entry)
        pos["observation"], neg["observation"] = neg["observation"], pos["observation"]

    problems = problems_after(test, swap)
    assert len([pr for pr in problems if "negative statement" in pr]) == 1
    assert len(problems) >= 2, problems


def test_a_wrong_left_to_right_order_is_caught():
    def reorder(p, scene, entry):
        positive(entry)["observation"] = negative(entry)["observation"]
        negative(entry)["observation"] = truth_order

    p, scene, entry = build("ordering", 0, 1, 10)
    truth_order = positive(entry)["observation"]
    assert any("left to right the image shows" in pr for pr in problems_after("ordering", reorder))


def test_a_ball_moved_across_the_barrier_is_caught():
    def mirror(p, scene, entry):
        scene["ball"].position[:, 0] *= -1

    assert any("on the" in pr and "of the barrier in the image" in pr for pr in problems_after("relational", mirror))


def test_objects_too_small_or_out_of_view_are_caught_with_the_resolution_key():
    # a 16x12 video shows the 0.4 m tray ball about 1 px across
    p, scene, entry = build("directionality", 0, 2, 10)
    problems = truth.check("directionality", scene, p, entry, 16, 12)
    assert any("px" in pr and "resolution" in pr.keys for pr in problems)
    # a portrait video (vertical field of view fixed) cuts off the ends of a 4-object row
    index = next(i for i in range(6) if build("ordering", i, 1, 10)[0].count == 4)
    p, scene, entry = build("ordering", index, 1, 10)
    problems = truth.check("ordering", scene, p, entry, 180, 240)
    assert any("out of view" in pr and "resolution" in pr.keys for pr in problems)


def test_draws_that_cannot_be_honoured_raise_infeasible_naming_the_keys():
    # half a second at 10 fps leaves no time to see the ball roll
    with pytest.raises(Infeasible) as e:
        build("directionality", 0, 0.5, 10)
    assert {"seconds", "fps", "start_delay"} <= set(e.value.keys)
    # a start delay of the whole video
    late = SUITE.space("directionality").override({"start_delay": 0.99})
    with pytest.raises(Infeasible) as e:
        build("directionality", 0, 10, 10, late)
    assert "start_delay" in e.value.keys
    # a ball inside the barrier
    inside = SUITE.space("relational").override({"distance": 0.5})
    with pytest.raises(Infeasible) as e:
        build("relational", 0, 1, 10, inside)
    assert "distance" in e.value.keys


def test_start_delay_scales_with_the_video():
    """The same draw starts rolling at the same fraction of a 2 s and a 20 s video."""
    starts = []
    for seconds in (2, 20):
        p, scene, entry = build("directionality", 1, seconds, 10)
        moved = np.linalg.norm(scene["ball"].position - scene["ball"].position[0], axis=1) > 0
        starts.append((int(np.argmax(moved)) - 1) / scene.n_frames)
        assert f"After {(int(np.argmax(moved)) - 1) / scene.fps:.1f} s" in entry["description"]
    assert starts[0] == pytest.approx(starts[1], abs=1 / 20 + 1e-9)


def test_the_checks_projection_is_the_scenes():
    """truth.View projects as generator.scene.project does with Camera.intrinsics/extrinsics."""
    from voebench.generator.scene import project

    for test in ("directionality", "relational"):
        p, scene, entry = build(test, 1, 2, 10)
        view = truth.View(scene, 96, 72)
        uv, depth = view.centres("ball")
        K, E = scene.camera.intrinsics(96, 72), scene.camera.extrinsics()
        for t in (0, scene.n_frames - 1):
            ref_uv, ref_depth = project(scene["ball"].position[t][None], K, E[t])
            assert np.allclose(uv[t], ref_uv[0]) and np.allclose(depth[t], ref_depth[0])
        box = view.boxes("ball", [0])[0]
        assert box[0] < uv[0, 0] < box[2] and box[1] < uv[0, 1] < box[3]
