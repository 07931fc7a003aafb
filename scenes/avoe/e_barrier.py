"""E Barrier: a cyan screen comes down; an object is pushed along the floor toward a barrier behind it, and
the screen goes up again to show where the object ended.

Barriers (the sub-types, drawn with Table 1's proportions 956 : 960 : 3084): E1 soft, a curtain of hanging
strips; E2 normal, a solid wall; E3 open, a wall with a doorway from the ground up (opening width and height).

Expected (Bullet for the object; the curtain's strips swing analytically, pushed by the object's track and
falling back): the object goes through the curtain (E1), is stopped by the wall (E2), goes through the doorway
if it is narrower and lower than it and is stopped otherwise (E3). Surprising, as in the original, by colliders
only: E1 the curtain stops the object like a wall; E2 the object passes through the wall; E3 the outcome flips
(the doorway acts as closed, or the wall lets the object through). The change happens behind the screen.

Graded (`violation.E1`, `violation.E2`, `violation.E3`, m): how far the surprising object's path departs from
the plausible one, the largest distance between the object's positions in the two videos (`displacement`; in
practice where they end). E1 and a closed doorway (E3): the invisible stop stands this much short of where the
object would slide (today: at the curtain or in the doorway, 4.7-7.1 m short); E2 and an open wall (E3): the
wall lets the object through and an invisible stop holds it this much past where the wall stops it (today: no
stop, it slides on, 6.4-8.1 m); small levels leave it stuck partway into the wall or just past the curtain.
The stop's place is found by re-simulating (up to `SOLVE_STEPS` times) until the measured size is the level
within a third of the tolerance; a level beyond today's (nothing can send it farther) is Infeasible.

Original (docs/scene-facts.md Part 6 E): object extent 2 m along x, 2w deep, 2h tall, moved from x = -11.5 to -4.5
over frames 40-50 and released (ours: launched at 12-15 m/s so it reaches -4.5 at frame 50); wall 2 x 8 x 4.3 m
at x = 0; screen 9 x 6.4 m at y = -5, down over frames 30-40, up over 60-70; frames 20-69 are rendered.
"""

from typing import Any

import numpy as np

from voebench.contract.avoe_labels import make_labels
from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.kinematics import quat_from_axis_angle
from voebench.generator.params import COORDINATE, COUNT, INDEX, POSITIVE, Choice, Fixed, Level, Range
from voebench.generator.physics import simulate
from voebench.generator.scene import RigidBody, Scene
from voebench.scenes.avoe.world import (
    CAMERA_EYE,
    OCCLUDER_COLOR,
    ORIGINAL_FPS,
    PIXEL_MARGIN_RAD,
    ROD_COLOR,
    AVOE_SHAPES,
    UNIT,
    WALL_COLOR,
    add_object,
    hidden,
    object_size,
    stage,
    world_points,
)

CATEGORY = "E"
SUBTYPES = {"E1": "soft barrier (a curtain)", "E2": "solid wall", "E3": "wall with an opening"}
WALL_TYPE = {"E1": "soft", "E2": "normal", "E3": "open"}

FIRST_FRAME = 20  # the original renders frames 20-69
WALL = {"thick": 2.0, "open_thick": 1.6, "length": 8.0, "height": 4.3}  # m
PIVOT = (0.2, 5.15)  # curtain rod (x, z), m
N_STRIPS, STRIP_W, STRIP_L = 10, 0.52, 5.0
SCREEN_Y = -5.0
# Bullet's BOX collider rounds a box's edges by its 4 cm collision margin (embedded in the box), so an object
# driven into the doorway's edges sank up to 14 mm into the jambs and lintel; a convex hull of the box's 8
# corners with the generator's 1 mm margin has sharp edges.
WALL_COLLIDER = "CONVEX_HULL"
IMPACT_ACC = 9.81 + 2.0  # m/s^2: faster than free fall (or sliding under friction 0.5), a velocity change is an impact

