"""C Containment: an object is dropped toward an open pink container (a box or a mug); a small cyan screen
in front hides the container's opening, and rises at the end to show the result.

Expected: Bullet decides; an object narrower than the opening falls in, and is either contained (C1: it fits
and its top stays below the rim) or sticks out (C2, also: too wide, it stays on the rim or falls beside).
Surprising, as in the original: a contained object does not go in (the container's top acts as closed, so
the object lands on it); an object that would stick out or not fit goes in and disappears (container and
ground do not collide with it), or, for one that fits but sticks out, 50/50 (`c2_violation`), lands on a closed
top instead. Only colliders change; the divergence happens behind the screen where the geometry allows (the
`hidden` flag of the violation says whether the object showed no pixel then).

Graded (`violation.C1`, m): how much higher the contained object comes to rest than in the plausible video, the
largest distance between the object's positions in the two videos (`displacement`): an invisible lid inside the
container holds it up. Today the closed top holds it at the rim (1.5-3.0 m up in 4 draws); a lower lid leaves it
partly or fully inside, resting on nothing. The lid's height is found by re-simulating (up to `SOLVE_STEPS`
times) until the measured size is the level within a third of the tolerance; a level above today's is Infeasible.
C2 is binary (`BINARY`).

Original (docs/scene-facts.md Part 6 C): container at (-2, -6.892) on the ground; object centre starts at z = 6.25;
screen 4 x 2 m at y = -10.5 on the line of sight to the opening, lowered 6 m (through the ground) over
frames 35-50; ours rises 7 m out of view instead (nothing passes through the ground).
Ours: container 3 cw wide and 2.4 ch tall (the original's FBX box was 2.89 cw x 3.23 cw x 2.45 ch, its mug
3.19 cw across and 2.39 ch tall), walls 0.1 m thick; objects 2 w wide, 2 h tall (1 unit = 2 m).
"""

from typing import Any

import numpy as np

from voebench.contract.avoe_labels import make_labels
from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.params import COORDINATE, INDEX, NON_NEGATIVE, POSITIVE, Choice, Fixed, Level, Range
from voebench.generator.physics import simulate
from voebench.generator.scene import RigidBody, Scene
from voebench.scenes.avoe.world import CAMERA_EYE, CONTAINER_COLOR, OCCLUDER_COLOR, ORIGINAL_FPS, AVOE_SHAPES, UNIT
from voebench.scenes.avoe.meshes import mug_mesh, open_box_mesh
from voebench.scenes.avoe.world import add_object, hidden, object_size, stage, world_points

CATEGORY = "C"
SUBTYPES = {"C1": "the object goes in and is fully contained", "C2": "the object sticks out or does not fit"}

CX, CY = -2.0, -6.892  # container centre on the ground
WALL = 0.1  # m, wall and floor thickness
SCREEN_Y = -10.5

SPACE: dict[str, Any] = {
    "object": {
        "shape": Choice(list(AVOE_SHAPES)),
        "width": Range(0.4, 1.6, domain=POSITIVE),  # x and y extent, units of 2 m
        "height": Range(0.4, 1.6, domain=POSITIVE),  # z extent, units of 2 m
    },
    "container": {
        "shape": Choice(["box", "mug"]),
        # W_Con: outer width (box) / cup diameter (mug) = width * scale_width m
        "width": Range(0.5, 1.5, domain=POSITIVE),
        "height": Range(0.5, 1.5, domain=POSITIVE),  # H_Con: outer height = height * scale_height m
        # m per unit: the original FBX box was 2.89-3.23 cw, the mug 3.19 cw across
        "scale_width": Fixed(3.0, domain=POSITIVE),
        "scale_height": Fixed(2.4, domain=POSITIVE),  # m per unit: the original box 2.45 ch, mug 2.39 ch tall
    },
    # m, the object's centre at release (raised if needed to clear the rim by 0.3 m)
    "start_z": Fixed(6.25, domain=COORDINATE),
    # m of play around an object that fits; closer calls are nudged (object width)
    "fit_margin": Fixed(0.08, domain=NON_NEGATIVE),
    # m between a contained object's top and the rim, either way (object height nudged)
    "rim_margin": Fixed(0.15, domain=NON_NEGATIVE),
    "c2_violation": Choice(["pass_through", "closed_top"]),  # for an object that fits but sticks out
    "screen": {
        "first_frame": Fixed(35, domain=INDEX),
        "last_frame": Fixed(50, domain=INDEX),
        "rise": Fixed(7.0, domain=NON_NEGATIVE),
    },  # original frames over which it rises (m) out of view
    # how much higher the surprising C1 object rests (declared last: unset, it takes no draw)
    "violation": {
        "C1": Level(
            "m",
            "displacement",
            "how much higher than in the container an invisible lid holds the object",
            default="on the closed top at the rim",
            hi=3.6,
            tol=0.03,
        )
    },
}

