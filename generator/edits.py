"""Violation edits: the one change that turns a plausible timeline into an implausible one.

Each edit changes an object's track over a frame window and records a `Violation` on the scene, so the HDF5
`violation` record is the edit itself and cannot disagree with the pixels. Scene scripts call exactly one
of these for their implausible condition (or build the implausible motion and call `record`).

`hidden` is a bool, or a callable `hidden(first, last)` asked once the arrays are changed (whether the edit is
hidden depends on where the edit puts the object, and the caller knows which frames and blockers count)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np

from voebench.generator.physics import simulate
from voebench.generator.scene import Scene, Violation

Hidden = bool | Callable[[int, int], bool]


def _hidden(hidden: Hidden, first: int, last: int) -> bool:
    return bool(hidden(first, last)) if callable(hidden) else bool(hidden)


def record(scene: Scene, principles, kind: str, obj: str, first: int, last: int, hidden: Hidden = False) -> Violation:
    """Record a violation the script built itself (a whole implausible motion computed alongside the plausible
    one); the edits below change the arrays and then call this."""
    scene.violation = Violation(list(principles), kind, obj, int(first), int(last), _hidden(hidden, first, last))
    return scene.violation


def grade(scene: Scene, level: float, key: str = "violation") -> Violation:
    """Record the size of the violation just made, in the unit of the space's `key` leaf (a `params.Level`):
    the generator adds the unit and how the audit measures it, and checks a swept level was honoured."""
    if scene.violation is None:
        raise RuntimeError("grade() comes after the edit that records the violation")
    scene.violation.level = float(level)
    scene.violation.level_key = key
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


def swap(
    scene: Scene, obj: str, replacement: str, frame: int, principles, kind: str = "reshape", hidden: bool = False
) -> Violation:
    """From `frame` on, `obj` is replaced by `replacement` (an object in the scene that was invisible until then,
    e.g. the same object in another shape): unchangeableness."""
    scene[obj].visible[frame:] = False
    scene[replacement].visible[frame:] = True
    return record(scene, principles, kind, obj, frame - 1, frame, hidden)


def repose(scene: Scene, obj: str, frame: int, position, quaternion, principles, hidden: bool = False) -> Violation:
    """From `frame` on, the object stands at a new pose (a resting object moved to another place in one frame)."""
    o = scene[obj]
    o.position[frame:], o.quaternion[frame:] = position, quaternion
    return record(scene, principles, "teleport", obj, frame - 1, frame, hidden)


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
    hidden: Hidden = False,
    last: int | None = None,
) -> Violation:
    """Replace the object's track from `first` on with an explicit one (for violations that are a whole
    different motion, e.g. rolling up an incline). The record's window ends at `last` (default: the last
    frame), e.g. where the object comes to rest and the violation is no longer happening."""
    o = scene[obj]
    o.position[first:] = position
    if quaternion is not None:
        o.quaternion[first:] = quaternion
    return record(scene, principles, kind, obj, first, o.n_frames - 1 if last is None else last, hidden)


def shift(
    scene: Scene, obj: str, first: int, last: int, offset, principles, kind: str = "teleport", hidden: Hidden = False
) -> Violation:
    """The object is displaced by `offset` from `first` to `last` (inclusive) and back after (e.g. lifted over a
    gap while behind a screen). Only the axes the offset moves are written, so the others keep their bytes."""
    o = scene[obj]
    for axis, d in enumerate(np.asarray(offset, float)):
        if d != 0.0:
            o.position[first : last + 1, axis] += d
    return record(scene, principles, kind, obj, first, last, hidden)


# ----------------------------------------------------------------------------------------------- twins
# A violation that is "what would have happened had the world been different": simulate a copy of the scene
# with one thing changed (a collider gone, a mass changed), and from the first frame where the copy moves
# differently the real scene's object follows the copy's track.


def simulate_twin(scene: Scene, change: Callable[[Scene], None], substeps: int = 10) -> Scene:
    """Simulate a copy of `scene` after `change(copy)` alters its bodies (e.g. a collider removed, a mass
    changed); returns the simulated copy. The real scene keeps its objects and only takes over tracks."""
    twin = copy.deepcopy(scene)
    change(twin)
    simulate(twin, substeps=substeps)
    return twin


def first_divergence(a: np.ndarray, b: np.ndarray, tol: float = 1e-4) -> int | None:
    """First frame where two (T, k) tracks differ by more than tol, or None."""
    d = np.abs(np.asarray(a) - np.asarray(b)).reshape(len(a), -1).max(axis=1)
    idx = np.nonzero(d > tol)[0]
    return int(idx[0]) if len(idx) else None


def twin_divergence(
    scene: Scene, twin: Scene, names: Sequence[str], tol: float = 1e-3, rotation: bool = True
) -> int | None:
    """First frame at which any of `names` is more than `tol` away in `twin` from where it is in `scene`
    (position, and quaternion unless `rotation` is False), or None if they agree to the end."""

    def tracks(s: Scene) -> np.ndarray:
        return np.concatenate(
            [np.c_[s[n].position, s[n].quaternion] if rotation else s[n].position for n in names], axis=1
        )

    return first_divergence(tracks(scene), tracks(twin), tol=tol)


def follow_twin(
    scene: Scene,
    twin: Scene,
    names: Sequence[str],
    first: int,
    principles,
    kind: str,
    obj: str,
    hidden: Hidden = False,
    hold: str | None = None,
) -> Violation:
    """From `first` on, each of `names` takes its track (position and rotation) from `twin`; `hold` (one of
    them, or None) then stays at its pose at `first`. Records `obj`'s violation over `first` .. the last frame."""
    for n in names:
        scene[n].position[first:] = twin[n].position[first:]
        scene[n].quaternion[first:] = twin[n].quaternion[first:]
    if hold is not None:
        scene[hold].hold(first)
    last = scene.n_frames - 1
    return record(scene, principles, kind, obj, first, last, hidden)


def diverge_hidden(
    scene: Scene,
    twin: Scene,
    principles,
    kind: str,
    obj: str,
    never: Exception,
    hidden: Hidden = False,
    tol: float = 1e-3,
) -> Violation:
    """The whole twin sequence for one object: find the first frame where `twin` moves `obj` differently,
    make `obj` follow the twin from there, ask `hidden(first, last)` on the changed scene and record the
    violation. Raises `never` when the twin never diverges within the video (nothing would be violated)."""
    first = twin_divergence(scene, twin, (obj,), tol=tol)
    if first is None:
        raise never
    return follow_twin(scene, twin, (obj,), first, principles, kind, obj, hidden=hidden)
