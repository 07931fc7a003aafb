"""Collision ground truth read off simulated states: which pairs of objects touch, and when.

Bullet moves the objects; this module only looks at the tracks it produced, the same way the audit does
(`generator.contacts.pair_geometry`: the signed gap between two solids per frame). Collisions happen between
frames, so a pair counts as colliding at frame t when, at t or a neighbouring frame, (a) the gap between them is
within the distance both moved in that frame plus a contact tolerance and (b) both change velocity there. On a
frictionless floor a body's velocity changes only when something hits it, so (b) tells a hit from a close pass.
Anything in between (a close pass with no change, or a change no pair explains) is ambiguous and raises
`Infeasible`, so the generation gate redraws the trial rather than writing a doubtful answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voebench.errors import Infeasible
from voebench.generator.contacts import pair_geometry
from voebench.generator.solids import Shape, Track

TOUCH_TOL = 0.01  # m: surfaces this close (beyond the motion within a frame) touch
DV_EVENT = 0.05  # m/s: a velocity change above this is a hit (frictionless sliding keeps it ~1e-4 m/s)
NEAR_MISS = 0.05  # m: a pass closer than this (beyond the frame's motion) without a hit is too close to call


@dataclass(frozen=True)
class Collision:
    a: str
    b: str
    frame: int


@dataclass
class Analysis:
    """A built scene's ground truth (collisions.analyse), what the manifest's `prediction` is written from."""

    labels: dict[str, str]  # object name -> "red cube"
    collisions: list[Collision]  # in frame order
    event_frame: int  # the first contact (or the near miss's closest approach)
    cut_frame: int  # the last frame a model sees


def _track(o) -> Track:
    return Track(
        o.name,
        o.role,
        Shape(o.shape, o.dimensions),
        True,
        o.position,
        o.quaternion,
        o.color,
        o.visible,
        np.full(o.n_frames, -1),
    )


def velocity_events(position: np.ndarray, fps: float) -> np.ndarray:
    """(T,) True at frames where the velocity into the frame and out of it differ by more than DV_EVENT."""
    v = np.diff(position, axis=0) * fps  # (T-1,3): v[t] from frame t to t+1
    out = np.zeros(len(position), bool)
    if len(v) >= 2:
        out[1:-1] = np.linalg.norm(np.diff(v, axis=0), axis=1) > DV_EVENT
    return out


def _near(mask: np.ndarray, t: int, reach: int = 1) -> bool:
    return bool(mask[max(0, t - reach) : t + reach + 1].any())


def collisions(objects: list, fps: float) -> list[Collision]:
    """Every pair of `objects` (SceneObjects) that collides, at its first contact frame, in frame order."""
    tracks = [_track(o) for o in objects]
    events = {tr.name: velocity_events(tr.position, fps) for tr in tracks}
    steps = {tr.name: np.r_[0.0, np.linalg.norm(np.diff(tr.position, axis=0), axis=1)] for tr in tracks}
    explained = {tr.name: np.zeros(len(tr.position), bool) for tr in tracks}
    found = []
    T = len(tracks[0].position)
    for i, a in enumerate(tracks):
        for b in tracks[i + 1 :]:
            gap = pair_geometry(a, b, np.arange(T)).gap
            # the farthest two surfaces can be apart at a frame and still have touched between it and a neighbour
            move = steps[a.name] + steps[b.name]
            reach = np.maximum(move, np.r_[move[1:], 0.0]) + TOUCH_TOL
            touch = np.flatnonzero(gap <= reach)
            hits = [t for t in touch if _near(events[a.name], int(t)) and _near(events[b.name], int(t))]
            if hits:
                found.append(Collision(a.name, b.name, int(hits[0])))
                for t in hits:
                    explained[a.name][max(0, t - 1) : t + 2] = True
                    explained[b.name][max(0, t - 1) : t + 2] = True
            elif np.any(gap <= reach + NEAR_MISS):
                t = int(np.argmin(gap - reach))
                raise Infeasible(
                    f"predict: {a.name} and {b.name} pass {max(gap[t], 0.0) * 100:.0f} cm apart at frame {t} "
                    "without a hit: too close to call",
                    ("layout_seed", "miss"),
                )
    for name, ev in events.items():
        odd = np.flatnonzero(ev & ~explained[name])
        if len(odd):
            raise Infeasible(
                f"predict: {name} changes velocity at frame {int(odd[0])} with no object touching it",
                ("layout_seed", "speed"),
            )
    return sorted(found, key=lambda c: (c.frame, c.a, c.b))
