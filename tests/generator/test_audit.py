"""`voebench audit`: passes on clean ground truth, fails on each kind of broken input.

(Longer than our ~500-line guide on purpose: one file per audited concern would repeat the synthetic-set
builders below in each; the tests are grouped by check under comment headers instead.)

Synthetic sets are written with the project's own HDF5 writer from Scenes built in numpy (exact analytic
motion, a made-up segmentation), so each test controls exactly what is wrong. One test audits a real tiny
Level 1 render."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from contract_fixtures import complete_entry, root_attrs, write_dataset

from voebench.generator import audit, edits
from voebench.generator.io.hdf5 import StatesWriter
from voebench.generator.kinematics import roll
from voebench.generator.scene import RigidBody, Scene

W, H = 16, 12
FPS, T = 25.0, 50
G = 9.81


# ------------------------------------------------------------------------------------------- builders


def scene() -> Scene:
    """A floor, a wall, an occluder and a table; a ball that rolls behind the occluder and stops, a cube at
    rest on the floor, a small ball dropped onto the floor, and a block on the table."""
    s = Scene(T, FPS)
    s.add("floor", "box", (8, 8, 1), (0, 0, -0.5), role="floor", fixture=True)
    s.add("wall", "box", (0.2, 8, 1), (3.1, 0, 0.5), role="wall", fixture=True)
    s.add("occluder", "box", (1.0, 0.1, 1.0), (0.2, -0.6, 0.5), role="occluder", fixture=True)
    s.add("table", "box", (1.0, 1.0, 0.5), (-2.5, -2.5, 0.25), role="table", fixture=True)
    ball = s.add("ball", "sphere", (0.4,) * 3, (-2, 0, 0.2), role="ball", color=(1, 0, 0), body=RigidBody("active"))
    roll(ball, (-2, 0, 0.2), (1, 0, 0), speed=2.0, deceleration=1.0, start_frame=5, fps=FPS)  # stops at x=0
    s.add("cube", "box", (0.5,) * 3, (-1, 1.5, 0.25), role="cube", color=(0, 0, 1), body=RigidBody("active"))
    drop = s.add("drop", "sphere", (0.3,) * 3, (1, 1.5, 1.5), role="ball", body=RigidBody("active"))
    t = np.arange(T) / FPS
    drop.position[:, 2] = np.maximum(1.5 - 0.5 * G * t**2, 0.15)  # free fall, lands and stays
    s.add("block", "box", (0.4, 0.4, 0.4), (-2.5, -2.5, 0.7), role="block", color=(0, 1, 0))
    s.add("cone", "cone", (0.4, 0.4, 0.6), (2, -2, 0.3), role="object")
    s.add("ring", "torus", (0.6, 0.6, 0.1), (-1, -1.5, 0.05), role="object")
    s.add("can", "cylinder", (0.3, 0.3, 0.4), (1.5, 0.2, 0.2), role="object")
    s.add("mug", "mesh", (0.5, 0.5, 0.5), (0.5, 2.5, 0.25), role="container", mesh=([], []), fixture=True)
    s.look((0, -6, 3), (0, 0, 0))
    return s


def write(
    out, s: Scene, test: str, index: int, condition: str, paired: bool = True, hide=None, states_only: bool = False
) -> None:
    """One video's HDF5 and manifest line, as the runner writes them. Every existing object covers two pixels
    of the segmentation, except at the frames listed for it in `hide` (name -> frames); `states_only`: no
    depth or segmentation pass (visible pixel counts -1, as `render --states-only` writes)."""
    hide = hide or {}
    suite = "grasp-l2" if paired else "grasp-l1"
    pair_id = f"{suite}/{test}/{index:05d}" if paired else None
    rel = f"{suite}/{test}/{index:05d}" + (f"-{condition}" if paired else "")
    os.makedirs(os.path.join(out, suite, test), exist_ok=True)
    attrs = {
        "id": rel,
        "suite": suite,
        "test": test,
        "index": index,
        "condition": condition,
        "pair_id": pair_id or "",
        "seed": 0,
        "fps": FPS,
        "n_frames": T,
        "width": W,
        "height": H,
        "engine": "none",
        "generator_version": "test",
        "params": "{}",
    }
    attrs.update({k: v for k, v in root_attrs({**attrs, "pair_id": pair_id}).items() if k not in attrs})
    w = StatesWriter(
        os.path.join(out, rel + ".h5"), s, W, H, attrs, passes=() if states_only else ("depth", "segmentation")
    )
    for t in range(T):
        if states_only:
            w.add_frame(t, t, None, None)
            continue
        seg = np.zeros((H, W), np.uint16)
        for o in s.objects.values():
            if o.visible[t] and t not in hide.get(o.name, ()):
                seg.flat[2 * o.id : 2 * o.id + 2] = o.id
        w.add_frame(t, t, np.ones((H, W), np.float32), seg)
    w.f.attrs["complete"] = True
    w.close()
    entry = {
        "id": rel,
        "suite": suite,
        "test": test,
        "index": index,
        "condition": condition,
        "pair_id": pair_id,
        "states": rel + ".h5",
        "video": None,
        "n_frames": T,
        "fps": FPS,
        "width": W,
        "height": H,
        "violation": s.violation.as_dict() if s.violation else None,
    }
    write_dataset(str(out))  # the data contract: a set voebench wrote has one
    with open(os.path.join(out, "manifest.jsonl"), "a") as f:
        f.write(json.dumps(complete_entry(entry)) + "\n")


BEHIND = (19, 20)  # the ball is behind the occluder here (x ~ -0.2 .. 0)


def pair(out, test, index, implausible, hide_implausible=None):
    """A plausible scene and its implausible twin, made by `implausible(scene)` (an edit)."""
    write(out, scene(), test, index, "plausible")
    s = scene()
    implausible(s)
    write(out, s, test, index, "implausible", hide=hide_implausible)


def hidden_teleport(s):
    edits.teleport(s, "ball", BEHIND[1], s["ball"].position[BEHIND[1]] + (0.6, 0, 0), ["continuity"], hidden=True)


CLEAN_VIOLATIONS = {
    "teleport": (hidden_teleport, {"ball": BEHIND}),
    "recolor": (lambda s: edits.recolor(s, "cube", 25, (1, 1, 0), ["unchangeableness"]), None),
    "vanish": (lambda s: edits.vanish(s, "cube", 25, None, ["permanence"]), None),
    "freeze": (lambda s: edits.freeze(s, "drop", 6, ["gravity"]), None),
}


def results(out) -> dict:
    return {r.id: r for r in audit.audit_set(str(out))}


def failed(res, vid) -> set:
    return set(res[vid].failed_checks())


# ------------------------------------------------------------------------------------------- clean data


def test_clean_set_passes(tmp_path):
    write(tmp_path, scene(), "l1", 0, "ball", paired=False)
    for i, (kind, (edit, hide)) in enumerate(CLEAN_VIOLATIONS.items()):
        pair(tmp_path, kind, i, edit, {k: range(v[0], v[1] + 1) for k, v in (hide or {}).items()})
    res = results(tmp_path)
    assert len(res) == 9
    for r in res.values():
        assert r.ok, (r.id, [f.detail for f in r.findings])
    assert audit.main(str(tmp_path), json_path=str(tmp_path / "a.json"), verbose=False) == 0
    data = json.load(open(tmp_path / "a.json"))
    assert data["passed"] == 9
    one = next(v for v in data["results"] if v["id"].endswith("teleport/00000-implausible"))
    assert one["checks"]["violation_present"]["ok"] and one["checks"]["hidden_when_manipulated"]["ok"]


def test_geometry_gaps_are_exact_for_touching_shapes(tmp_path):
    write(tmp_path, scene(), "l1", 0, "ball", paired=False)
    v = audit.Video(str(tmp_path / "grasp-l1/l1/00000.h5"))
    for name in ("cube", "cone", "ring", "can", "ball"):
        gap = v.geometry(name, "floor").gap
        assert np.nanmax(np.abs(gap)) < 1e-6, name  # resting exactly on the floor
    assert abs(v.geometry("block", "table").gap[0]) < 1e-6


# ------------------------------------------------------------------------------------------- broken data


def test_teleport_in_plausible_video_fails(tmp_path):
    s = scene()
    s["ball"].position[30:] += (1.5, 0, 0)  # an unrecorded jump mid-roll (38 m/s)
    write(tmp_path, s, "l1", 0, "ball", paired=False)
    assert {"no_teleport", "no_velocity_jump"} <= failed(results(tmp_path), "grasp-l1/l1/00000")


def test_small_teleport_is_a_velocity_jump(tmp_path):
    s = scene()
    s["ball"].position[30:] += (0.3, 0, 0)  # 7.5 m/s extra for one frame: under MAX_SPEED, but no push
    write(tmp_path, s, "l1", 0, "ball", paired=False)
    assert failed(results(tmp_path), "grasp-l1/l1/00000") == {"no_velocity_jump"}


def test_interpenetration_fails(tmp_path):
    s = scene()
    s["cube"].position[:, 2] -= 0.03  # sunk 3 cm into the floor
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    res = results(tmp_path)
    assert failed(res, "grasp-l1/l1/00000") == {"no_interpenetration"}
    assert "cube and floor" in res["grasp-l1/l1/00000"].findings[0].detail


def test_rolling_ball_through_cone_fails(tmp_path):
    s = scene()
    s["cone"].position[:] = (-0.3, 0.1, 0.3)  # in the ball's path
    write(tmp_path, s, "l1", 0, "cone", paired=False)
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert any(f.check == "no_interpenetration" and {f.object, f.other} == {"ball", "cone"} for f in r.findings)


def test_visible_manipulation_fails(tmp_path):
    pair(tmp_path, "teleport", 0, hidden_teleport, hide_implausible=None)  # recorded hidden, but in view
    res = results(tmp_path)
    assert failed(res, "grasp-l2/teleport/00000-implausible") == {"hidden_when_manipulated"}
    assert res["grasp-l2/teleport/00000-plausible"].ok


def test_unintended_colour_change_fails(tmp_path):
    s = scene()
    s["block"].color[30:] = (0.5, 0.5, 0.5)
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    assert failed(results(tmp_path), "grasp-l1/l1/00000") == {"color_constant"}

    def teleport_and_recolor(s):  # the designed teleport, plus a colour change nobody recorded
        hidden_teleport(s)
        s["cube"].color[30:] = (0.5, 0.5, 0.5)

    pair(tmp_path, "teleport", 0, teleport_and_recolor, {"ball": range(19, 21)})
    assert failed(results(tmp_path), "grasp-l2/teleport/00000-implausible") == {"color_constant"}


def test_violating_object_checked_outside_its_window(tmp_path):
    def teleport_twice(s):
        hidden_teleport(s)
        s["ball"].position[40:] += (0, 0.5, 0)  # a second, unrecorded jump after the window

    pair(tmp_path, "teleport", 0, teleport_twice, {"ball": range(19, 21)})
    f = failed(results(tmp_path), "grasp-l2/teleport/00000-implausible")
    assert "no_teleport" in f or "no_velocity_jump" in f


def test_pair_differing_before_onset_fails(tmp_path):
    write(tmp_path, scene(), "recolor", 0, "plausible")
    s = scene()
    s["cube"].position[3:] += (0.01, 0, 0)  # 1 cm elsewhere from frame 3, long before the onset
    s["cube"].position[3:4] = s["cube"].position[2]  # (moved while at rest, by a 1 cm step: a legal shove)
    edits.recolor(s, "cube", 25, (1, 1, 0), ["unchangeableness"])
    write(tmp_path, s, "recolor", 0, "implausible")
    res = results(tmp_path)
    for vid in ("grasp-l2/recolor/00000-implausible", "grasp-l2/recolor/00000-plausible"):
        assert "pair_identical_before_onset" in failed(res, vid)


def test_absent_violation_fails(tmp_path):
    pair(tmp_path, "teleport", 0, lambda s: edits.record(s, ["continuity"], "teleport", "ball", 19, 20))
    assert failed(results(tmp_path), "grasp-l2/teleport/00000-implausible") == {"violation_present"}


def test_missing_violation_record_fails(tmp_path):
    pair(tmp_path, "recolor", 0, lambda s: s["cube"].color.__setitem__(slice(25, None), (1, 1, 0)))
    res = results(tmp_path)
    assert "violation_record" in failed(res, "grasp-l2/recolor/00000-implausible")


def test_hovering_and_overhanging_fail(tmp_path):
    s = scene()
    s["cube"].position[:, 2] += 0.3  # floats 30 cm above the floor
    s["block"].position[:, 0] -= 0.65  # centre 15 cm beyond the table's edge, at rest
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert {f.object for f in r.findings if f.check == "falls_when_unsupported"} == {"cube"}
    assert {f.object for f in r.findings if f.check == "resting_supported"} == {"cube", "block"}


def test_wrong_gravity_fails(tmp_path):
    s = scene()
    t = np.arange(T) / FPS
    s["drop"].position[:, 2] = np.maximum(1.5 - 0.5 * 0.5 * G * t**2, 0.15)  # falls at half g
    write(tmp_path, s, "l1", 0, "ball", paired=False)
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert {(f.check, f.object) for f in r.findings} == {("falls_when_unsupported", "drop")}


def test_vanish_in_plausible_fails(tmp_path):
    s = scene()
    s["cube"].visible[20:30] = False
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    assert failed(results(tmp_path), "grasp-l1/l1/00000") == {"visible_constant"}


def test_cli_exit_codes(tmp_path):
    from conftest import voebench

    write(tmp_path, scene(), "l1", 0, "ball", paired=False)
    p = voebench("audit", tmp_path, "--json", tmp_path / "r.json")
    assert "grasp-l1/l1" in p.stdout and json.load(open(tmp_path / "r.json"))["passed"] == 1
    s = scene()
    s["cube"].position[:, 2] -= 0.05
    write(tmp_path, s, "l1", 1, "ball", paired=False)
    p = voebench("audit", tmp_path, check=False)
    assert p.returncode == 1 and "no_interpenetration" in p.stdout


# ------------------------------------------------------------------------------------------- real renders


def test_real_level1_render_passes(level1_set):
    res = audit.audit_set(str(level1_set))
    assert len(res) == 12
    bad = {r.id: [f.detail for f in r.findings] for r in res if not r.ok}
    assert not bad, bad


@pytest.mark.slow
def test_real_bullet_drops_pass(tmp_path):
    """Bullet's own contacts (landing, resting, rolling) of every primitive shape pass the tolerances."""
    from voebench.generator.kinematics import quat_from_axis_angle
    from voebench.generator.physics import simulate

    for fps in (50.0, 10.0):
        s = Scene(int(3 * fps), fps)
        s.add("floor", "box", (10, 10, 1), (0, 0, -0.5), role="floor", body=RigidBody("passive"), fixture=True)
        s.add("wall", "box", (0.2, 4, 1), (2.5, 0, 0.5), role="wall", body=RigidBody("passive"), fixture=True)
        s.add("ball", "sphere", (0.4,) * 3, (0, 0, 2), role="ball", body=RigidBody("active", restitution=0.5))
        s.add(
            "cube",
            "box",
            (0.5,) * 3,
            (-1, 0, 1.5),
            role="cube",
            quaternion=quat_from_axis_angle((1, 1, 0), 0.4),
            body=RigidBody("active"),
        )
        s.add("cyl", "cylinder", (0.6, 0.6, 0.3), (-1, 1.5, 1.0), role="object", body=RigidBody("active"))
        s.add("cone", "cone", (0.6, 0.6, 0.8), (1, -1.5, 1.0), role="object", body=RigidBody("active"))
        s.add("ring", "torus", (0.8, 0.8, 0.2), (-2, -1.5, 1.0), role="object", body=RigidBody("active"))
        s.add("roller", "sphere", (0.4,) * 3, (0, 1.5, 0.2), role="ball", body=RigidBody("active", velocity=(3, 0, 0)))
        s.add(
            "side",
            "cylinder",
            (0.4, 0.4, 0.6),
            (-3, 2.5, 0.2),
            quaternion=quat_from_axis_angle((1, 0, 0), np.pi / 2),
            role="object",
            body=RigidBody("active", velocity=(0, -2, 0)),
        )
        s.look((0, -6, 3), (0, 0, 0))
        simulate(s)
        global T, FPS
        old = (T, FPS)
        T, FPS = s.n_frames, fps
        try:
            write(tmp_path, s, "bullet", int(fps), "ball", paired=False)
        finally:
            T, FPS = old
    res = audit.audit_set(str(tmp_path))
    assert all(r.ok for r in res), [f.detail for r in res for f in r.findings]


