"""The physics checks of one video, on every object and frame: no interpenetration, no teleport, no velocity
jump (every change of velocity is a push from a contact, or the object's launch), falls when unsupported,
rests only when supported, constant colour and existence. Each returns `Finding`s; `physics_findings` runs
them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from voebench.generator.contacts import contact_points, frame_steps
from voebench.generator.audit.findings import Finding, fmt_frames, frame_list
from voebench.generator.solids import Track
from voebench.generator.geometry import GRAVITY
from voebench.generator.audit.tolerances import (
    COLOR_TOL,
    CONTACT_CONE_DEG,
    CONTACT_TOL,
    FREE_ACC_TOL,
    FRICTION_SPEEDUP_TOL,
    IMPACT_ACC,
    IMPACT_SLACK,
    MAX_SPEED,
    PENETRATION_TOL,
    REST_FRAMES,
    REST_SPEED,
    SLIDING,
    SUPPORT_MARGIN,
    SUPPORT_NORMAL_Z,
)

if TYPE_CHECKING:
    from voebench.generator.audit.video import Video


def relative_motion(a: Track, b: Track) -> np.ndarray:
    """(T,) whether a moves relative to b between frame t-1 and t or t and t+1."""
    key = np.c_[a.position - b.position, a.quaternion, b.quaternion]
    change = np.abs(np.diff(key, axis=0)).max(axis=1) > 1e-9
    out = np.zeros(len(key), bool)
    out[1:] |= change
    out[:-1] |= change
    return out


def check_no_interpenetration(v: Video) -> list[Finding]:
    """No two solids overlap by more than PENETRATION_TOL (plus IMPACT_SLACK of their motion in that frame).
    Fixtures may be built into each other (tray walls meet at corners, a plank's ends tuck into the walls) and
    mounted on each other (a strip swinging on its rod, a screen in its slot), so a pair of fixtures is
    flagged only if they start apart and one then moves into the other (a screen sinking into the ground).
    Mesh objects (containers, mugs) have no stored geometry and are skipped."""
    out = []
    names = list(v.tracks)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            a, b = first, second
            ta, tb = v.tracks[a], v.tracks[b]
            if not (ta.shape.known and tb.shape.known):
                continue
            if not (ta.free or tb.free or ta.moves or tb.moves):
                continue
            if not ta.free and tb.free:
                a, b, ta, tb = b, a, tb, ta  # report the free object first
            g = v.geometry(a, b)
            bad = g.gap < -(PENETRATION_TOL + IMPACT_SLACK * (frame_steps(ta, 2) + frame_steps(tb, 2)))
            if not (ta.free or tb.free):  # fixtures may be built into each other, but not move through each other
                both = np.flatnonzero(ta.visible & tb.visible)
                if len(both) and np.isfinite(g.gap[both[0]]) and g.gap[both[0]] <= CONTACT_TOL:
                    continue  # joined from the start: a hinge, a slide in its slot
                bad &= relative_motion(ta, tb)
            if bad.any():
                frames = frame_list(bad)
                out.append(
                    Finding(
                        "no_interpenetration",
                        a,
                        frames,
                        f"{a} and {b} overlap by up to {-np.nanmin(g.gap[bad]) * 1000:.0f} mm "
                        f"(frames {fmt_frames(frames)})",
                        other=b,
                    )
                )
    return out


def check_no_teleport(v: Video) -> list[Finding]:
    """Every object moves at most MAX_SPEED / fps per frame while it exists."""
    out = []
    for name, tr in v.tracks.items():
        both = tr.visible[:-1] & tr.visible[1:]
        speed = np.linalg.norm(v.velocity(name), axis=1)
        bad = both & (speed > MAX_SPEED)
        if bad.any():
            frames = frame_list(bad)
            out.append(
                Finding(
                    "no_teleport",
                    name,
                    [f + 1 for f in frames],
                    f"{name} jumps {speed[bad].max() / v.fps:.2f} m in one frame "
                    f"({speed[bad].max():.1f} m/s > {MAX_SPEED}) at frames {fmt_frames([f + 1 for f in frames])}",
                )
            )
    return out


@dataclass
class Motion:
    """Per frame t (1..T-2) of a free object: the acceleration not explained by gravity, and the contacts
    that could explain it."""

    excess: np.ndarray  # (T,3) a - g, NaN where undefined
    v_before: np.ndarray  # (T,) speed from t-1 to t
    v_after: np.ndarray  # (T,) speed from t to t+1
    defined: np.ndarray  # (T,) bool: visible at t-1, t, t+1
    contacts: list  # per frame: list of (normal (3,) or None if unknown, other name)
    first_motion: int | None  # first frame at which the object moves (None: never)


def motion(v: Video, name: str) -> Motion:
    tr = v.tracks[name]
    T = v.n_frames
    vel = v.velocity(name)
    speed = np.linalg.norm(vel, axis=1)
    excess = np.full((T, 3), np.nan)
    v_before, v_after = np.full(T, np.nan), np.full(T, np.nan)
    defined = np.zeros(T, bool)
    if T >= 3:
        excess[1:-1] = (vel[1:] - vel[:-1]) * v.fps - GRAVITY
        v_before[1:-1], v_after[1:-1] = speed[:-1], speed[1:]
        defined[1:-1] = tr.visible[:-2] & tr.visible[1:-1] & tr.visible[2:]
    contacts: list[list[tuple[np.ndarray | None, str]]] = [[] for _ in range(T)]
    step = frame_steps(tr)
    for other in v.others(name):
        g = v.geometry(name, other)
        ok = np.flatnonzero(np.isfinite(g.gap))
        reach = CONTACT_TOL + step + frame_steps(v.tracks[other])  # contacts between frames count
        for t in ok:
            if g.gap[t] <= reach[t]:
                n = g.normal[t] if g.known else None
                for tt in (t - 1, t, t + 1):  # a contact at t can act on the accelerations at t-1..t+1
                    if 0 <= tt < T:
                        contacts[tt].append((n, other))
    moving = np.flatnonzero(tr.visible[:-1] & tr.visible[1:] & (speed > REST_SPEED))
    return Motion(excess, v_before, v_after, defined, contacts, int(moving[0]) if len(moving) else None)


def _held(m: Motion, t: int) -> bool:
    """Before its first motion an object may be held still (as by a hand the audit cannot see), but only if it
    does move later: an object that never moves must be supported throughout."""
    return m.first_motion is not None and t <= m.first_motion


def check_acceleration(v: Video, name: str, m: Motion) -> list[Finding]:
    """falls_when_unsupported: with nothing within reach, an object accelerates at g (within FREE_ACC_TOL).
    no_velocity_jump: any other acceleration must be a push from something it touches (within CONTACT_CONE_DEG
    of that contact's normal, and, for a body that slides without turning, not speeding it up along the surface:
    friction only resists sliding), or
    the object's first launch from rest (scenes start motion with an initial
    velocity, as the originals do; starting again later, with nothing pushing, is self-propulsion)."""
    cos_cone = np.cos(np.radians(CONTACT_CONE_DEG))
    unsupported, jumps = [], []
    q = v.tracks[name].quaternion
    dq = np.abs(np.diff(q, axis=0)).max(axis=1) > 1e-6 if len(q) > 1 else np.zeros(0, bool)
    turning = np.r_[False, dq] | np.r_[dq, False]  # rotating between t-1 and t or t and t+1
    mid = {}  # name -> (T,3) velocity around frame t

    def around(n):
        if n not in mid:
            vel = v.velocity(n)
            mv = np.zeros((v.n_frames, 3))
            if len(vel):
                mv[1:-1] = (vel[:-1] + vel[1:]) / 2 if len(vel) > 1 else 0.0
            mid[n] = mv
        return mid[n]

    def explains(n, other, t, e, u, contacts):
        """Can the contact with `other` (normal n) give the push e? Within the cone of its normal, and, as
        friction only resists sliding, its tangential part must not speed the object up relative to `other`."""
        if n is None:
            return True
        if float(np.dot(n, u)) < cos_cone:
            return False
        rel = around(name)[t] - around(other)[t]
        speed = np.linalg.norm(rel)
        if (
            speed <= REST_SPEED
            or float(np.dot(e, n)) > IMPACT_ACC
            or abs(float(np.dot(rel, n))) > SLIDING * speed
            or turning[t]
        ):
            return True  # at rest, an impact, not sliding along, or spinning (spin can drive a body forward)
        tangential = e - np.dot(e, n) * n
        if float(np.dot(tangential, rel / speed)) <= FRICTION_SPEEDUP_TOL:
            return True
        # speeding up along this surface: only if something else it touches pushes it that way (a pin)
        return any(o != other and (n2 is None or float(np.dot(n2, rel / speed)) > 0.1) for n2, o in contacts)

    for t in np.flatnonzero(m.defined):
        e = m.excess[t]
        mag = np.linalg.norm(e)
        if mag <= FREE_ACC_TOL:
            continue
        launch = m.v_before[t] <= REST_SPEED and t == m.first_motion
        if not m.contacts[t]:
            if not (launch and m.v_after[t] > REST_SPEED) and not _held(m, t):
                unsupported.append(int(t))
            continue
        u = e / mag
        if any(explains(n, other, t, e, u, m.contacts[t]) for n, other in m.contacts[t]):
            continue
        if _combined_push(e, u, around(name)[t], m.contacts[t], cos_cone):
            continue
        if launch or _held(m, t):
            continue
        jumps.append(int(t))
    out = []
    if unsupported:
        a = np.linalg.norm(m.excess[unsupported] + GRAVITY, axis=1)
        out.append(
            Finding(
                "falls_when_unsupported",
                name,
                unsupported,
                f"{name} touches nothing but accelerates at {a.min():.1f}-{a.max():.1f} m/s^2 instead of "
                f"g (frames {fmt_frames(unsupported)})",
            )
        )
    if jumps:
        out.append(
            Finding(
                "no_velocity_jump",
                name,
                jumps,
                f"{name} changes velocity by up to {np.linalg.norm(m.excess[jumps], axis=1).max() / v.fps:.2f} "
                f"m/s in a frame with no contact pushing that way (frames {fmt_frames(jumps)})",
            )
        )
    return out


def _combined_push(e: np.ndarray, u: np.ndarray, vel: np.ndarray, contacts: list, cos_cone: float) -> bool:
    """Can several contacts together give the push e (direction u)? Their resultant is a non-negative
    combination of their normals: an object wedged between two door jambs is pushed straight back although
    each jamb pushes mostly sideways (AVoE E3). Accepted if u lies within CONTACT_CONE_DEG of the cone spanned
    by the normals (the angle to its projection on that cone, by non-negative least squares) and the push
    does not speed the object up (friction and passive contacts only resist motion; a self-propelled body
    sliding between walls stays caught)."""
    normals = [n for n, _ in contacts if n is not None and np.all(np.isfinite(n))]
    if len(normals) < 2:
        return False
    speed = float(np.linalg.norm(vel))
    if speed > REST_SPEED and float(np.dot(e, vel / speed)) > FRICTION_SPEEDUP_TOL:
        return False
    A = np.unique(np.round(np.array(normals), 6), axis=0).T  # (3, k)
    lam = np.full(A.shape[1], 1.0 / A.shape[1])
    step = 1.0 / max(float(np.linalg.norm(A, 2)) ** 2, 1e-12)
    for _ in range(300):  # projected gradient: min |A lam - u|, lam >= 0
        lam = np.maximum(lam - step * (A.T @ (A @ lam - u)), 0.0)
    r = A @ lam
    nr = float(np.linalg.norm(r))
    return nr > 1e-9 and float(np.dot(r, u)) / nr >= cos_cone


def check_resting_supported(v: Video, name: str, m: Motion) -> list[Finding]:
    """An object at rest for REST_FRAMES frames touches something below it (a contact whose normal points up by
    SUPPORT_NORMAL_Z) and its centre of mass lies over its contacts (the horizontal bounding box of all its
    contact points, plus SUPPORT_MARGIN; a wall it leans on counts, as a ball resting on a slope against a
    wall)."""
    tr = v.tracks[name]
    slow = np.linalg.norm(v.velocity(name), axis=1) <= REST_SPEED  # (T-1,) between t and t+1
    still = tr.visible.copy()
    still[:-1] &= slow
    still[1:] &= slow
    runs, start = [], None
    for t in range(v.n_frames + 1):
        if t < v.n_frames and still[t]:
            start = t if start is None else start
        elif start is not None:
            if t - start >= REST_FRAMES:
                runs.append((start, t))
            start = None
    bad = []
    cache = {}
    for s, e in runs:
        for t in range(s, e):
            if _held(m, t):
                continue
            key = (tr.position[t].tobytes(), tr.quaternion[t].tobytes())
            if key not in cache:
                cache[key] = _supported(v, name, t)
            if not cache[key]:
                bad.append(t)
    if not bad:
        return []
    return [
        Finding(
            "resting_supported",
            name,
            bad,
            f"{name} rests with nothing holding it up (or its centre of "
            f"mass over no contact) at frames {fmt_frames(bad)}",
        )
    ]


def _supported(v: Video, name: str, t: int) -> bool:
    tr = v.tracks[name]
    com = tr.position[t] + tr.rot[t] @ tr.shape.com
    found: list[np.ndarray] = []
    holds = False
    for other in v.others(name):
        ot = v.tracks[other]
        if not ot.visible[t]:
            continue
        g = v.geometry(name, other)
        if not np.isfinite(g.gap[t]) or g.gap[t] > CONTACT_TOL:
            continue
        if not (ot.shape.known and tr.shape.known):
            # a mesh's true surface is unknown: touching its bounding box counts as support (lenient)
            found.append(com[None])
            holds = True
            continue
        p, n = contact_points(tr, ot, t, CONTACT_TOL)
        found.append(p)
        holds = holds or bool((n[:, 2] >= SUPPORT_NORMAL_Z).any())
    pts = np.concatenate(found) if found else np.zeros((0, 3))
    if not len(pts) or not holds:
        return False
    margin = SUPPORT_MARGIN + tr.shape.facet
    lo, hi = pts[:, :2].min(axis=0) - margin, pts[:, :2].max(axis=0) + margin
    return bool(np.all(com[:2] >= lo) and np.all(com[:2] <= hi))


def check_color_constant(v: Video) -> list[Finding]:
    """No object changes colour."""
    out = []
    for name, tr in v.tracks.items():
        change = np.abs(np.diff(tr.color, axis=0)).max(axis=1) > COLOR_TOL
        if change.any():
            frames = [f + 1 for f in frame_list(change)]
            out.append(Finding("color_constant", name, frames, f"{name} changes colour at frames {fmt_frames(frames)}"))
    return out


def check_visible_constant(v: Video) -> list[Finding]:
    """No object vanishes, and none appears except by coming into existence once, out of view (zero visible
    pixels in its first frame; GRASP spawns balls behind panels), and staying. Shape and size are one value
    per object in the HDF5, so a shape change can only be written as one object vanishing and another
    appearing, which this check sees."""
    out = []
    for name, tr in v.tracks.items():
        change = tr.visible[1:] != tr.visible[:-1]
        if not change.any():
            continue
        frames = [f + 1 for f in frame_list(change)]
        k = frames[0]
        if len(frames) == 1 and tr.visible[k] and tr.visible_pixels[k] <= 0:
            continue  # spawned out of view (or not measurable: states-only)
        how = "appears" if tr.visible[k] else "vanishes"
        seen = f" in view ({tr.visible_pixels[k]} pixels)" if how == "appears" and tr.visible_pixels[k] > 0 else ""
        out.append(
            Finding(
                "visible_constant",
                name,
                frames,
                f"{name} {how}{seen} at frame {k}"
                + (f" (and changes again at {fmt_frames(frames[1:])})" if len(frames) > 1 else ""),
            )
        )
    return out


def physics_findings(v: Video) -> list[Finding]:
    """Every plausibility check on every object of the video."""
    out = check_no_interpenetration(v) + check_no_teleport(v) + check_color_constant(v) + check_visible_constant(v)
    for name, tr in v.tracks.items():
        if not tr.free or not tr.visible.any():
            continue
        m = motion(v, name)
        out += check_acceleration(v, name, m)
        out += check_resting_supported(v, name, m)
    return out