SPACE: dict[str, Any] = {
    "subtype": Choice(["E1", "E2", "E3"], weights=[956, 960, 3084]),
    "object": {
        "shape": Choice(list(AVOE_SHAPES)),
        "width": Range(0.4, 1.6, domain=POSITIVE),  # y extent (across the path), units of 2 m
        "height": Range(0.4, 1.6, domain=POSITIVE),  # z extent, units of 2 m
        "length": Fixed(1.0, domain=POSITIVE),  # x extent (along the path), units of 2 m: the original's constant
    },
    # E3 doorway, units of 2 m
    "opening": {"width": Range(0.4, 1.4, domain=POSITIVE), "height": Range(0.4, 1.4, domain=POSITIVE)},
    # launched from rest at `speed` (m/s) so that it reaches release_x at release_frame (an original frame), then
    # released to slide under friction
    "push": {
        "start_x": Fixed(-11.5, domain=COORDINATE),
        "release_x": Fixed(-4.5, domain=COORDINATE),
        "release_frame": Fixed(50, domain=INDEX),
        "speed": Range(12.0, 15.0, domain=POSITIVE),
    },
    # centre heights (m); original frames of its linear moves (the original: 30-40 and 60-70, 17 m/s)
    # Bullet substeps per frame (fast impacts on the doorway's edges need finer steps)
    "substeps": Fixed(20, domain=COUNT),
    "screen": {
        "top_z": Fixed(10.3, domain=COORDINATE),
        "low_z": Fixed(3.3, domain=COORDINATE),
        "down": Fixed([25, 40], domain=INDEX),
        "up": Fixed([60, 75], domain=INDEX),
    },
    # m the surprising object's path departs from the plausible one (declared last: unset, it takes no draw)
    "violation": {
        t: Level(
            "m",
            "displacement",
            what,
            default=default,
            hi=10.0,
            tol=0.05,
        )
        for t, what, default in (
            ("E1", "how far short of its plausible end the curtain stops the object", "at the curtain, 4.7-5.8 m"),
            ("E2", "how far past the wall's stop the object goes", "through the wall and on, 6.4-8.1 m"),
            ("E3", "how far from its plausible end the object ends", "closed doorway or open wall, 6.2-7.1 m"),
        )
    },
}

BINARY: dict[str, str] = {}  # every sub-type is graded
SOLVE_STEPS = 6  # re-simulations to place the stop for an asked level


def level_key(p) -> str | None:
    """The Level leaf that grades this trial's violation: every E sub-type's."""
    return f"violation.{p.subtype}"


def asked_level(p) -> float | None:
    """The level asked for this trial's sub-type (`--set`/`--sweep`), or None (today's violation)."""
    return (p.get("violation") or {}).get(p.subtype)


def subtype(p) -> str:
    return p.subtype


def _t(frame):
    return (frame - FIRST_FRAME) / ORIGINAL_FPS


def build(scene, p, condition):
    stage(scene)
    T = scene.n_frames
    t = np.arange(T) / scene.fps
    kind = WALL_TYPE[p.subtype]
    barrier = _barrier(scene, p, kind)
    # the object: pushed from rest with constant acceleration, released at release_x with the push speed
    W, D, H = object_size(p.object.shape, p.object.length, p.object.height, p.object.width)
    t_r = _t(p.push.release_frame)
    run = p.push.release_x - p.push.start_x
    t_s = scene.frame(t_r - run / p.push.speed) / scene.fps  # launched on a frame: one step from rest to speed
    release = scene.frame(t_r)
    body = RigidBody("active", mass=1.0, friction=0.5, release_frame=release, velocity=(p.push.speed, 0.0, 0.0))
    obj = add_object(scene, "object", p.object.shape, (W, D, H), (p.push.start_x, 0.0, H / 2), body=body)
    obj.position[:, 0] = p.push.start_x + p.push.speed * np.clip(t - t_s, 0.0, None)
    # screen
    x0 = _screen_x()
    s = scene.add(
        "screen",
        "box",
        (9.0, 0.05, 6.4),
        (x0, SCREEN_Y, p.screen.top_z),
        role="occluder",
        fixture=True,
        color=OCCLUDER_COLOR,
    )
    drop = p.screen.top_z - p.screen.low_z
    ramp = lambda a, b: np.clip((t - _t(a)) / (_t(b) - _t(a)), 0.0, 1.0)  # noqa: E731
    s.position[:, 2] = p.screen.top_z - drop * (ramp(*p.screen.down) - ramp(*p.screen.up))
    simulate(scene, substeps=p.substeps)
    if condition == "surprising":
        _violate(scene, p, kind, barrier)
    if kind == "soft":
        _swing_strips(scene)