# ------------------------------------------------------------------------------------------- designs the scenes use


def test_hover_revealed_after_a_hidden_window_passes(tmp_path):
    """t10 style: the ball stops in mid-air while hidden; the record's window ends before the reveal, and the
    ball stays where the violation left it (its lasting result, not a second violation)."""

    def hover(s):
        s["drop"].hold(6)
        edits.record(s, ["gravity"], "freeze", "drop", 6, 12, hidden=True)

    pair(tmp_path, "hover", 0, hover, {"drop": range(6, 13)})
    assert all(r.ok for r in results(tmp_path).values())

    def hover_then_drift(s):  # ... but moving on afterwards without any push is checked again
        hover(s)
        s["drop"].position[30:, 0] += np.arange(T - 30) * 0.1

    pair(tmp_path, "hover2", 0, hover_then_drift, {"drop": range(6, 13)})
    assert "falls_when_unsupported" in failed(results(tmp_path), "grasp-l2/hover2/00000-implausible")


def test_shape_swap_behind_cover_passes_and_is_checked(tmp_path):
    """t01 style: a hidden replacement object takes the place of the violation object."""

    def build_with_alt(condition):
        s = scene()
        alt = s.add("cube_changed", "sphere", (0.5,) * 3, (-1, 1.5, 0.25), role="cube", visible=False)
        if condition == "implausible":
            s["cube"].visible[25:] = False
            alt.visible[25:] = True
            edits.record(s, ["unchangeableness"], "reshape", "cube", 24, 25, hidden=True)
        return s

    write(tmp_path, build_with_alt("plausible"), "swap", 0, "plausible")
    write(
        tmp_path,
        build_with_alt("implausible"),
        "swap",
        0,
        "implausible",
        hide={"cube": (24, 25), "cube_changed": (24, 25)},
    )
    res = results(tmp_path)
    assert all(r.ok for r in res.values()), [f.detail for r in res.values() for f in r.findings]
    write(tmp_path, build_with_alt("implausible"), "swap", 1, "implausible", hide={"cube": (24, 25)})
    write(tmp_path, build_with_alt("plausible"), "swap", 1, "plausible")
    f = [x for x in results(tmp_path)["grasp-l2/swap/00001-implausible"].findings]
    assert {(x.check, x.object) for x in f} == {("hidden_when_manipulated", "cube_changed")}


