"""The audit of a graded violation's size (issue 24): measured from the ground truth of the violated video and its
plausible twin, the size must equal the level the record declares.

Each graded test names, in its `Level` leaf, the *measure* that reads its size from the states; the measures are
here, keyed by name, so the audit never imports a scene. Every measure compares the violated video with its
plausible twin (they are identical before the onset, so what differs is the violation) and returns the size in
the test's unit:

- `displacement` (m): the largest distance between the object's positions in the two videos over the record's
  window (a teleport's jump, a lift over a gap, a slide along a rail);
- `direction` (deg): the angle between the two videos' directions of travel just after the onset (a bounce at the
  wrong angle, a deflection);
- `speed_ratio` (x): the object's speed in the violated video over its speed in the twin just after the onset;
- `hold_time` (s): how long the object stands still where its twin moves (a hover);
- `absence_time` (s): how long the object is invisible where its twin is visible (a disappearance);
- `color_distance` (linear RGB, Euclidean): the largest colour difference of the object between the videos;
- `size_ratio` (x): the object's largest dimension after the violation over before (a growth or shrink, written
  as a swap to a replacement object);
- `window_time` (s): the length of the record's window, for violations whose size is a duration the states show
  only as the window itself (kept last resort: the record and the states come from the same edit).
- `speed_loss` (x): 1 - the object's speed at the onset in the violated video over the twin's (a collision that
  passes on only part of the speed), each read from the object's first step (from the frame before the record's
  window to its first frame) as its displacement plus 2/5 of its radius times its turn: a solid ball sliding or
  rolling on a floor keeps v + 2/5 r w (friction trades speed for spin), so the reading is unbiased by friction;
- `overhang` (m): how far the object's centre lies, horizontally, beyond the edge of the top face it rests on at
  the record's last frame (a box pushed past the point where it would tip): the support is the box whose top is
  level with the object's bottom (both upright; the support may be turned about the vertical), the nearest one;
  read from the violated video alone (its twin's object rests on the top, at 0);
- `end_offset` (m): the distance between the object's positions in the two videos at the record's last frame
  (where the twin's object has come to rest: a ball hovering this far above where it should lie);
- `extra_turn` (deg): how much farther an object turns from its first frame's orientation, at the most, in the
  violated video than in the twin, the largest over the video's objects (a plank swinging on through the place
  of an object that should have stopped it; the object the record names need not be the one that turns);
- `float_time` (s): how long, from the record's first frame, the object moves on at its height at that frame
  while its twin is lower (a ball floating on past an edge before it falls).
- `mass_dex` (dex): how far the mass ratio a collision shows is off the twin's, |log10 r - log10 r_twin|, with
  r = -dv_b / dv_a (= m_a / m_b where the pair's x momentum is kept: a frictionless floor), dv the change of an
  object's x step per frame from the frame before the record's window to the last frame; a is the record's
  object, b the one other free object of its role;
- `hue_turn` (deg): the largest angle between the object's hues in the two videos (colours read as sRGB, hue on
  the HSV circle, 0-180 deg; a colour change that keeps saturation and value);
- `rest_offset` (m): the distance between the object's positions in the two videos at the video's last frame,
  where both have come to rest (a ball that ends further along than its twin, past or inside a barrier);

A measure that cannot read its size (the object does not move after the onset, say) returns None, which fails
the check with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from voebench.generator.audit.findings import Finding
from voebench.generator.geometry import quat_to_matrix

if TYPE_CHECKING:
    from voebench.generator.audit.video import Video

#: frames after the onset over which a direction or speed is read (a chord, robust to one frame's noise)
AFTER = 5
#: relative tolerance every level gets on top of its leaf's absolute one
REL_TOL = 0.02

Measure = Callable[["Video", "Video", dict], "float | None"]


def _window(v: Video, rec: dict) -> slice:
    return slice(int(rec["first_frame"]), int(rec["last_frame"]) + 1)


def displacement(v: Video, twin: Video, rec: dict) -> float | None:
    name = rec["object"]
    w = _window(v, rec)
    if name not in twin.tracks:
        return None
    d = np.linalg.norm(v.tracks[name].position[w] - twin.tracks[name].position[w], axis=1)
    return float(d.max()) if len(d) else None


def _chord(v: Video, name: str, first: int) -> np.ndarray | None:
    """The object's mean velocity over up to AFTER frames from `first` (m/s), or None if it does not move."""
    pos = v.tracks[name].position
    last = min(first + AFTER, len(pos) - 1)
    if last <= first:
        return None
    vel = (pos[last] - pos[first]) * v.fps / (last - first)
    return vel if np.linalg.norm(vel) > 1e-6 else None


def direction(v: Video, twin: Video, rec: dict) -> float | None:
    name, first = rec["object"], int(rec["first_frame"])
    a, b = _chord(v, name, first), _chord(twin, name, first)
    if a is None or b is None:
        return None
    cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def speed_ratio(v: Video, twin: Video, rec: dict) -> float | None:
    name, first = rec["object"], int(rec["first_frame"])
    a, b = _chord(v, name, first), _chord(twin, name, first)
    if a is None or b is None:
        return None
    return float(np.linalg.norm(a) / np.linalg.norm(b))


