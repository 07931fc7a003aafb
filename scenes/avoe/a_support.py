"""A Support: an object is dropped onto a grey block with part of its width over the block's right edge.

Expected: Bullet decides; an object whose centre of mass is over the block stays (A1), one whose centre of
mass is past the edge tips over and falls (A2). Surprising, as in the original: the same object with its
centre of mass moved inside it (the only change), to near the far end of the part over the block if it fell
(so it now stays, balancing on a sliver) or to the middle of the part past the edge if it stayed (so it
now topples off). Not hidden.

Original (docs/scene-facts.md Part 6 A): block 5 x 4 x 4 m centred (-4.5, -6.892, 2.05), right edge x = -2, top
z = 4.05; the object's lowest point starts 1.05 m above the top; contact point c = fraction of the width past
the edge. c = 0.5 (centre of mass exactly over the edge, outcome decided by numerical noise) is left out.
"""

import numpy as np

from voebench.contract.avoe_labels import make_labels
from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.kinematics import quat_to_matrix
from voebench.generator.params import FRACTION, NON_NEGATIVE, POSITIVE, Choice, Fixed, Range
from voebench.generator.physics import simulate
from voebench.generator.scene import RigidBody
from voebench.scenes.avoe.world import SUPPORT_COLOR, add_object, local_points, object_size, stage, tilt_deg, z_extent

CATEGORY = "A"
SUBTYPES = {
    "A1": "the support holds the object (most of it is over the block)",
    "A2": "the object falls (most of it is past the edge)",
}

SUPPORT_SIZE, SUPPORT_CENTER = (5.0, 4.0, 4.0), (-4.5, -6.892, 2.05)
EDGE_X = SUPPORT_CENTER[0] + SUPPORT_SIZE[0] / 2  # -2.0
TOP_Z = SUPPORT_CENTER[2] + SUPPORT_SIZE[2] / 2  # 4.05

SPACE = {
    "object": {
        "shape": Choice(
            ["cube", "cylinder", "torus", "sphere", "cone", "side_cylinder"]
        ),  # no inverted cone (6, as the original)
        "width": Range(0.4, 1.6, domain=POSITIVE),  # x extent, units of 2 m
        "height": Range(0.4, 1.6, domain=POSITIVE),  # z extent, units of 2 m
        "depth": Fixed(1.0, domain=POSITIVE),  # y extent, units of 2 m (the original's constant)
    },
    # fraction of the object's width past the edge (0.5 left out: the centre of mass would sit on the edge)
    "contact": Choice([0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8], domain=FRACTION),
    "drop_gap": Fixed(1.05, domain=NON_NEGATIVE),  # m between the object's lowest point and the block top at release
    "friction": Fixed(0.5, domain=NON_NEGATIVE),  # object and block (Bullet multiplies them)
}


BINARY = {
    t: "the violation is the outcome itself (it stays where it should fall, or falls where it should stay): the "
    "moved centre of mass is invisible and where the object lands is shared with the plausible video"
    for t in ("A1", "A2")
}


def level_key(p) -> None:
    """No Level leaf grades A's violations: both sub-types are binary (`BINARY`)."""
    return None


def subtype(p) -> str:
    return "A1" if p.contact < 0.5 else "A2"