def test_spawn_out_of_view_passes_but_not_in_view(tmp_path):
    """t09 style: a ball comes into existence behind a panel; appearing in view is a violation."""
    s = scene()
    s["cube"].visible[:10] = False
    write(tmp_path, s, "l1", 0, "cube", paired=False, hide={"cube": range(0, 12)})
    write(tmp_path, s, "l1", 1, "cube", paired=False)
    res = results(tmp_path)
    assert res["grasp-l1/l1/00000"].ok
    assert failed(res, "grasp-l1/l1/00001") == {"visible_constant"}


def test_ground_plane_is_one_sided(tmp_path):
    """A `plane` ground: resting on it is touching; sinking below it is an overlap, not a gap."""
    s = Scene(T, FPS)
    s.add("ground", "plane", (20, 20, 0), (0, 0, 0), role="floor", fixture=True)
    s.add("box", "box", (1, 1, 1), (0, 0, 0.5), role="object")
    s.add("sunk", "box", (1, 1, 1), (3, 0, 0.45), role="object")
    s.look((0, -6, 3), (0, 0, 0))
    write(tmp_path, s, "l1", 0, "box", paired=False)
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert {(f.check, f.object) for f in r.findings} == {("no_interpenetration", "sunk")}


def test_starting_again_without_a_push_fails(tmp_path):
    s = scene()
    cube = s["cube"]
    cube.position[30:, 0] += np.arange(T - 30) * 0.02  # at rest on the floor, then slides off on its own
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    assert failed(results(tmp_path), "grasp-l1/l1/00000") == set()  # first motion: a launch, allowed
    s["cube"].position[40:, 0] = s["cube"].position[40, 0]  # stops ...
    s["cube"].position[40:, 0] += np.arange(T - 40) * 0.02  # ... and goes again by itself
    s["cube"].position[40:42, 0] = s["cube"].position[40, 0]
    write(tmp_path, s, "l1", 1, "cube", paired=False)
    assert "no_velocity_jump" in failed(results(tmp_path), "grasp-l1/l1/00001")