def hold_time(v: Video, twin: Video, rec: dict) -> float | None:
    name = rec["object"]
    p, q = v.tracks[name].position, twin.tracks[name].position
    still = np.linalg.norm(np.diff(p, axis=0), axis=1) < 1e-9
    moving = np.linalg.norm(np.diff(q, axis=0), axis=1) > 1e-9
    return float(np.count_nonzero(still & moving) / v.fps)


def absence_time(v: Video, twin: Video, rec: dict) -> float | None:
    name = rec["object"]
    gone = ~v.tracks[name].visible & twin.tracks[name].visible
    return float(np.count_nonzero(gone) / v.fps)


def color_distance(v: Video, twin: Video, rec: dict) -> float | None:
    name = rec["object"]
    d = np.linalg.norm(v.tracks[name].color - twin.tracks[name].color, axis=1)
    return float(d.max())


def size_ratio(v: Video, twin: Video, rec: dict) -> float | None:
    """The largest dimension of what stands in the object's place after the window over the object's own."""
    name, last = rec["object"], int(rec["last_frame"])
    own = v.tracks[name]
    if last >= v.n_frames:
        return None
    first = int(rec["first_frame"])
    after = [t for t in v.tracks.values() if t.visible[last] and t.name != name and not t.visible[:first].any()]
    if own.visible[last] or len(after) != 1:
        return None
    return float(np.max(after[0].shape.dims) / np.max(own.shape.dims))


def window_time(v: Video, twin: Video, rec: dict) -> float | None:
    return float((int(rec["last_frame"]) - int(rec["first_frame"]) + 1) / v.fps)


def _first_step(v: Video, name: str, first: int) -> float:
    """An object's displacement from frame first-1 to first, plus 2/5 of its radius times its turn if a sphere."""
    t = v.tracks[name]
    step = float(np.linalg.norm(t.position[first] - t.position[first - 1]))
    if t.shape.kind != "sphere":
        return step
    q0, q1 = (q / np.linalg.norm(q) for q in (t.quaternion[first - 1], t.quaternion[first]))
    turn = 2.0 * np.arccos(np.clip(abs(float(np.dot(q0, q1))), 0.0, 1.0))
    return step + 0.4 * float(np.max(t.shape.dims)) / 2 * turn


def speed_loss(v: Video, twin: Video, rec: dict) -> float | None:
    """1 - the object's first step over its twin's (None where the twin's does not move)."""
    name, first = rec["object"], int(rec["first_frame"])
    if first < 1 or name not in twin.tracks:
        return None
    theirs = _first_step(twin, name, first)
    return float(1.0 - _first_step(v, name, first) / theirs) if theirs > 1e-9 else None


def overhang(v: Video, twin: Video, rec: dict) -> float | None:
    """Distance beyond the support's edge at the last frame (the twin is not needed: its box rests on the top)."""
    name, last = rec["object"], int(rec["last_frame"])
    obj = v.tracks[name]
    centre = obj.position[last]
    bottom = centre[2] - obj.shape.dims[2] / 2
    beyond = []
    for t in v.tracks.values():
        if t.name == name or t.shape.kind != "box" or abs(t.position[last, 2] + t.shape.dims[2] / 2 - bottom) > 1e-3:
            continue
        q = t.quaternion[last] / np.linalg.norm(t.quaternion[last])
        local = quat_to_matrix(q).T @ (centre - t.position[last])
        out = np.maximum(np.abs(local[:2]) - t.shape.dims[:2] / 2, 0.0)
        beyond.append(float(np.hypot(*out)))
    return min(beyond) if beyond else None


def end_offset(v: Video, twin: Video, rec: dict) -> float | None:
    """Distance between the object's positions in the two videos at the record's last frame."""
    name, last = rec["object"], int(rec["last_frame"])
    if name not in twin.tracks or last >= v.n_frames:
        return None
    return float(np.linalg.norm(v.tracks[name].position[last] - twin.tracks[name].position[last]))


def _peak_turn(quaternion: np.ndarray) -> float:
    """The largest angle (deg) between a track's orientation and its first frame's."""
    q = quaternion / np.linalg.norm(quaternion, axis=1, keepdims=True)
    dots = np.abs(q @ q[0])
    return float(np.degrees(2.0 * np.arccos(np.clip(dots, -1.0, 1.0))).max())


def extra_turn(v: Video, twin: Video, rec: dict) -> float | None:
    """The largest excess, over the objects of both videos, of the violated video's peak turn over the twin's."""
    names = [n for n in v.tracks if n in twin.tracks]
    excess = [_peak_turn(v.tracks[n].quaternion) - _peak_turn(twin.tracks[n].quaternion) for n in names]
    return max(excess) if excess else None


