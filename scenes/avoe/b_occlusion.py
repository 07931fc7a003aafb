"""B Occlusion: a cyan screen comes down in front of the path; an object then slides from left to right
behind it. The screen's two side parts are 5 m tall; its 3 m wide middle part is lower (middle height m).

Expected: a tall enough object shows above the middle part while passing it (B1), a short one stays hidden
(B2); whether it shows is exact geometry (the motion is scripted), measured on the tracks for the label.
Surprising: B1: the object is not seen in the middle: it stops existing from a frame where it is hidden
behind the left side part until one where it is hidden behind the right one. B2: while hidden behind the
left part it is lifted so that it shows above the middle part, and put back while hidden behind the right
part. Both edits happen while the object shows no pixel.

Graded (`violation.B1`, s; `violation.B2`, m). B1: how long the object is missing (`absence_time`): it stops
existing at the same hidden frame behind the left part and comes back after this long, a whole number of frames
(a level that is not one within half a frame is Infeasible); today it is missing until it is hidden behind the
right part (0.46-0.58 s at 24 fps), shorter levels bring it back in the open above the middle part. B2: how far
the object is lifted while it passes (`displacement`, m); today: until its top shows `lift_peek` above the middle
part (0.7-1.7 m); a lift too small to show it above the middle part, or so large that it shows above the 5 m side
parts when lifted or put back, is Infeasible.

Original (docs/scene-facts.md Part 6 B): screen in the plane y = -2, 13 x 5 m, middle x in [-1.5, 1.5]; it comes
down from z = 6 to the ground over frames 1-20; the object rests on the ground at y = 0 and moves from
x = -12.5 to 10 over frames 15-40 (eased: Blender's default Bezier keys). Ours slides at a constant 13 m/s from
frame 9 (the original's eased peak, 32 m/s, is beyond what a pushed object does; see docs/avoe.md).
"""

import numpy as np

from voebench.contract.avoe_labels import make_labels
from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.kinematics import smoothstep
from voebench.generator.params import (
    COORDINATE,
    FRACTION,
    INDEX,
    NON_NEGATIVE,
    POSITIVE,
    Choice,
    Fixed,
    Level,
    Range,
)
from voebench.scenes.avoe.world import CAMERA_EYE, OCCLUDER_COLOR, ORIGINAL_FPS, AVOE_SHAPES
from voebench.scenes.avoe.world import add_object, local_points, object_size, stage, visible_points, world_points

CATEGORY = "B"
SUBTYPES = {"B1": "the object is seen above the middle part", "B2": "the object is not seen in the middle"}

PLANE_Y, THICK = -2.0, 0.05  # the screen's back face, its thickness (m)
SCREEN_H, HALF_W, NOTCH = 5.0, 6.5, 1.5  # side parts' height, half width, middle part's half width (m)
PANELS = ("screen_left", "screen_middle", "screen_right")

SPACE = {
    "object": {
        "shape": Choice(list(AVOE_SHAPES)),
        "width": Range(0.4, 1.6, domain=POSITIVE),  # x (and y) extent, units of 2 m
        "height": Range(0.4, 1.6, domain=POSITIVE),  # z extent, units of 2 m
    },
    "middle": Range(0.1, 0.9, domain=FRACTION),  # the middle part's height, fraction of the 5 m screen
    # m: the object's top clears (or misses) the middle part's line of sight by at least this
    "margin": Fixed(0.1, domain=NON_NEGATIVE),
    # the object is launched from rest at first_frame (original 24 fps frame) and slides at constant speed (m/s)
    # to the end (the original moved it from -12.5 to 10 over frames 15-40, up to 32 m/s at the eased peak)
    "path": {
        "start_x": Fixed(-12.5, domain=COORDINATE),
        "speed": Fixed(13.0, domain=POSITIVE),
        "first_frame": Fixed(9, domain=INDEX),
    },
    "screen": {
        "start_z": Fixed(6.0, domain=COORDINATE),
        "first_frame": Fixed(1, domain=INDEX),
        "last_frame": Fixed(20, domain=INDEX),
    },  # its bottom edge comes down to the ground
    "lift_peek": Fixed(0.5, domain=NON_NEGATIVE),  # m the lifted object shows above the middle part (surprising B2)
    # the surprising violation's size (declared last: unset, it takes no draw)
    "violation": {
        "B1": Level(
            "s",
            "absence_time",
            "how long the object is missing",
            default="from hidden behind the left part to hidden behind the right one, 0.46-0.58 s",
            hi=1.5,
            tol=0.021,
        ),
        "B2": Level(
            "m",
            "displacement",
            "how far the object is lifted while it passes",
            default="until its top shows lift_peek (0.5 m) above the middle part, 0.7-1.7 m",
            hi=SCREEN_H,
            tol=0.01,
        ),
    },
}