def test_hidden_means_the_manipulation_events_not_the_state_between(tmp_path):
    """AVoE B2 style: lifted while hidden, seen floating (the designed effect), put back while hidden. The
    floating between is allowed to show; a put-back in view is not."""

    def lift(s):
        s["cube"].position[20:31, 2] += 0.6
        edits.record(s, ["permanence"], "teleport", "cube", 20, 30, hidden=True)

    def trial(index, hidden):
        write(tmp_path, scene(), "lift", index, "plausible", hide={"cube": (19,)})  # (both alike before onset)
        s = scene()
        lift(s)
        write(tmp_path, s, "lift", index, "implausible", hide={"cube": hidden})

    trial(0, (19, 20, 30, 31))  # the jumps (frames 19/20 and 30/31) out of view
    res = results(tmp_path)
    assert res["grasp-l2/lift/00000-implausible"].ok, [
        f.detail for f in res["grasp-l2/lift/00000-implausible"].findings
    ]
    trial(1, (19, 20))  # put back in view
    r = results(tmp_path)["grasp-l2/lift/00001-implausible"]
    assert {(f.check, tuple(f.frames)) for f in r.findings} == {("hidden_when_manipulated", (30,))}  # the drop


def test_fixture_moving_into_another_fails_but_mounted_fixtures_pass(tmp_path):
    """AVoE C style: a screen lowered into the ground is flagged; a screen sliding in the slot it starts in is not."""
    s = scene()
    s["occluder"].position[:, 2] = 0.5 - np.clip(np.arange(T) - 20, 0, 10) * 0.03  # sinks 30 cm into the floor
    s["occluder"].position[:, 2] += 0.1  # (starts 10 cm above it)
    write(tmp_path, s, "l1", 0, "ball", paired=False)
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert {(f.check, frozenset((f.object, f.other))) for f in r.findings} == {
        ("no_interpenetration", frozenset(("occluder", "floor")))
    }
    s = scene()
    s["occluder"].position[:, 2] = 0.5 - np.clip(np.arange(T) - 20, 0, 10) * 0.03  # starts on the floor: in a slot
    write(tmp_path, s, "l1", 1, "ball", paired=False)
    assert results(tmp_path)["grasp-l1/l1/00001"].ok


