"""Collisions: three or four objects of distinct colours (spheres, cubes, upright cylinders) slide across a
frictionless floor in straight lines. Objects 0 and 1 are on a collision course in half the trials and miss each
other by a sampled clearance in the other half (a near miss, so both kinds of trial look alike up to the cut); a
fourth object makes objects 2 and 3 a second pair, a hit or a near miss, and a third object alone keeps clear of
every path. Bullet simulates everything (hits, deflections, any knock-on hits); the ground truth is read off the
simulated tracks (`truth.py`). The clip shown to a model is cut at a sampled time before the first collision
(before the first near miss's closest approach in trials without one).

Only the designed meetings are planned (straight lines, constant speeds: the floor and the objects are
frictionless and undamped); every later event is whatever the simulation makes of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voebench.errors import Infeasible
from voebench.generator.params import (
    COORDINATE,
    FOV,
    FRACTION,
    NON_NEGATIVE,
    POSITIVE,
    SEED,
    SIGNED_FRACTION,
    Balanced,
    Domain,
    Fixed,
    Range,
)
from voebench.generator.physics import simulate
from voebench.generator.scene import RigidBody
from voebench.scenes.common import COLORS, room
from voebench.scenes.predict import truth
from voebench.scenes.predict.truth import Analysis

OUTCOMES = ("collision", "no_collision")
PALETTE = ("red", "green", "blue", "yellow", "purple", "white")
#: scene shape -> the word prompts, answers and the exact scorer use
SHAPE_WORDS = {"sphere": "sphere", "box": "cube", "cylinder": "cylinder"}
AREA = (3.2, 2.4)  # m: half-extents of the floor region the objects start in and cross (in view of the camera)
CLEARANCE = 0.4  # m: objects not meant to meet keep at least this much apart (between bounding circles)
MIN_CLIP = 1.0  # s: the shortest clip a model sees (enough motion to read directions and speeds)
LEAD = 0.3  # s: the cut comes at least this long before the first contact

OBJECTS = Domain("a number of objects (one colour each)", 2.0, float(len(PALETTE)), integer=True)

SPACE = {
    "outcome": Balanced(OUTCOMES),
    "n_objects": Range(3, 4, integer=True, domain=OBJECTS),
    "size": Range(0.5, 0.7, domain=POSITIVE),  # m, edge / diameter (each object scaled by 0.85-1.15 more)
    "speed": Range(0.6, 1.2, domain=POSITIVE),  # m/s, typical speed (each object scaled by 0.8-1.2 more)
    # when the designed pair meets (contact or closest approach), as a fraction of the video
    "meet": Range(0.5, 0.7, domain=FRACTION),
    "cut": Range(0.0, 1.0, domain=FRACTION),  # where the cut falls between MIN_CLIP and LEAD before the event
    "offset": Range(-0.3, 0.3, domain=SIGNED_FRACTION),  # a hit's lateral offset, fraction of the radii's sum
    "miss": Range(0.3, 0.8, domain=NON_NEGATIVE),  # m, a near miss's clearance between bounding circles
    "restitution": Fixed(0.5, domain=FRACTION),
    "layout_seed": Range(0, 2**31 - 1, integer=True, domain=SEED),  # colours, shapes, directions, others
    "camera": {
        "eye": Fixed([0.0, -6.0, 6.5], domain=COORDINATE),
        "look_at": Fixed([0.0, 0.0, 0.0], domain=COORDINATE),
        "fov": Fixed(60.0, domain=FOV),
    },
}


@dataclass
class Body:
    color: str
    shape: str
    size: float
    start: np.ndarray  # (2,) m
    velocity: np.ndarray  # (2,) m/s
    horizon: float  # s: until when it surely moves in a straight line (its pair's meeting time if that is a hit)

    @property
    def label(self) -> str:
        return f"{self.color} {SHAPE_WORDS[self.shape]}"

    @property
    def bound(self) -> float:
        """Radius of the footprint's bounding circle."""
        return self.size / np.sqrt(2) if self.shape == "box" else self.size / 2

    @property
    def inner(self) -> float:
        """Radius of the footprint's inscribed circle."""
        return self.size / 2


