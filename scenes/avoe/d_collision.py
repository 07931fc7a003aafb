"""D Collision: two objects on a frictionless floor are pushed toward each other and collide.

Sub-types as in the original (which always has equal sizes or equal speeds): D1 different sizes, same speed;
D2 same size, same speed; D3 same size, different speeds. Mass = size^3 (the supplementary's "height is
proportional to mass^(1/3)").

Expected: Bullet (coefficient of restitution `restitution`). Surprising, as in the original, by changing masses
only (which shows nothing before the contact): D1 the two masses are swapped; D3 the slower object is 100x
heavier; D2 one side (`d2_side`) is 100x heavier and stops dead at the contact. Not hidden.

Graded (`violation.D1`, `violation.D3`, dex = decimal orders of magnitude): how far the mass ratio the
collision shows is off the true one, |log10(m_a'/m_b') - log10(m_a/m_b)|. D1: the smaller object is made
10^(L/2) times heavier and the larger 10^(L/2) times lighter (today's swap of the masses is
L = 6 |log10(h_right/h_left)|, 0.48-2.86 dex); D3: the slower object is 10^L times heavier (today: 100x, 2 dex).
The audit reads the ratio from the outcome (`mass_dex`: on the frictionless floor the pair's x momentum is
kept, so m_a / m_b = -dv_b / dv_a from each object's change of velocity over the collision) in both videos.
D2 is binary (`BINARY`): its heavy side also stops dead at the contact, which no mass ratio shows.

Original (docs/scene-facts.md Part 6 D): objects at x = -5 and +5 on the ground at y = 0, friction 0; each is moved
0.75 v toward the other over frames 1-5 and then released (so v = 1 is 4.5 m/s).
"""

import numpy as np

from voebench.contract.avoe_labels import make_labels
from voebench.generator import edits
from voebench.errors import Infeasible
from voebench.generator.params import COUNT, FRACTION, POSITIVE, Choice, Fixed, Level
from voebench.generator.physics import simulate
from voebench.generator.scene import RigidBody
from voebench.scenes.avoe.world import ORIGINAL_FPS, UNIT, add_object, object_size, stage

CATEGORY = "D"
SUBTYPES = {"D1": "different sizes, same speed", "D2": "same size, same speed", "D3": "same size, different speeds"}

SIZES = [0.5, 0.75, 1.0, 1.25, 1.5]  # H_Obj, units of 2 m (size 2h, mass h^3)
SPEEDS = [0.5, 1.0, 1.5, 2.0, 2.5]  # V_Obj, units of `speed_scale` m/s
D_SHAPES = ["cube", "cylinder", "sphere", "cone", "side_cylinder", "inverted_cone"]  # no torus, as the original

SPACE = {
    # Table 1 proportions (2190 : 564 : 2246 of 5000)
    "subtype": Choice(["D1", "D2", "D3"], weights=[2190, 564, 2246]),
    "left": {
        "shape": Choice(D_SHAPES),
        "size": Choice(SIZES, domain=POSITIVE),
        "speed": Choice(SPEEDS, domain=POSITIVE),
    },
    "right": {
        "shape": Choice(D_SHAPES),
        # D1: the right size is this many list steps from the left's (cyclic)
        "size_step": Choice([1, 2, 3, 4], domain=COUNT),
        "speed_step": Choice([1, 2, 3, 4], domain=COUNT),
    },  # D3: the same for the speed
    "start_x": Fixed(5.0, domain=POSITIVE),  # m, both objects' distance from the middle
    "speed_scale": Fixed(4.5, domain=POSITIVE),  # m/s per speed unit (the original moved 0.75 v in 4 frames at 24 fps)
    "push_frames": Fixed(4, domain=COUNT),  # original frames of the push before release
    # coefficient of restitution of the collision (Bullet multiplies both bodies' values)
    "restitution": Fixed(0.8, domain=FRACTION),
    "d2_side": Choice(["left", "right"]),  # D2 surprising: the side that turns heavy and stops dead
    # Bullet substeps per frame (at 10, a cone struck at a 20 m/s closing speed sank 3 cm into the ground)
    "substeps": Fixed(20, domain=COUNT),
    # dex by which the surprising collision's mass ratio is off (declared last: unset, it takes no draw)
    "violation": {
        "D1": Level(
            "dex",
            "mass_dex",
            "the shown mass ratio's error (the smaller object made heavier, the larger lighter)",
            default="the masses swapped: 6 log10(larger/smaller size), 0.48-2.86 dex",
            hi=4.0,
            tol=0.02,
        ),
        "D3": Level(
            "dex",
            "mass_dex",
            "the shown mass ratio's error (the slower object made heavier)",
            default="the slower object 100x heavier: 2 dex",
            hi=4.0,
            tol=0.02,
        ),
    },
}