def _screen_x():
    """Centre x of the screen on the line of sight to the barrier (x = 0, y = 0)."""
    s = (SCREEN_Y - CAMERA_EYE[1]) / (0.0 - CAMERA_EYE[1])
    return float(CAMERA_EYE[0] + s * (0.0 - CAMERA_EYE[0]))


def _wall_part(scene, name: str, dims, pos, color=None):
    """A box the object collides with as with the wall; without a colour it is an invisible collider (the
    surprising twins' solid curtain and closed doorway)."""
    appearance = {"color": color} if color is not None else {"visible": False}
    body = RigidBody("passive", friction=0.5, collision_shape=WALL_COLLIDER)
    return scene.add(name, "box", dims, pos, role="wall", fixture=True, body=body, **appearance)


def _barrier(scene, p, kind) -> list[str]:
    """Add the barrier; return the names of its collider parts."""
    L, Hw = WALL["length"], WALL["height"]
    if kind == "normal":
        _wall_part(scene, "wall", (WALL["thick"], L, Hw), (0.0, 0.0, Hw / 2), color=WALL_COLOR)
        return ["wall"]
    if kind == "open":
        ow, oh, th = p.opening.width * UNIT / 2, p.opening.height * UNIT, WALL["open_thick"]
        parts = [
            ("wall_left", (th, L / 2 - ow, Hw), (0.0, -(L / 2 + ow) / 2, Hw / 2)),
            ("wall_right", (th, L / 2 - ow, Hw), (0.0, (L / 2 + ow) / 2, Hw / 2)),
            ("wall_top", (th, 2 * ow, Hw - oh), (0.0, 0.0, (Hw + oh) / 2)),
        ]
        for name, dims, pos in parts:
            _wall_part(scene, name, dims, pos, color=WALL_COLOR)
        return [n for n, _, _ in parts]
    # soft: a curtain of strips hanging from a rod between two posts
    px, pz = PIVOT
    span = N_STRIPS * STRIP_W
    scene.add("rod", "box", (0.2, span + 0.8, 0.2), (px, 0.0, pz + 0.13), role="wall", fixture=True, color=ROD_COLOR)
    for i, y in enumerate((-span / 2 - 0.3, span / 2 + 0.3)):
        scene.add(
            f"post{i}", "box", (0.2, 0.2, pz + 0.2), (px, y, (pz + 0.2) / 2), role="wall", fixture=True, color=ROD_COLOR
        )
    for k in range(N_STRIPS):
        y = -span / 2 + (k + 0.5) * STRIP_W
        scene.add(
            f"strip{k}",
            "box",
            (0.04, STRIP_W - 0.02, STRIP_L),
            (px, y, pz - STRIP_L / 2),
            role="wall",
            fixture=True,
            color=WALL_COLOR,
        )
    return []


def _swing_strips(scene):
    """Each strip turns about the rod just as far as the object pushes it, and falls back at most 2.5 rad/s."""
    px, pz = PIVOT
    obj = scene["object"]
    loc = _dense_points(obj)
    pts = [world_points(obj, t, loc) for t in range(scene.n_frames)]
    for k in range(N_STRIPS):
        strip = scene[f"strip{k}"]
        y0, y1 = strip.position[0, 1] - STRIP_W / 2, strip.position[0, 1] + STRIP_W / 2
        theta = 0.0
        for t in range(scene.n_frames):
            q = pts[t]
            q = q[(q[:, 1] > y0 - 0.3) & (q[:, 1] < y1 + 0.3)] if obj.visible[t] else q[:0]
            dx, dz = q[:, 0] - px, pz - q[:, 2]
            r = np.hypot(dx, dz)
            phi = np.arctan2(dx, dz) + np.arctan2(
                0.25, np.maximum(r, 0.25)
            )  # clear the strip's thickness and the sampling
            # points a little beyond the strip's reach count too: the strip's lower corners swing through them
            # (counting only r <= STRIP_L let a strip resting on a flat top cut 35 mm into it)
            near = (r <= STRIP_L + 0.25) & (phi > 0)
            need = float(phi[near].max()) if near.any() else 0.0
            theta = max(need, theta - 2.5 / scene.fps, 0.0)
            R = quat_from_axis_angle((0, 1, 0), -theta)
            strip.quaternion[t] = R
            strip.position[t] = (
                px + np.sin(theta) * STRIP_L / 2,
                strip.position[0, 1],
                pz - np.cos(theta) * STRIP_L / 2,
            )