BINARY: dict[str, str] = {}  # both sub-types are graded


def level_key(p) -> str | None:
    """The Level leaf that grades this trial's violation: every B sub-type's."""
    return f"violation.{subtype(p)}"


def asked_level(p) -> float | None:
    """The level asked for this trial's sub-type (`--set`/`--sweep`), or None (today's violation)."""
    return (p.get("violation") or {}).get(subtype(p))


def _crossing(points):
    """Where the camera's rays to `points` cross the screen's back face: (x, z) per point."""
    s = (PLANE_Y - CAMERA_EYE[1]) / (points[:, 1] - CAMERA_EYE[1])
    return CAMERA_EYE[0] + s * (points[:, 0] - CAMERA_EYE[0]), CAMERA_EYE[2] + s * (points[:, 2] - CAMERA_EYE[2])


def _probe(p):
    """The object's surface points at rest at x = 0 (their crossing heights do not depend on x)."""
    from voebench.generator.scene import Scene

    sc = Scene(1, ORIGINAL_FPS)
    W, D, H = object_size(p.object.shape, p.object.width, p.object.height)
    o = add_object(sc, "o", p.object.shape, (W, D, H), (0.0, 0.0, H / 2))
    return local_points(o) @ _rot(o) + o.position[0]


def _rot(o):
    from voebench.generator.kinematics import quat_to_matrix

    return quat_to_matrix(o.quaternion[0]).T


def middle_height(p) -> float:
    """The middle part's height (m), nudged by at most `margin` so the object clearly shows or clearly not."""
    M = p.middle * SCREEN_H
    top = float(_crossing(_probe(p))[1].max())  # highest crossing over all points
    clearance = top - M
    if abs(clearance) < p.margin:
        M = top - p.margin if clearance >= 0 else top + p.margin
    return float(M)


def subtype(p) -> str:
    return "B1" if _crossing(_probe(p))[1].max() > middle_height(p) else "B2"


def build(scene, p, condition):
    stage(scene)
    M = middle_height(p)
    T = scene.n_frames
    t = np.arange(T) / scene.fps
    down = 1.0 - smoothstep(t, (p.screen.first_frame - 1) / ORIGINAL_FPS, (p.screen.last_frame - 1) / ORIGINAL_FPS)
    for name, x0, x1, h in (
        ("screen_left", -HALF_W, -NOTCH, SCREEN_H),
        ("screen_middle", -NOTCH, NOTCH, M),
        ("screen_right", NOTCH, HALF_W, SCREEN_H),
    ):
        o = scene.add(
            name,
            "box",
            (x1 - x0, THICK, h),
            ((x0 + x1) / 2, PLANE_Y - THICK / 2, h / 2),
            role="occluder",
            fixture=True,
            color=OCCLUDER_COLOR,
        )
        o.position[:, 2] = h / 2 + p.screen.start_z * down
    W, D, H = object_size(p.object.shape, p.object.width, p.object.height)
    obj = add_object(scene, "object", p.object.shape, (W, D, H), (p.path.start_x, 0.0, H / 2))
    t0 = scene.frame((p.path.first_frame - 1) / ORIGINAL_FPS) / scene.fps  # launched on a frame
    obj.position[:, 0] = p.path.start_x + p.path.speed * np.clip(t - t0, 0, None)
    if condition == "surprising":
        if seen_frames(scene):
            _vanish(scene, asked_level(p))
        else:
            _lift(scene, M, p.lift_peek, asked_level(p))


def _counts(scene):
    loc = local_points(scene["object"])
    return [visible_points(scene, "object", t, PANELS, loc) for t in range(scene.n_frames)]


def seen_frames(scene) -> list[int]:
    """Frames in which some point of the object is seen through the gap above the middle part."""
    out = []
    for t, pts in enumerate(_counts(scene)):
        if len(pts) and (np.abs(_crossing(pts)[0]) < NOTCH).any():
            out.append(t)
    return out


def _window(scene, core):
    """Hidden frames just before and just after the frames `core` (None where there is none)."""
    vis = [len(v) for v in _counts(scene)]
    before = [t for t in range(core[0]) if vis[t] == 0]
    after = [t for t in range(core[-1] + 1, scene.n_frames) if vis[t] == 0]
    return (before[-1] if before else None), (after[0] if after else None)