GRADED = ("D1", "D3")
BINARY = {
    "D2": "the heavy side also stops dead at the contact (a halt no mass ratio can show), so its size is not "
    "a mass ratio; the violation is whether it stops"
}


def level_key(p) -> str | None:
    """The Level leaf that grades this trial's violation (None: D2, binary)."""
    return f"violation.{p.subtype}" if p.subtype in GRADED else None


def asked_level(p) -> float | None:
    """The level asked for this trial's sub-type (`--set`/`--sweep`), or None (today's violation)."""
    return (p.get("violation") or {}).get(p.subtype)


def level(p) -> float:
    """D1/D3's size in dex: the one asked for, else today's (the swap; 100x)."""
    asked = asked_level(p)
    if asked is not None:
        return float(asked)
    hl, hr, _, _ = sizes_speeds(p)
    return float(abs(6.0 * np.log10(hr / hl))) if p.subtype == "D1" else 2.0


def subtype(p) -> str:
    return p.subtype


def sizes_speeds(p):
    """(left size, right size, left speed, right speed) in units, from the sub-type."""
    i = SIZES.index(p.left.size)
    j = SPEEDS.index(p.left.speed)
    right_size = SIZES[(i + p.right.size_step) % len(SIZES)] if p.subtype == "D1" else p.left.size
    right_speed = SPEEDS[(j + p.right.speed_step) % len(SPEEDS)] if p.subtype == "D3" else p.left.speed
    return p.left.size, right_size, p.left.speed, right_speed


def build(scene, p, condition):
    stage(scene)
    scene["ground"].body.friction = 0.0
    hl, hr, vl, vr = sizes_speeds(p)
    release = max(1, int(round(p.push_frames / ORIGINAL_FPS * scene.fps)))
    t = np.arange(scene.n_frames) / scene.fps
    e = float(np.sqrt(p.restitution))
    for name, shape, h, v, sign in (
        ("left_object", p.left.shape, hl, vl, 1.0),
        ("right_object", p.right.shape, hr, vr, -1.0),
    ):
        size = object_size(shape, h, h)
        x0 = -sign * p.start_x
        speed = v * p.speed_scale
        # pushed at constant speed from the first frame, released with that velocity
        body = RigidBody(
            "active",
            mass=h**3,
            friction=0.0,
            restitution=e,
            linear_damping=0.0,
            angular_damping=0.0,
            release_frame=release,
            velocity=(sign * speed, 0.0, 0.0),
        )
        o = add_object(scene, name, shape, size, (x0, 0.0, size[2] / 2), body=body, role="object")
        o.position[:, 0] = x0 + sign * speed * np.minimum(t, release / scene.fps)
    simulate(scene, substeps=p.substeps)
    if condition == "surprising":
        _violate(scene, p, hl, hr, vl, vr)


PAIR = ("left_object", "right_object")