def _dense_points(obj):
    """The object's surface points plus points toward its centre and its own z axis (strips must clear the body;
    the rings pulled toward the axis cover flat caps, where a strip's end rests on a cylinder's top)."""
    from voebench.scenes.avoe.world import local_points

    pts = local_points(obj, n=48)
    return np.concatenate([pts, pts * 0.9] + [pts * (f, f, 1.0) for f in (0.75, 0.5, 0.25)])


def _violate(scene, p, kind, barrier):
    passed = passed_through(scene, p)
    stops = kind == "soft" or (kind == "open" and passed)  # a stop where there is none, else a wall let through
    plausible = scene["object"].position.copy()
    asked = asked_level(p)

    def change(twin, at: float | None = None):
        """`at`: for a stop, how far (m) to move it on along x; for a wall let through, the x of an invisible
        stop's front face beyond it (None: today's, no stop)."""
        if kind == "soft":  # the curtain acts as a solid sheet
            px, pz = PIVOT
            x = px + (at or 0.0)
            _wall_part(twin, "curtain_collider", (0.04, N_STRIPS * STRIP_W, STRIP_L), (x, 0.0, pz - STRIP_L / 2))
        elif kind == "open" and passed:  # the doorway acts as closed
            th, L, Hw = WALL["open_thick"], WALL["length"], WALL["height"]
            _wall_part(twin, "door_collider", (th, L, Hw), ((at or 0.0), 0.0, Hw / 2))
        else:  # the wall lets the object through
            for name in barrier:
                twin[name].body = None
            if at is not None:
                dims, centre = (1.0, WALL["length"], WALL["height"]), (at + 0.5, 0.0, WALL["height"] / 2)
                _wall_part(twin, "stop_collider", dims, centre)

    blockers = ("screen",) + tuple(barrier)

    def screened(first, _last) -> bool:
        # hidden means: at every frame of the manipulation's events (the divergence and the frame either side,
        # every frame the object is inside the wall, the abrupt stop at an invisible collider), which is what the
        # audit checks for zero pixels; the screen may already be rising while the object is still inside the wall
        frames = _event_frames(scene, barrier, first)
        return hidden(scene, "object", frames, blockers, margin=PIXEL_MARGIN_RAD)

    kinds = {"soft": "solid_curtain", "normal": "pass_through"}
    # the object reaches the barrier after the video ends (a short --seconds): nothing to show
    never = Infeasible("E: the object does not reach the barrier within the video", ("seconds", "push.speed"))
    kind_name = kinds.get(kind, "closed_opening" if passed else "pass_through")
    twin = edits.simulate_twin(scene, change, substeps=p.substeps)
    if asked is not None:
        twin = _solve(scene, p, twin, change, stops, plausible, asked)
    edits.diverge_hidden(scene, twin, ["solidity"], kind_name, "object", never, hidden=screened)
    edits.grade(scene, _departure(scene["object"].position, plausible) if asked is None else asked)


def _departure(track: np.ndarray, plausible: np.ndarray) -> float:
    """The largest distance (m) between the object's positions in two tracks (the audit's `displacement`)."""
    return float(np.linalg.norm(track - plausible, axis=1).max())