def test_speeding_up_along_the_floor_fails(tmp_path):
    """Friction only resists sliding: a block that speeds up while sliding (self-propelled, AVoE E's push)
    fails, even where the push stays inside the contact cone."""
    s = scene()
    t = np.clip(np.arange(T) - 5, 0, None) / FPS
    s["cube"].position[:, 1] = 1.5 - 0.5 * 4.0 * t**2  # speeds up at 4 m/s^2 (24 deg from the floor normal)
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert ("no_velocity_jump", "cube") in {(f.check, f.object) for f in r.findings}


def test_parallel_audit_matches_serial(tmp_path):
    write(tmp_path, scene(), "l1", 0, "ball", paired=False)
    s = scene()
    s["cube"].position[:, 2] -= 0.03
    write(tmp_path, s, "l1", 1, "cube", paired=False)
    pair(tmp_path, "recolor", 0, CLEAN_VIOLATIONS["recolor"][0])
    one = [(r.id, r.failed_checks()) for r in audit.audit_set(str(tmp_path), workers=1)]
    two = [(r.id, r.failed_checks()) for r in audit.audit_set(str(tmp_path), workers=2)]
    assert one == two and len(one) == 4 and one[1] == ("grasp-l1/l1/00001", ["no_interpenetration"])


def test_combined_contacts_explain_a_wedge_but_not_self_propulsion():
    """Two door jambs that each push mostly sideways together push a wedged object straight back (AVoE E3);
    but a push along the motion of a body sliding between two walls is still self-propulsion."""
    cos = np.cos(np.radians(audit.CONTACT_CONE_DEG))
    jambs = [(np.array([-0.42, 0.89, 0.2]), "wall_left"), (np.array([-0.42, -0.89, 0.2]), "wall_right")]
    e = np.array([-14.3, 0.0, 2.8])
    assert all(float(np.dot(n, e / np.linalg.norm(e))) < cos for n, _ in jambs)  # no single jamb explains it
    assert audit.physics._combined_push(e, e / np.linalg.norm(e), np.array([0.3, 0.0, 0.0]), jambs, cos)
    walls = [(np.array([0.0, 1.0, 0.0]), "a"), (np.array([0.0, -1.0, 0.0]), "b"), (np.array([0.0, 0.0, 1.0]), "floor")]
    push = np.array([5.0, 0.0, 0.0])
    assert not audit.physics._combined_push(push, push / 5.0, np.array([2.0, 0.0, 0.0]), walls, cos)
    back = np.array([0.0, 0.0, 1.0]) + np.array([-3.0, 0.0, 0.0])  # backward and up: not in the walls' cone
    assert not audit.physics._combined_push(
        back, back / np.linalg.norm(back), np.array([2.0, 0.0, 0.0]), walls[:2], cos
    )