def _violate(scene, p, hl, hr, vl, vr):
    ml, mr = hl**3, hr**3
    stop = None
    asked = asked_level(p)
    if p.subtype == "D1" and asked is None:
        ml, mr = mr, ml
    elif p.subtype == "D1" and asked is not None:  # the smaller made 10^(L/2) heavier, the larger 10^(L/2) lighter
        k = 10.0 ** (asked / 2)
        ml, mr = (ml * k, mr / k) if hl < hr else (ml / k, mr * k)
    elif p.subtype == "D3":
        k = 100.0 if asked is None else 10.0**asked
        if vl < vr:
            ml *= k
        else:
            mr *= k
    else:
        stop = f"{p.d2_side}_object"
        if stop == "left_object":
            ml *= 100
        else:
            mr *= 100

    def change(twin):
        twin["left_object"].body.mass, twin["right_object"].body.mass = ml, mr

    twin = edits.simulate_twin(scene, change, substeps=p.substeps)
    first = edits.twin_divergence(scene, twin, PAIR, rotation=False)
    if first is None:  # no contact within the video: nothing to change
        if asked is not None:
            raise Infeasible("D: the objects do not collide within the video", ("seconds", "violation"))
        first = scene.n_frames - 1
    if stop is not None:
        # the heavy side stops dead at the contact: from there on the other object moves against it at rest
        # (a static collider at its contact pose), released with the velocity the contact gave it (taking its
        # track from the heavy twin, where the heavy side kept moving and pushing, left it accelerating with
        # nothing touching it)
        light = "right_object" if stop == "left_object" else "left_object"
        track = {n: (twin[n].position.copy(), twin[n].quaternion.copy()) for n in (stop, light)}

        def halt(twin2):
            for n, (pos, quat) in track.items():
                twin2[n].position[:], twin2[n].quaternion[:] = pos, quat
            twin2[stop].position[:], twin2[stop].quaternion[:] = pos_s[first], track[stop][1][first]  # passive: pose 0
            twin2[stop].body = RigidBody("passive", friction=0.0, restitution=twin2[stop].body.restitution)
            b = twin2[light].body
            b.release_frame = first
            b.velocity = tuple((pos_l[first] - pos_l[first - 1]) * scene.fps)

        pos_l, pos_s = track[light][0], track[stop][0]
        if 0 < first < scene.n_frames - 1:
            twin = edits.simulate_twin(scene, halt, substeps=p.substeps)
    edits.follow_twin(
        scene, twin, PAIR, first, ["momentum", "collision"], "mass_change", stop or "left_object", hold=stop
    )
    if p.subtype in GRADED:
        edits.grade(scene, level(p))


def _velocities(scene, name, release):
    """x displacement per frame just after the release and over the last two frames."""
    x = scene[name].position[:, 0]
    a = min(release, scene.n_frames - 2)
    return float(x[a + 1] - x[a]), float(x[-1] - x[-2])


def outcome(scene, p):
    """Per object: (changed direction, sped up, posterior velocity in units) measured on the tracks. As the
    original: direction compares the first frame after release with the last two frames; standing still
    (|dx| < 0.01 x the first step... or under 1 mm) counts as a change."""
    release = max(1, int(round(p.push_frames / ORIGINAL_FPS * scene.fps)))
    hl, hr, vl, vr = sizes_speeds(p)
    out = {}
    for name, v, sign in (("left_object", vl, 1.0), ("right_object", vr, -1.0)):
        before, after = _velocities(scene, name, release)
        still = abs(after) < max(1e-3, 0.01 * abs(before))
        changed = still or np.sign(after) != np.sign(before)
        out[name] = (
            bool(changed),
            bool(abs(after) > abs(before) * 1.0001),
            float(sign * v * after / before) if before else 0.0,
        )
    return out


def labels(scene, p) -> dict:
    hl, hr, vl, vr = sizes_speeds(p)
    o = outcome(scene, p)
    return make_labels(
        CATEGORY,
        features={
            "left_size": hl,
            "right_size": hr,
            "left_prior_velocity": vl,
            "right_prior_velocity": -vr,
            "left_posterior_velocity": round(o["left_object"][2], 4),
            "right_posterior_velocity": round(o["right_object"][2], 4),
            "left_shape": p.left.shape,
            "right_shape": p.right.shape,
        },
        prior_rules={
            "right_object_larger": hr > hl,
            "objects_same_size": hr == hl,
            "right_object_faster": vr > vl,
            "objects_same_speed": vr == vl,
        },
        posterior_rules={
            "right_object_changed_direction": o["right_object"][0],
            "left_object_changed_direction": o["left_object"][0],
            "right_object_sped_up": o["right_object"][1],
            "left_object_sped_up": o["left_object"][1],
        },
    )


def describe(scene, p, condition) -> str:
    hl, hr, vl, vr = sizes_speeds(p)
    o = outcome(scene, p)

    def after(name, v):
        changed, faster, post = o[name]
        if abs(post) < 1e-3 or (changed and abs(post) < 0.01 * v):
            return "stops"
        way = "bounces back" if changed else "keeps going"
        return f"{way} {'faster' if faster else 'slower'}"

    L, R = p.left.shape.replace("_", " "), p.right.shape.replace("_", " ")
    an = "an" if R[0] in "aeiou" else "a"
    return (
        f"A{'n' if L[0] in 'aeiou' else ''} {L} {hl * UNIT:.1f} m tall slides right at "
        f"{vl * p.speed_scale:.1f} m/s and {an} {R} "
        f"{hr * UNIT:.1f} m tall slides left at {vr * p.speed_scale:.1f} m/s on a frictionless floor; they "
        f"collide. Afterwards the left object {after('left_object', vl)} and the right object "
        f"{after('right_object', vr)}."
    )
