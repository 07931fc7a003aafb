"""Violation edits: the one change that turns a plausible timeline into an implausible one.

Each edit changes an object's track over a frame window and records a `Violation` on the scene, so the HDF5
`violation` record is the edit itself and cannot disagree with the pixels. Scene scripts call exactly one
of these for their implausible condition (or build the implausible motion and call `record`)."""

from __future__ import annotations

import numpy as np

from voebench.generator.scene import Scene, Violation


def record(scene: Scene, principles, kind: str, obj: str, first: int, last: int, hidden: bool = False) -> Violation:
    scene.violation = Violation(list(principles), kind, obj, int(first), int(last), bool(hidden))
    return scene.violation


def teleport(
    scene: Scene, obj: str, frame: int, new_position, principles, hidden: bool = False, until: int | None = None
) -> Violation:
    """From `frame` on (to `until`, exclusive), the object is displaced so that it is at `new_position` at
    `frame` and keeps moving as before relative to it (continuity/permanence violations)."""
    o = scene[obj]
    end = o.n_frames if until is None else until
    o.position[frame:end] += np.asarray(new_position, float) - o.position[frame]
    return record(scene, principles, "teleport", obj, max(frame - 1, 0), frame, hidden)


def recolor(scene: Scene, obj: str, frame: int, color, principles, hidden: bool = False) -> Violation:
    """The object's colour changes at `frame` (unchangeableness)."""
    scene[obj].color[frame:] = np.asarray(color, np.float32)
    return record(scene, principles, "recolor", obj, frame, frame, hidden)


def vanish(scene: Scene, obj: str, first: int, last: int | None, principles, hidden: bool = False) -> Violation:
    """The object stops existing from `first` to `last` (inclusive; None = to the end)."""
    end = scene.n_frames if last is None else last + 1
    scene[obj].visible[first:end] = False
    return record(scene, principles, "vanish", obj, first, end - 1, hidden)


def freeze(scene: Scene, obj: str, frame: int, principles, until: int | None = None, hidden: bool = False) -> Violation:
    """The object stops dead at `frame` and stays (e.g. hovering in mid-air: gravity)."""
    o = scene[obj]
    o.hold(frame, until)
    end = o.n_frames - 1 if until is None else until - 1
    return record(scene, principles, "freeze", obj, frame, end, hidden)


def replace_track(
    scene: Scene,
    obj: str,
    first: int,
    position,
    quaternion=None,
    principles=(),
    kind="trajectory",
    hidden: bool = False,
) -> Violation:
    """Replace the object's track from `first` on with an explicit one (for violations that are a whole
    different motion, e.g. rolling up an incline)."""
    o = scene[obj]
    o.position[first:] = position
    if quaternion is not None:
        o.quaternion[first:] = quaternion
    return record(scene, principles, kind, obj, first, o.n_frames - 1, hidden)