GRADED = ("C1",)
BINARY = {
    "C2": "the object either vanishes through a container it does not fit (and the ground) or lands on a closed "
    "top: two different violations, neither with a size (the object is gone, or it is not in)"
}
SOLVE_STEPS = 6  # re-simulations to place the lid for an asked level


def level_key(p) -> str | None:
    """The Level leaf that grades this trial's violation (None: C2, binary)."""
    return "violation.C1" if subtype(p) == "C1" else None


def asked_level(p) -> float | None:
    """The level asked for this trial's sub-type (`--set`/`--sweep`), or None (today's violation)."""
    return (p.get("violation") or {}).get(subtype(p))


# ---------------------------------------------------------------------------------------- geometry


def _footprint_extent(shape, W, D):
    """(kind, a, b) of the object's plan: a circle of radius a, or a rectangle of half sizes a x b."""
    if shape in ("cylinder", "sphere", "cone", "inverted_cone"):
        return "circle", W / 2, W / 2
    return "rect", W / 2, D / 2


def _cw(p) -> float:
    return p.container.width * p.container.scale_width


def _ch(p) -> float:
    return p.container.height * p.container.scale_height


def fit_slack(shape, W, D, container, cw) -> float:
    """m of play between the object's plan and the inner plan of a container `cw` m wide (negative: no fit)."""
    inner = cw / 2 - WALL
    kind, a, b = _footprint_extent(shape, W, D)
    if container == "box":
        return inner - max(a, b)
    return inner - (a if kind == "circle" else float(np.hypot(a, b)))


def object_dims(p):
    """The object's (width, height) in units after nudging close calls out of the dead zones."""
    w, h = p.object.width, p.object.height
    W, D, _ = object_size(p.object.shape, w, h)
    slack = fit_slack(p.object.shape, W, D, p.container.shape, _cw(p))
    if -p.fit_margin * 2 < slack < p.fit_margin:  # too close to call: make it fit with margin
        w = w * (W - 2 * (p.fit_margin - slack)) / W if 2 * (p.fit_margin - slack) + 0.2 < W else w
    rim = _ch(p)
    top = WALL + h * UNIT
    if abs(top - rim) < p.rim_margin:
        h = (rim - WALL + (p.rim_margin if top >= rim else -p.rim_margin)) / UNIT
    return float(w), float(h)


def predicted(p) -> tuple[bool, bool]:
    """(fits, protrudes) from geometry, for the sub-type."""
    w, h = object_dims(p)
    W, D, H = object_size(p.object.shape, w, h)
    fits = fit_slack(p.object.shape, W, D, p.container.shape, _cw(p)) > 0
    return fits, (not fits) or _ch(p) < WALL + H


def subtype(p) -> str:
    fits, protrudes = predicted(p)
    return "C1" if fits and not protrudes else "C2"


# ---------------------------------------------------------------------------------------- scene