def test_mesh_segments_match_the_renderer():
    """The audit's facet allowance assumes the polygon count the renderer and Bullet use (one definition)."""
    from voebench.generator.geometry import MESH_SEGMENTS

    assert audit.Shape("sphere", (2.0, 3.0, 1.7)).facet == pytest.approx(1.5 * np.sin(np.pi / MESH_SEGMENTS))
    assert audit.Shape("box", (2.0, 3.0, 1.7)).facet == 0.0
    pytest.importorskip("bpy")
    import bpy  # noqa: F401  (bmesh, which build imports, exists once bpy is loaded)

    from voebench.generator.blender import build

    assert build.SEGMENTS == MESH_SEGMENTS


# ------------------------------------------------------------------------------------------- the gate's API


def _entries(out) -> list[dict]:
    return audit.read_manifest(os.path.join(out, "manifest.jsonl"))


def _to_temporary(out, tmp_dir, entries) -> list[tuple[dict, str]]:
    """Move each video's HDF5 to a temporary name elsewhere (as the gate holds a trial before keeping it)."""
    os.makedirs(tmp_dir, exist_ok=True)
    videos = []
    for k, e in enumerate(entries):
        path = os.path.join(tmp_dir, f"tmp{k}-{os.getpid()}.part")
        os.replace(os.path.join(out, e["states"]), path)
        videos.append((e, path))
    return videos