def closest_approach(a: Body, b: Body, t_end: float) -> tuple[float, float]:
    """(distance, time) of the closest approach of two centres on straight lines within [0, t_end]."""
    dp, dv = a.start - b.start, a.velocity - b.velocity
    vv = float(dv @ dv)
    t = 0.0 if vv < 1e-12 else float(np.clip(-(dp @ dv) / vv, 0.0, t_end))
    return float(np.linalg.norm(dp + dv * t)), t


def _pair(rng, bodies_spec, speeds, t_meet: float, collide: bool, offset: float, miss: float, duration: float):
    """Two bodies whose centres reach a meeting point at t_meet from directions 60-180 degrees apart: aimed within
    their inscribed circles (they must touch) or passing with `miss` between their bounding circles at t_meet (the
    closest approach, as the offset is across their relative motion). Returns the bodies and the event time (the
    near miss's closest approach; a collision's comes from the simulation)."""
    (ca, sa, za), (cb, sb, zb) = bodies_spec
    meet = rng.uniform(-0.8, 0.8, 2) * np.array(AREA) * 0.5
    th0 = rng.uniform(0, 2 * np.pi)
    th1 = th0 + rng.choice([-1, 1]) * np.radians(rng.uniform(60, 180))
    v0 = speeds[0] * np.array([np.cos(th0), np.sin(th0)])
    v1 = speeds[1] * np.array([np.cos(th1), np.sin(th1)])
    rel = v1 - v0
    normal = np.array([-rel[1], rel[0]]) / np.linalg.norm(rel)  # across the relative motion
    horizon = t_meet if collide else duration  # how long each keeps its straight line for sure
    a = Body(ca, sa, za, meet - v0 * t_meet, v0, horizon)
    b = Body(cb, sb, zb, meet - v1 * t_meet, v1, horizon)
    if collide:
        lateral = offset * (a.inner + b.inner)
    else:
        lateral = (a.bound + b.bound + miss) * (1.0 if offset >= 0 else -1.0)
    b.start = b.start + lateral * normal
    return [a, b], t_meet


def _clear(c: Body, others: list) -> bool:
    """c keeps CLEARANCE from every other body while both surely move in straight lines."""
    return all(closest_approach(c, o, min(c.horizon, o.horizon))[0] >= c.bound + o.bound + CLEARANCE for o in others)


def layout(p, duration: float) -> tuple[list[Body], float]:
    """The bodies and the time of the first planned near miss (s; the duration when there is none). Objects 0 and
    1 meet at `meet` (a hit in collision trials, a near miss otherwise); a fourth object makes objects 2 and 3 a
    second pair meeting elsewhere, a hit with probability 1/2 in collision trials and a near miss otherwise; the
    third object of a three-object scene keeps clear of every path."""
    rng = np.random.default_rng(p.layout_seed)
    n = int(p.n_objects)
    colors = [PALETTE[i] for i in rng.permutation(len(PALETTE))[:n]]
    shapes = [tuple(SHAPE_WORDS)[int(i)] for i in rng.integers(0, 3, n)]
    sizes = [p.size * float(rng.uniform(0.85, 1.15)) for _ in range(n)]
    speeds = [p.speed * float(rng.uniform(0.8, 1.2)) for _ in range(n)]
    spec = list(zip(colors, shapes, sizes))
    collision = p.outcome == "collision"
    bodies, t1 = _pair(rng, spec[:2], speeds[:2], p.meet * duration, collision, p.offset, p.miss, duration)
    misses = [] if collision else [t1]
    if n >= 4:
        hit2 = collision and bool(rng.random() < 0.5)
        for _ in range(100):
            t2 = float(rng.uniform(0.45, 0.75)) * duration
            miss2 = float(rng.uniform(0.3, 0.8))
            pair2, _ = _pair(rng, spec[2:4], speeds[2:4], t2, hit2, float(rng.uniform(-0.3, 0.3)), miss2, duration)
            if all(_clear(c, bodies) for c in pair2):
                bodies += pair2
                misses += [] if hit2 else [t2]
                break
        else:
            raise Infeasible("predict: no room for a second pair off the first pair's paths", ("n_objects", "size"))
    for k in range(len(bodies), n):
        for _ in range(200):
            start = rng.uniform(-1, 1, 2) * np.array(AREA)
            th = rng.uniform(0, 2 * np.pi)
            c = Body(colors[k], shapes[k], sizes[k], start, speeds[k] * np.array([np.cos(th), np.sin(th)]), duration)
            if _clear(c, bodies):
                bodies.append(c)
                break
        else:
            raise Infeasible("predict: no room for another object off every other's path", ("n_objects", "size"))
    for o in bodies:
        if np.any(np.abs(o.start) > np.array(AREA) + 0.8):
            raise Infeasible("predict: an object would start out of view", ("speed", "meet", "seconds"))
    return bodies, float(min(misses, default=duration))