def _behind_middle(scene) -> list[int]:
    """Frames in which some ray to the object crosses the screen plane within the middle part's width."""
    o = scene["object"]
    loc = local_points(o)
    return [t for t in range(scene.n_frames) if (np.abs(_crossing(world_points(o, t, loc))[0]) < NOTCH).any()]


def _vanish(scene, asked: float | None = None):
    core = seen_frames(scene)
    _need_core(core)
    a, b = _window(scene, core)
    hidden = a is not None and b is not None
    a = core[0] if a is None else a
    b = core[-1] if b is None else b
    if asked is not None:  # missing for `asked` s from the same first frame
        n = round(asked * scene.fps)
        if n < 1 or abs(n / scene.fps - asked) > 0.5 / 24 or a + n > scene.n_frames:
            raise Infeasible(
                f"B: a disappearance of {asked:g} s from frame {a} is not a whole number of frames within the video",
                ("violation", "fps", "seconds"),
            )
        b = a + n - 1
        hidden = hidden and len(_counts(scene)[b]) == 0
    edits.vanish(scene, "object", a, b, ["object permanence"], hidden=hidden)
    edits.grade(scene, (b - a + 1) / scene.fps if asked is None else asked)


def _need_core(core) -> None:
    if not core:  # the object reaches the middle part after the video ends (a short --seconds)
        raise Infeasible("B: the object does not pass behind the screen's middle part within the video", ("seconds",))


def _lift(scene, M, peek, asked: float | None = None):
    core = _behind_middle(scene)
    _need_core(core)
    a, b = _window(scene, core)
    a = core[0] if a is None else a
    b = core[-1] if b is None else b
    o = scene["object"]
    pts = world_points(o, 0)
    s = (PLANE_Y - CAMERA_EYE[1]) / (pts[:, 1] - CAMERA_EYE[1])
    z_c = _crossing(pts)[1]
    i = int(np.argmax(z_c))
    lift = max(0.0, (min(M + peek, SCREEN_H - 0.2) - z_c[i]) / s[i]) if asked is None else asked
    if asked is not None and not (M < z_c[i] + asked * s[i] <= SCREEN_H - 0.2):
        raise Infeasible(
            f"B: a lift of {asked:g} m does not show the object above the middle part only (its top would be seen "
            f"at {z_c[i] + asked * s[i]:.2f} m on the screen; the middle part is {M:.2f} m, the sides {SCREEN_H:g} m)",
            ("violation", "object.height", "middle"),
        )
    edits.shift(
        scene,
        "object",
        a,
        b,
        (0.0, 0.0, lift),
        ["object permanence", "solidity"],
        "teleport",
        hidden=lambda a, b: all(len(visible_points(scene, "object", t, PANELS)) == 0 for t in (a, b)),
    )
    if asked is not None and not seen_frames(scene):
        raise Infeasible(f"B: a lift of {asked:g} m does not show the object above the middle part", ("violation",))
    edits.grade(scene, lift)


def labels(scene, p) -> dict:
    M = middle_height(p)
    seen = bool(seen_frames(scene))
    return make_labels(
        CATEGORY,
        features={
            "object_height": p.object.height,
            "object_width": p.object.width,
            "middle_segment_height": round(M / SCREEN_H, 4),
            "object_shape": p.object.shape,
        },
        prior_rules={"object_taller_than_middle": subtype(p) == "B1"},
        posterior_rules={"object_seen_in_middle": seen},
    )


def describe(scene, p, condition) -> str:
    W, D, H = object_size(p.object.shape, p.object.width, p.object.height)
    shape = p.object.shape.replace("_", " ")
    seen = (
        "Its top is seen above the middle part as it passes."
        if seen_frames(scene)
        else "It is not seen while it passes the middle part."
    )
    asked = asked_level(p) if condition == "surprising" else None
    if asked is not None:  # a graded level: say its size
        B1 = subtype(p) == "B1"
        seen += f" It is missing for {asked:.2f} s." if B1 else f" It is lifted {asked:.2f} m meanwhile."
    return (
        f"A cyan screen comes down; its sides are 5 m tall and its middle part {middle_height(p):.1f} m. "
        f"{_a(shape)} {W:.1f} m wide and {H:.1f} m tall then slides from left to right behind it. {seen}"
    )


def _a(word: str) -> str:
    return ("An " if word[0] in "aeiou" else "A ") + word