def test_audit_trial_on_temporary_files(tmp_path):
    """A trial's videos at arbitrary paths, without their folder or manifest: each sees its twin."""
    pair(tmp_path / "set", "teleport", 0, hidden_teleport, {"ball": range(BEHIND[0], BEHIND[1] + 1)})
    entries = _entries(tmp_path / "set")
    os.remove(tmp_path / "set" / "manifest.jsonl")
    videos = _to_temporary(tmp_path / "set", tmp_path / "gate", entries[::-1])  # any order
    res = audit.audit_trial(videos)
    assert [r.id for r in res] == [e["id"] for e in entries[::-1]]
    assert all(r.ok for r in res), [f.detail for r in res for f in r.findings]
    assert all("pair_identical_before_onset" in r.checks and not r.skipped for r in res)  # the twin was seen
    assert audit.failure_reason(res) is None


def test_audit_trial_failure_reason_names_check_and_detail(tmp_path):
    pair(tmp_path / "set", "teleport", 0, hidden_teleport)  # recorded hidden, but in view
    entries = _entries(tmp_path / "set")
    res = audit.audit_trial(_to_temporary(tmp_path / "set", tmp_path / "gate", entries))
    reason = audit.failure_reason(res)
    bad = next(r for r in res if not r.ok)
    assert reason == f"{bad.id}: hidden_when_manipulated: {bad.findings[0].detail}" and "\n" not in reason
    # the same verdict as auditing the folder
    pair(tmp_path / "set2", "teleport", 0, hidden_teleport)
    assert {r.id: r.failed_checks() for r in res} == {
        r.id: r.failed_checks() for r in audit.audit_set(str(tmp_path / "set2"))
    }