def cut_time(p, event: float) -> float:
    """The cut: between MIN_CLIP and LEAD before the event, at the sampled fraction."""
    hi = event - LEAD
    if hi < MIN_CLIP:
        raise Infeasible(
            f"predict: the first event comes at {event:.2f} s, too early to show {MIN_CLIP:g} s before it",
            ("meet", "speed", "seconds"),
        )
    return MIN_CLIP + p.cut * (hi - MIN_CLIP)


def build(scene, p, condition):
    room(scene, floor_z=0.0)
    scene["floor"].body.friction = 0.0
    duration = scene.n_frames / scene.fps
    bodies, _ = layout(p, duration)
    t = np.arange(scene.n_frames) / scene.fps
    release = 3  # scripted for a few frames, then handed to Bullet with its velocity
    for k, o in enumerate(bodies):
        vel = (float(o.velocity[0]), float(o.velocity[1]), 0.0)
        body = RigidBody(
            "active",
            mass=1.0,
            friction=0.0,
            restitution=p.restitution,
            linear_damping=0.0,
            angular_damping=0.0,
            release_frame=release,
            velocity=vel,
            margin=0.001,  # sharp edges: Blender's default 4 cm margin rounds a cube's corners into its neighbours
        )
        ob = scene.add(
            f"object{k}",
            o.shape,
            (o.size,) * 3,
            (o.start[0], o.start[1], o.size / 2),
            role="object",
            color=COLORS[o.color],
            body=body,
        )
        ob.position[:, :2] = o.start + np.outer(np.minimum(t, release / scene.fps), o.velocity)
    simulate(scene, substeps=20)
    scene.look(p.camera.eye, p.camera.look_at, fov_deg=p.camera.fov)
    a = analyse(scene, p)
    if (a.collisions != []) != (condition == "collision"):
        raise Infeasible(
            f"predict: the simulation shows {'a' if a.collisions else 'no'} collision in a {condition} trial",
            ("offset", "miss", "layout_seed"),
        )


def analyse(scene, p) -> Analysis:
    """The ground truth of a built scene, from its simulated tracks (and the plan, for the cut's reference)."""
    duration = scene.n_frames / scene.fps
    bodies, event = layout(p, duration)
    objects = [scene[f"object{k}"] for k in range(len(bodies))]
    found = truth.collisions(objects, scene.fps)
    if found:
        event = found[0].frame / scene.fps
    cut = cut_time(p, event)
    cut_frame = min(int(np.floor(cut * scene.fps)), scene.n_frames - 1)
    if found and cut_frame >= found[0].frame:
        raise Infeasible("predict: the cut falls on the first collision", ("cut", "seconds", "fps"))
    return Analysis(
        {f"object{k}": b.label for k, b in enumerate(bodies)}, found, int(round(event * scene.fps)), cut_frame
    )


def describe(scene, p, condition):
    a = analyse(scene, p)
    names = ", ".join(f"a {label}" for label in a.labels.values())
    hits = "; ".join(
        f"the {a.labels[c.a]} and the {a.labels[c.b]} collide at {c.frame / scene.fps:.1f} s" for c in a.collisions
    )
    return f"On a smooth floor {names} slide in straight lines. " + (
        f"After the cut at {a.cut_frame / scene.fps:.1f} s, {hits}." if hits else "No two of them ever touch."
    )