def float_time(v: Video, twin: Video, rec: dict) -> float | None:
    """Frames from the record's first on where the object stays at that frame's height and moves to the next
    frame while its twin is lower, over the frame rate."""
    name, first = rec["object"], int(rec["first_frame"])
    if name not in twin.tracks:
        return None
    p, q = v.tracks[name].position[first:], twin.tracks[name].position[first:]
    level = np.abs(p[:-1, 2] - p[0, 2]) < 1e-9
    moving = np.linalg.norm(np.diff(p, axis=0), axis=1) > 1e-9
    below = q[:-1, 2] < p[:-1, 2] - 1e-9
    return float(np.count_nonzero(level & moving & below) / v.fps)


def _shown_mass_ratio(v: Video, a: str, b: str, first: int) -> float | None:
    """log10(m_a / m_b) as the collision shows it: -dv_b / dv_a of the x step per frame (None: no change)."""

    def change(name: str) -> float:
        x = v.tracks[name].position[:, 0]
        return float((x[-1] - x[-2]) - (x[first - 1] - x[first - 2]))

    da, db = change(a), change(b)
    if abs(da) < 1e-9 or abs(db) < 1e-9 or da * db > 0:
        return None
    return float(np.log10(-db / da))


def mass_dex(v: Video, twin: Video, rec: dict) -> float | None:
    """|log10 of the shown mass ratio - the twin's| (None: not two colliding objects, or no change shown)."""
    name, first = rec["object"], int(rec["first_frame"])
    own = v.tracks.get(name)
    if own is None or first < 2 or first >= v.n_frames - 1:
        return None
    others = [t.name for t in v.tracks.values() if t.name != name and t.role == own.role and t.free]
    if len(others) != 1 or any(n not in twin.tracks for n in (name, *others)):
        return None
    mine, theirs = _shown_mass_ratio(v, name, others[0], first), _shown_mass_ratio(twin, name, others[0], first)
    return None if mine is None or theirs is None else abs(mine - theirs)


def _hue(linear: np.ndarray) -> np.ndarray:
    """Hue (deg, 0-360) of linear-RGB colours (N, 3), read as sRGB like the scenes draw them (HSV)."""
    c = np.clip(linear, 0.0, 1.0)
    rgb = np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055)
    mx, mn = rgb.max(axis=1), rgb.min(axis=1)
    span = np.where(mx - mn > 1e-12, mx - mn, 1.0)
    r, g, b = rgb[:, 0], rgb[:, 1], rgb[:, 2]
    h = np.where(mx == r, (g - b) / span, np.where(mx == g, 2.0 + (b - r) / span, 4.0 + (r - g) / span))
    return np.where(mx - mn > 1e-12, (60.0 * h) % 360.0, np.nan)


def hue_turn(v: Video, twin: Video, rec: dict) -> float | None:
    """The largest hue difference (deg, on the circle) of the object between the videos (None: a grey)."""
    name = rec["object"]
    if name not in twin.tracks:
        return None
    d = np.abs(_hue(v.tracks[name].color) - _hue(twin.tracks[name].color))
    d = np.minimum(d, 360.0 - d)
    return None if np.isnan(d).any() else float(d.max())


def rest_offset(v: Video, twin: Video, rec: dict) -> float | None:
    """Distance between the object's positions in the two videos at the last frame."""
    name = rec["object"]
    if name not in twin.tracks:
        return None
    return float(np.linalg.norm(v.tracks[name].position[-1] - twin.tracks[name].position[-1]))


MEASURES: dict[str, Measure] = {
    "displacement": displacement,
    "direction": direction,
    "speed_ratio": speed_ratio,
    "hold_time": hold_time,
    "absence_time": absence_time,
    "color_distance": color_distance,
    "size_ratio": size_ratio,
    "window_time": window_time,
    "overhang": overhang,
    "speed_loss": speed_loss,
    "hue_turn": hue_turn,
    "rest_offset": rest_offset,
    "mass_dex": mass_dex,
    "end_offset": end_offset,
    "extra_turn": extra_turn,
    "float_time": float_time,
}


def check_level(v: Video, twin: Video | None) -> list[Finding]:
    """`violation_level`: the size measured from the states equals the declared level, within the leaf's
    tolerance or REL_TOL of the level, whichever is larger."""
    rec = v.violation
    if rec is None or rec.get("level") is None:
        return []
    level, measure = float(rec["level"]), str(rec.get("measure", ""))
    name = str(rec.get("object"))
    if measure not in MEASURES:
        return [Finding("violation_level", name, [], f"unknown measure {measure!r} for a level {level:g}")]
    if twin is None:
        return []  # the caller reports the check as skipped
    got = MEASURES[measure](v, twin, rec)
    unit = rec.get("unit", "")
    if got is None:
        why = f"{measure} cannot be read from the states (declared {level:g} {unit})"
        return [Finding("violation_level", name, [], why)]
    tol = max(float(rec.get("tol", 0.0)), REL_TOL * abs(level))
    if abs(got - level) > tol:
        return [
            Finding(
                "violation_level",
                name,
                [],
                f"declared level {level:g} {unit}, measured {got:.4g} {unit} by {measure} (tolerance {tol:.3g})",
            )
        ]
    return []