def build(scene, p, condition):
    stage(scene)
    cw, ch = _cw(p), _ch(p)
    if p.container.shape == "box":
        mesh = open_box_mesh(cw, cw, ch, WALL)
    else:
        mesh = mug_mesh(cw / 2, ch, WALL)
    centre = (mesh[0].min(0) + mesh[0].max(0)) / 2  # position = bounding-box centre (the mug's handle)
    mesh = (mesh[0] - centre, mesh[1])
    scene.add(
        "container",
        "mesh",
        np.ptp(mesh[0], axis=0),
        np.array([CX, CY, ch / 2]) + centre,
        role="container",
        fixture=True,
        color=CONTAINER_COLOR,
        mesh=mesh,
        body=RigidBody("passive", friction=0.5, collision_shape="MESH"),
    )
    w, h = object_dims(p)
    W, D, H = object_size(p.object.shape, w, h)
    z0 = max(p.start_z, ch + 0.3 + H / 2)
    add_object(
        scene, "object", p.object.shape, (W, D, H), (CX, CY, z0), body=RigidBody("active", mass=1.0, friction=0.5)
    )
    _screen(scene, p, cw, ch)
    simulate(scene)
    if condition == "surprising":
        fit, protruded = outcome(scene, p)
        if fit and not protruded:
            kind = "closed_top"
        elif not predicted(p)[0] or not fit:
            kind = "pass_through"
        else:
            kind = p.c2_violation
        _violate(scene, kind, p)


def _screen(scene, p, cw, ch):
    """A thin cyan screen on the camera's lines of sight to the rim, hiding the opening."""
    rim = np.array([(CX + sx * cw / 2, CY + sy * cw / 2, ch) for sx in (-1, 1) for sy in (-1, 1)])
    s = (SCREEN_Y - CAMERA_EYE[1]) / (rim[:, 1] - CAMERA_EYE[1])
    xc = CAMERA_EYE[0] + s * (rim[:, 0] - CAMERA_EYE[0])
    zc = CAMERA_EYE[2] + s * (rim[:, 2] - CAMERA_EYE[2])
    x0, x1, z0, z1 = xc.min() - 0.3, xc.max() + 0.3, zc.min() - 0.6, zc.max() + 0.8
    o = scene.add(
        "screen",
        "box",
        (x1 - x0, 0.05, z1 - z0),
        ((x0 + x1) / 2, SCREEN_Y, (z0 + z1) / 2),
        role="occluder",
        fixture=True,
        color=OCCLUDER_COLOR,
    )
    t = np.arange(scene.n_frames) / scene.fps
    a, b = (p.screen.first_frame - 1) / ORIGINAL_FPS, (p.screen.last_frame - 1) / ORIGINAL_FPS
    o.position[:, 2] += p.screen.rise * np.clip((t - a) / (b - a), 0.0, 1.0)  # the original sank it 6 m into the ground


def _violate(scene, kind, p):
    plausible = scene["object"].position.copy()
    asked = asked_level(p) if subtype(p) in GRADED else None

    def change(twin, lid: float | None = None):
        """`lid`: the top (z, m) of an invisible lid inside the container (None: today's closed top)."""
        if kind == "closed_top" and lid is None:
            twin["container"].body.collision_shape = "CONVEX_HULL"
        elif kind == "closed_top" and lid is not None:
            cw = twin["container"].dimensions[0]
            body = RigidBody("passive", friction=0.5, collision_shape="BOX")
            twin.add(
                "lid",
                "box",
                (cw, cw, 0.05),
                (CX, CY, lid - 0.025),
                role="container",
                fixture=True,
                body=body,
                visible=False,
            )
        else:
            twin["container"].body = None
            twin["ground"].body = None

    twin = edits.simulate_twin(scene, change)
    if asked is not None and kind != "closed_top":
        raise Infeasible("C: this C1 draw does not end contained, so no lid can hold it higher", ("violation",))
    if asked is not None:
        twin = _solve(scene, twin, change, plausible, asked, SPACE["violation"]["C1"].tol)
    # the object reaches the container after the video ends (a short --seconds): nothing to show
    never = Infeasible("C: the object does not reach the container within the video", ("seconds",))
    edits.diverge_hidden(
        scene, twin, ["continuity", "solidity"], kind, "object", never, hidden=lambda first, _: _screened(scene, first)
    )
    if subtype(p) in GRADED:
        edits.grade(scene, _departure(scene["object"].position, plausible) if asked is None else asked)