def test_audit_trial_states_only_skips_the_hidden_check(tmp_path):
    """Without segmentation the hidden check cannot be decided: skipped, while the physics is still checked."""
    write(tmp_path, scene(), "teleport", 0, "plausible", states_only=True)
    s = scene()
    hidden_teleport(s)
    write(tmp_path, s, "teleport", 0, "implausible", states_only=True)
    res = {r.condition: r for r in audit.audit_trial([(e, str(tmp_path / e["states"])) for e in _entries(tmp_path)])}
    assert res["plausible"].ok and res["implausible"].ok
    assert dict(res["implausible"].skipped) == {
        "hidden_when_manipulated": "visible pixels not measured (no segmentation pass)"
    }
    s = scene()
    s["cube"].position[:, 2] -= 0.03  # sunk into the floor: physics fails with or without pixels
    write(tmp_path / "b", s, "l1", 0, "cube", paired=False, states_only=True)
    (r,) = audit.audit_trial([(e, str(tmp_path / "b" / e["states"])) for e in _entries(tmp_path / "b")])
    assert r.failed_checks() == ["no_interpenetration"]


def test_audit_trial_unreadable_file_is_a_failed_video(tmp_path):
    bad = tmp_path / "x.part"
    bad.write_bytes(b"not hdf5")
    (r,) = audit.audit_trial([({"id": "s/t/00000", "suite": "s", "test": "t", "states": "t/00000.h5"}, str(bad))])
    assert r.failed_checks() == ["readable"] and audit.failure_reason([r]).startswith(
        "s/t/00000: readable: t/00000.h5:"
    )


# ------------------------------------------------------------------------------------------- the fixture flag


def test_fixture_flag_is_written_and_decides_over_the_role(tmp_path):
    """`Scene.add(fixture=...)` is written as the object attribute `fixture`, and the audit trusts it rather
    than the role name: a floating "wall" not flagged as a fixture must fall; a floating "block" flagged as one
    (held by a mechanism) need not."""
    import h5py

    s = scene()
    s.add("bracket", "box", (0.2, 0.2, 0.2), (2.0, 2.0, 1.0), role="block", fixture=True)  # mounted in mid-air
    s.add("loose", "box", (0.2, 0.2, 0.2), (-2.0, 2.0, 1.0), role="wall")  # a "wall" nothing holds
    assert s["bracket"].fixture and not s["loose"].fixture and s["floor"].fixture
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    path = tmp_path / "grasp-l1/l1/00000.h5"
    with h5py.File(path) as f:
        assert f["objects/bracket"].attrs["fixture"] and not f["objects/loose"].attrs["fixture"]
        assert f["objects/floor"].attrs["fixture"] and not f["objects/ball"].attrs["fixture"]
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert {f.object for f in r.findings} == {"loose"} and "resting_supported" in r.failed_checks()


def test_files_without_the_fixture_flag_fall_back_to_role_names(tmp_path):
    import h5py

    s = scene()
    s.add("bracket", "box", (0.2, 0.2, 0.2), (2.0, 2.0, 1.0), role="block", fixture=True)
    s.add("loose", "box", (0.2, 0.2, 0.2), (-2.0, 2.0, 1.0), role="wall")
    write(tmp_path, s, "l1", 0, "cube", paired=False)
    with h5py.File(tmp_path / "grasp-l1/l1/00000.h5", "a") as f:  # as written before the attribute existed
        for g in f["objects"].values():
            del g.attrs["fixture"]
    v = audit.Video(str(tmp_path / "grasp-l1/l1/00000.h5"))
    assert v.tracks["bracket"].fixture is None and v.tracks["floor"].free is False
    r = results(tmp_path)["grasp-l1/l1/00000"]
    assert {f.object for f in r.findings} == {"bracket"}  # by role, the block must be supported; the wall is scenery