def build(scene, p, condition):
    stage(scene)
    scene.add(
        "support",
        "box",
        SUPPORT_SIZE,
        SUPPORT_CENTER,
        role="support",
        fixture=True,
        color=SUPPORT_COLOR,
        body=RigidBody("passive", friction=p.friction, collision_shape="MESH"),
    )  # as the original
    W, D, H = object_size(p.object.shape, p.object.width, p.object.height, p.object.depth)
    x = EDGE_X + (p.contact - 0.5) * W
    add_object(
        scene,
        "object",
        p.object.shape,
        (W, D, H),
        (x, SUPPORT_CENTER[1], TOP_Z + p.drop_gap + H / 2),
        body=RigidBody("active", mass=1.0, friction=p.friction),
    )
    simulate(scene)
    if condition == "surprising":
        falls = fell(scene)
        expected = scene["object"].position.copy(), scene["object"].quaternion.copy()
        shift_center_of_mass(scene, toward_support=falls)
        if fell(scene) == falls:  # a round bottom (sphere, torus) that still rolls off: it stops where it lands
            o = scene["object"]
            o.position[:], o.quaternion[:] = expected
            land = next((t for t in range(scene.n_frames) if z_extent(o, t)[0] < TOP_Z + 0.02), None)
            if land is None:
                raise Infeasible("A: the object does not land on the support within the video", ("seconds",))
            edits.freeze(scene, "object", land, ["support", "gravity"])


def shift_center_of_mass(scene, toward_support: bool) -> None:
    """Re-simulate with the object's centre of mass (Blender: its origin) moved along x inside the object."""
    obj = scene["object"]
    x, W = obj.position[0, 0], _world_width(obj)
    left, right = x - W / 2, x + W / 2
    # near the far end of the supported part (round shapes then roll back onto the block), or the middle of
    # the part past the edge
    target = left + 0.2 * (EDGE_X - left) if toward_support else (EDGE_X + right) / 2
    R0 = quat_to_matrix(obj.quaternion[0])
    delta_local = R0.T @ np.array([target - x, 0.0, 0.0])
    pts = local_points(obj)

    def change(twin):
        o = twin["object"]
        o.shape, o.mesh = "mesh", (pts - delta_local, [])
        o.position[:] = obj.position[0] + R0 @ delta_local
        o.quaternion[:] = obj.quaternion[0]
        o.body.collision_shape = "CONVEX_HULL"

    twin = edits.simulate_twin(scene, change)
    o = twin["object"]
    # the twin's track is of its origin (the shifted centre of mass); the real object's is of its box centre
    o.position[:] = [o.position[t] - quat_to_matrix(o.quaternion[t]) @ delta_local for t in range(scene.n_frames)]
    # the shifted centre of mass changes nothing before the video ends (a short --seconds): nothing to show
    never = Infeasible("A: the object has not settled on the support within the video", ("seconds",))
    edits.diverge_hidden(scene, twin, ["support", "gravity"], "center_of_mass", "object", never, hidden=False)


def _world_width(obj) -> float:
    pts = local_points(obj) @ quat_to_matrix(obj.quaternion[0]).T
    return float(np.ptp(pts[:, 0]))


def fell(scene) -> bool:
    """From the track: at the last frame the object's centre is below the block top, or it is tipping over
    (tilted by more than 30 deg with its centre past the edge)."""
    o, t = scene["object"], scene.n_frames - 1
    return bool(o.position[t, 2] < TOP_Z or (tilt_deg(o, t) > 30 and o.position[t, 0] > EDGE_X))


def labels(scene, p) -> dict:
    majority = p.contact < 0.5  # most of the width, and (shapes symmetric in x) most of the volume, over the block
    return make_labels(
        CATEGORY,
        features={
            "object_height": p.object.height,
            "object_width": p.object.width,
            "contact_point": p.contact,
            "object_shape": p.object.shape,
        },
        prior_rules={"object_majority_contact": majority, "object_majority_volume": majority},
        posterior_rules={"support_holds_object": not fell(scene)},
    )


def describe(scene, p, condition) -> str:
    W, D, H = object_size(p.object.shape, p.object.width, p.object.height, p.object.depth)
    shape = p.object.shape.replace("_", " ")
    outcome = "It tips over the edge and falls to the ground." if fell(scene) else "It stays on the block."
    return (
        f"{_a(shape)} {W:.1f} m wide and {H:.1f} m tall is dropped onto a grey block, with {p.contact:.0%} of "
        f"its width past the block's right edge. {outcome}"
    )


def _a(word: str) -> str:
    return ("An " if word[0] in "aeiou" else "A ") + word