def _departure(track: np.ndarray, plausible: np.ndarray) -> float:
    """The largest distance (m) between the object's positions in two tracks (the audit's `displacement`)."""
    return float(np.linalg.norm(track - plausible, axis=1).max())


def _solve(scene, closed, change, plausible: np.ndarray, asked: float, tol: float):
    """The twin whose object rests `asked` m higher: a lid placed by re-simulating until the measured departure is
    the level (within a third of the tolerance)."""
    full = _departure(closed["object"].position, plausible)  # on the closed top: the farthest a lid holds it
    if asked > full + tol / 3:
        raise Infeasible(
            f"C: resting {asked:g} m higher is above this container's closed top ({full:.2f} m)", ("violation",)
        )
    lid = WALL + asked
    for _ in range(SOLVE_STEPS):

        def with_lid(t: Scene, z: float = lid) -> None:
            change(t, z)

        twin = edits.simulate_twin(scene, with_lid)
        got = _departure(twin["object"].position, plausible)
        if abs(got - asked) <= tol / 3:
            return twin
        lid += asked - got
    raise Infeasible(f"C: no lid found that holds the object {asked:g} m higher for this draw", ("violation",))


def _screened(scene, first: int) -> bool:
    """Whether the screen hides the object at the divergence and the frame before it (C's window: the change of
    course at the container's opening is a single contact; C tests points geometrically, without E's pixel
    margin, and the audit is what measures pixels)."""
    return hidden(scene, "object", range(max(first - 1, 0), first + 1), ("screen",))


def outcome(scene, p) -> tuple[bool, bool]:
    """(fit, protruded) from the last frame: fit = the object's centre is inside the container's inner plan and
    its lowest point below the rim; protruded = its highest point is above the rim."""
    o, t = scene["object"], scene.n_frames - 1
    pts = world_points(o, t)
    rim = _ch(p)
    inner = _cw(p) / 2 - WALL
    dx, dy = o.position[t, 0] - CX, o.position[t, 1] - CY
    inside = max(abs(dx), abs(dy)) < inner if p.container.shape == "box" else np.hypot(dx, dy) < inner
    return bool(inside and pts[:, 2].min() < rim - 0.05), bool(pts[:, 2].max() > rim + 0.02)


def labels(scene, p) -> dict:
    w, h = object_dims(p)
    fits, _ = predicted(p)
    fit, protruded = outcome(scene, p)
    return make_labels(
        CATEGORY,
        features={
            "object_height": h,
            "object_width": w,
            "container_height": p.container.height,
            "container_width": p.container.width,
            "object_shape": p.object.shape,
            "container_shape": p.container.shape,
        },
        prior_rules={"object_taller_than_container": WALL + h * UNIT > _ch(p), "object_thinner_than_container": fits},
        posterior_rules={"object_fit": fit, "object_protruded": protruded},
    )


def describe(scene, p, condition) -> str:
    w, h = object_dims(p)
    W, D, H = object_size(p.object.shape, w, h)
    fit, protruded = outcome(scene, p)
    shape = p.object.shape.replace("_", " ")
    gone = world_points(scene["object"], scene.n_frames - 1)[:, 2].max() < 0.0  # passed through (surprising)
    end = (
        "It falls into the container and vanishes through its floor and the ground."
        if gone
        else "It goes into the container and is fully inside."
        if fit and not protruded
        else "It goes into the container but sticks out of the top."
        if fit
        else "It does not go in; it ends up on top of or beside the container."
    )
    return (
        f"{_a(shape)} {W:.1f} m wide and {H:.1f} m tall is dropped toward a pink {p.container.shape} "
        f"{_cw(p):.1f} m wide and {_ch(p):.1f} m tall; a cyan screen hides "
        f"the opening and rises at the end. {end}"
    )


def _a(word: str) -> str:
    return ("An " if word[0] in "aeiou" else "A ") + word