def _solve(scene, p, free, change, stops: bool, plausible: np.ndarray, asked: float):
    """The twin whose object departs `asked` m from the plausible track: a stop moved on (`stops`) or put beyond
    the wall, placed by re-simulating until the measured departure is the level (within a third of the tol)."""
    full = _departure(free["object"].position, plausible)  # today's: the farthest it can depart
    leaf_tol = SPACE["violation"][p.subtype].tol
    if asked > full + leaf_tol / 3:
        raise Infeasible(
            f"E: a departure of {asked:g} m is more than this draw's object can make ({full:.2f} m)",
            ("violation", "push.speed"),
        )
    if stops:  # moving the stop on by d shortens the departure by about d
        at = full - asked
    else:  # a stop's face at x: the object ends about its half length before it
        end = plausible[-1, 0]
        at = end + asked + scene["object"].dimensions[0] / 2
    for _ in range(SOLVE_STEPS):

        def with_stop(t: Scene, a: float = at) -> None:
            change(t, a)

        twin = edits.simulate_twin(scene, with_stop, substeps=p.substeps)
        got = _departure(twin["object"].position, plausible)
        if abs(got - asked) <= leaf_tol / 3:
            return twin
        at += (got - asked) if stops else (asked - got)
    raise Infeasible(f"E: no stop found that makes a departure of {asked:g} m for this draw", ("violation",))


def _event_frames(scene, barrier, first: int) -> list[int]:
    """Frames first-1 .. max(e, first+1), e the last frame from `first` on at which the object overlaps a barrier
    part or changes velocity faster than gravity or friction can (an impact, e.g. on an invisible collider)."""
    obj, T = scene["object"], scene.n_frames
    last = first
    for t in range(first, T):
        pts = world_points(obj, t)
        for name in barrier:
            b = scene[name]
            if np.all(np.abs(pts - b.position[t]) < b.dimensions / 2 - 0.005, axis=1).any():
                last = t
    acc = np.linalg.norm(np.diff(obj.position, 2, axis=0), axis=1) * scene.fps**2  # at frames 1..T-2
    hard = np.flatnonzero(acc > IMPACT_ACC) + 1
    hard = hard[hard >= first]
    if len(hard):
        last = max(last, int(hard.max()))
    return list(range(max(first - 1, 0), min(max(last, first + 1) + 1, T)))


def back_face(p) -> float:
    kind = WALL_TYPE[p.subtype]
    return {"normal": WALL["thick"] / 2, "open": WALL["open_thick"] / 2, "soft": PIVOT[0] + 0.02}[kind]


def passed_through(scene, p) -> bool:
    """At the last frame the whole object is beyond the barrier's far face."""
    pts = world_points(scene["object"], scene.n_frames - 1)
    return bool(pts[:, 0].min() > back_face(p) - 0.05)


def labels(scene, p) -> dict:
    kind = WALL_TYPE[p.subtype]
    ow, oh = (p.opening.width, p.opening.height) if kind == "open" else (0.0, 0.0)
    return make_labels(
        CATEGORY,
        features={
            "object_height": p.object.height,
            "object_width": p.object.width,
            "wall_opening": kind == "open",
            "wall_soft": kind == "soft",
            "opening_width": ow,
            "opening_height": oh,
            "object_shape": p.object.shape,
        },
        prior_rules={
            "wall_has_opening": kind == "open",
            "blocker_soft": kind == "soft",
            "object_thinner_than_opening": p.object.width < ow,
            "object_shorter_than_opening": p.object.height < oh,
        },
        posterior_rules={"object_passed_through_wall": passed_through(scene, p)},
    )


def describe(scene, p, condition) -> str:
    kind = WALL_TYPE[p.subtype]
    W, D, H = object_size(p.object.shape, p.object.length, p.object.height, p.object.width)
    barrier = {
        "soft": "a curtain of hanging blue strips",
        "normal": f"a solid blue wall {WALL['height']:.1f} m tall",
        "open": f"a blue wall with a doorway {p.opening.width * UNIT:.1f} m wide and "
        f"{p.opening.height * UNIT:.1f} m tall",
    }[kind]
    end = "It ends up beyond the barrier." if passed_through(scene, p) else "It ends up in front of the barrier."
    shape = p.object.shape.replace("_", " ")
    return (
        f"A cyan screen comes down in front of {barrier}. {_a(shape)} {D:.1f} m wide and {H:.1f} m tall is "
        f"pushed along the floor toward it at {p.push.speed:.0f} m/s, and the screen goes up again. {end}"
    )


def _a(word: str) -> str:
    return ("An " if word[0] in "aeiou" else "A ") + word
