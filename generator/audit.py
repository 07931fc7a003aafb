"""`voebench audit DIR`: check the physics of every video from its written ground truth alone.

The audit reads `manifest.jsonl` and each video's HDF5 (object shapes, sizes, poses, colours, `visible`,
`visible_pixels`, the `violation` record); it never runs a scene script, so it checks what was actually
written, not what a script meant to write. Each check is a small function below that returns `Finding`s;
tolerances are the named constants that follow, each with the reason for its value. docs/audit.md explains
every check, what it proves and what it cannot see.

Plausible videos (Level 1, Level 2 `plausible`, AVoE `expected`) must pass every physics check. Implausible /
surprising videos must show their recorded violation inside its frame window, pass every physics check outside
that window (and on every other object), keep a hidden manipulation out of view, and match their plausible twin
exactly before the violation's first frame.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

# ------------------------------------------------------------------------------------------- tolerances

G = np.array([0.0, 0.0, -9.81])  # the scenes' gravity (Scene.gravity; not stored in the HDF5)
PENETRATION_TOL = 0.005  # m: Bullet's resting contacts sink ~1 mm at 10 substeps; a real overlap is centimetres
IMPACT_SLACK = 0.05  # of the distance both objects move in a frame: Bullet lets a falling body sink into
# the floor for a substep when it lands (measured: 2 mm at 50 fps, 10 mm at 10 fps for a 1-2 m drop)
CONTACT_TOL = 0.005  # m: surfaces closer than this touch (same order as PENETRATION_TOL)
MAX_SPEED = 30.0  # m/s: faster than anything in these scenes (AVoE: objects launched at up to 15 m/s, a small
# one struck elastically by a large one at 11 m/s leaves at up to 22 m/s, screens sweep at 25 m/s); more is a jump
REST_SPEED = 0.01  # m/s: slower counts as at rest (Bullet's resting jitter is ~1e-4 m/s)
FREE_ACC_TOL = 2.0  # m/s^2: free flight may deviate from g by air damping (Bullet's 0.04/s) and integration
CONTACT_CONE_DEG = 60.0  # a contact pushes within this angle of its normal (friction up to tan 60 = 1.7)
FRICTION_SPEEDUP_TOL = 1.0  # m/s^2: friction never speeds a body up along a surface; this much covers spin
# taking hold after a landing and the finite differences of a curved path
IMPACT_ACC = 3 * 9.81  # m/s^2: a normal push above this is an impact, not sliding or rolling contact
SLIDING = 0.3  # a body moves along a surface if its speed toward/away from it is below this fraction
SUPPORT_NORMAL_Z = 0.5  # a supporting contact's normal points up at least this much (slopes up to 60 deg)
REST_FRAMES = 5  # at rest this many consecutive frames: must be supported
SUPPORT_MARGIN = 0.02  # m: the centre of mass may lie this far outside its contact patch (sampling spacing)
MESH_SEGMENTS = 32  # polygons round a curved surface in what is rendered and simulated (blender/build.py SEGMENTS):
# a round solid rests on a flat facet up to sin(pi / MESH_SEGMENTS) of its largest radius wide on either side of
# the ideal solid's contact point, so a tilted ellipsoid (or a sphere) can stand still where the ideal one rolls
COLOR_TOL = 1e-4  # linear RGB: colours are written as float32 constants; any real change is larger
PAIR_TOL = 1e-6  # m / unitless: twins come from the same deterministic build; only float noise may differ
WINDOW_SLACK = 1  # frames: finite differences straddle the window's edges by one frame
MAX_FRAMES_LISTED = 8  # frames quoted per finding in the report
PLANE_THICKNESS = 0.5  # m: a `plane` is solid this far behind its face, deeper than anything sinks into a ground

# Roles of scenery and mechanisms: they are not "free" objects (no gravity/support/velocity checks, since
# scripts hold them in place or move them), but they take part in interpenetration checks as obstacles.
FIXTURE_ROLES = frozenset({
    "floor", "wall", "table", "tray", "occluder", "barrier", "plank", "pin", "ramp", "incline", "ledge", "shelf",
    "platform", "screen", "cover", "container", "support", "pole", "rail", "track", "ground", "stand", "background",
    "drawbridge", "apparatus", "divider", "stopper", "rim", "base", "frame", "post", "hinge", "mechanism",
    "marking", "roof", "lid", "door", "gate", "holder"})


def is_fixture_role(role: str) -> bool:
    """A role names a fixture if it, or any `_`/`-`-separated part of it, is a fixture role (`floor_upper`)."""
    role = role.lower()
    return role in FIXTURE_ROLES or any(part in FIXTURE_ROLES for part in role.replace("-", "_").split("_"))

PLAUSIBLE_CONDITIONS = ("plausible", "expected")
IMPLAUSIBLE_CONDITIONS = ("implausible", "surprising")

PHYSICS_CHECKS = ("no_interpenetration", "no_teleport", "no_velocity_jump", "falls_when_unsupported",
                  "resting_supported", "color_constant", "visible_constant")
VIOLATION_CHECKS = ("violation_record", "violation_present", "hidden_when_manipulated", "pair_identical_before_onset")


# ------------------------------------------------------------------------------------------- geometry


def quat_to_matrices(q: np.ndarray) -> np.ndarray:
    """(F,4) w x y z -> (F,3,3) rotation matrices (object frame to world)."""
    q = np.asarray(q, float)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def _fibonacci_sphere(n: int) -> np.ndarray:
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    return np.c_[np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)]


def _box_surface(h: np.ndarray, n: int = 11) -> np.ndarray:
    """Grid points on the six faces of a box with half extents h (vertices and edges included)."""
    u = np.linspace(-1.0, 1.0, n)
    a, b = np.meshgrid(u, u)
    a, b = a.ravel(), b.ravel()
    pts = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            p = np.zeros((len(a), 3))
            others = [k for k in range(3) if k != axis]
            p[:, axis] = sign
            p[:, others[0]], p[:, others[1]] = a, b
            pts.append(p)
    return np.unique(np.concatenate(pts) * h, axis=0)


def _revolution_surface(radius_at, z0: float, z1: float, n_angle: int = 64, n_z: int = 9, n_rings: int = 5):
    """Points on a solid of revolution about z (radius_at(z)), plus its flat caps (rings)."""
    ang = np.linspace(0, 2 * np.pi, n_angle, endpoint=False)
    c, s = np.cos(ang), np.sin(ang)
    pts = []
    for z in np.linspace(z0, z1, n_z):
        r = radius_at(z)
        pts.append(np.c_[r * c, r * s, np.full(n_angle, z)])
    for z in (z0, z1):
        rmax = radius_at(z)
        for f in np.linspace(0, 1, n_rings)[:-1]:
            pts.append(np.c_[f * rmax * c, f * rmax * s, np.full(n_angle, z)])
    return np.concatenate(pts)


class Shape:
    """An object's solid in its own frame: a signed distance function (negative inside), surface sample
    points, its centre of mass, and a bounding radius. `kind` and `dims` are the HDF5 `shape` and
    `dimensions`; `mesh` is approximated by its bounding box and flagged `known = False`."""

    def __init__(self, kind: str, dims):
        self.kind = kind
        self.dims = np.asarray(dims, float).reshape(3)
        d = self.dims
        self.h = d / 2.0
        self.known = kind != "mesh"
        self.com = np.zeros(3)
        self.sphere_radius = None  # exact sphere: distances from its centre are exact
        self.offset = np.zeros(3)  # centre of the solid in the object's frame (planes: the slab behind them)
        if kind == "sphere":
            if np.ptp(d) < 1e-9:
                self.sphere_radius = d[0] / 2.0
            self.samples = _fibonacci_sphere(600) * self.h
        elif kind in ("box", "mesh"):
            self.samples = _box_surface(self.h)
        elif kind == "plane":
            # one-sided: a thin slab behind its face (local -z), so that what sinks below a ground plane is
            # inside it rather than "outside, underneath"
            self.h = np.array([d[0] / 2.0, d[1] / 2.0, PLANE_THICKNESS / 2.0])
            self.offset = np.array([0.0, 0.0, -PLANE_THICKNESS / 2.0])
            self.samples = _box_surface(self.h) + self.offset
        elif kind == "cylinder":
            self.samples = _revolution_surface(lambda z: 1.0, -1.0, 1.0) * self.h
        elif kind == "cone":
            self.samples = _revolution_surface(lambda z: (1.0 - z) / 2.0, -1.0, 1.0, n_z=13) * self.h
            self.com = np.array([0.0, 0.0, -d[2] / 4.0])  # a cone's centroid: a quarter of its height up
        elif kind == "torus":
            r = d[2] / 2.0
            R = d[0] / 2.0 - r
            self.R, self.r = R, r
            u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 64, endpoint=False),
                               np.linspace(0, 2 * np.pi, 32, endpoint=False))
            u, v = u.ravel(), v.ravel()
            self.samples = np.c_[(R + r * np.cos(v)) * np.cos(u), (R + r * np.cos(v)) * np.sin(u), r * np.sin(v)]
        else:
            raise ValueError(f"unknown shape {kind!r}")
        self.radius = float(np.linalg.norm(self.h)) if kind != "torus" else d[0] / 2.0
        # half a facet of the polygon mesh round a curved surface (see MESH_SEGMENTS)
        curved = kind in ("sphere", "cylinder", "cone", "torus")
        self.facet = float(self.h.max() * np.sin(np.pi / MESH_SEGMENTS)) if curved else 0.0

    def sdf(self, p: np.ndarray) -> np.ndarray:
        """Signed distance of local points p (...,3): exact for box, plane, sphere, cylinder, cone and torus;
        elliptic cross-sections are scaled to their smaller radius (an underestimate, so never a false overlap
        larger than the true one)."""
        k = self.kind
        if k in ("box", "mesh", "plane"):
            q = np.abs(p - self.offset) - self.h
            return np.linalg.norm(np.maximum(q, 0.0), axis=-1) + np.minimum(q.max(axis=-1), 0.0)
        if k == "sphere":
            if self.sphere_radius is not None:
                return np.linalg.norm(p, axis=-1) - self.sphere_radius
            r = self.h
            k0 = np.linalg.norm(p / r, axis=-1)
            k1 = np.linalg.norm(p / r**2, axis=-1)
            return np.where(k1 > 1e-12, k0 * (k0 - 1.0) / np.maximum(k1, 1e-12), -r.min())
        if k in ("cylinder", "cone"):
            rx, ry, hz = self.h
            rmin = min(rx, ry)
            xy = np.linalg.norm(p[..., :2] * np.array([rmin / rx, rmin / ry]), axis=-1)
            z = p[..., 2]
            if k == "cylinder":
                dx, dz = xy - rmin, np.abs(z) - hz
                return np.minimum(np.maximum(dx, dz), 0.0) + np.hypot(np.maximum(dx, 0.0), np.maximum(dz, 0.0))
            # capped cone (base radius rmin at z = -hz, apex at z = +hz), Inigo Quilez's exact formula
            r1, r2 = rmin, 0.0
            k1 = np.array([r2, hz])
            k2 = np.array([r2 - r1, 2.0 * hz])
            qx, qy = xy, z
            ca_x = qx - np.minimum(qx, np.where(qy < 0.0, r1, r2))
            ca_y = np.abs(qy) - hz
            t = np.clip(((k1[0] - qx) * k2[0] + (k1[1] - qy) * k2[1]) / (k2 @ k2), 0.0, 1.0)
            cb_x = qx - k1[0] + k2[0] * t
            cb_y = qy - k1[1] + k2[1] * t
            s = np.where((cb_x < 0.0) & (ca_y < 0.0), -1.0, 1.0)
            return s * np.sqrt(np.minimum(ca_x**2 + ca_y**2, cb_x**2 + cb_y**2))
        if k == "torus":
            qx = np.linalg.norm(p[..., :2], axis=-1) - self.R
            return np.hypot(qx, p[..., 2]) - self.r
        raise ValueError(k)

    def grad(self, p: np.ndarray, eps: float = 1e-4) -> np.ndarray:
        """Unit outward normal (numerical gradient of the sdf) at local points p (N,3)."""
        g = np.stack([self.sdf(p + e) - self.sdf(p - e) for e in np.eye(3) * eps], axis=-1)
        n = np.linalg.norm(g, axis=-1, keepdims=True)
        return np.where(n > 1e-12, g / np.maximum(n, 1e-12), np.array([0.0, 0.0, 1.0]))


@dataclass
class Track:
    """One object as written: its shape and per-frame pose, colour and visibility."""

    name: str
    role: str
    shape: Shape
    dynamic: bool
    position: np.ndarray  # (T,3)
    quaternion: np.ndarray  # (T,4)
    color: np.ndarray  # (T,3)
    visible: np.ndarray  # (T,) bool
    visible_pixels: np.ndarray  # (T,) int, -1 = not measured
    rot: np.ndarray = field(init=False)  # (T,3,3)

    def __post_init__(self):
        self.rot = quat_to_matrices(self.quaternion)

    @property
    def free(self) -> bool:
        """Moved (or held) by physics rather than by a script: subject to gravity, support and velocity checks."""
        return self.dynamic or not is_fixture_role(self.role)

    @property
    def moves(self) -> bool:
        return bool(np.ptp(self.position, axis=0).max() > 1e-9 or np.ptp(self.quaternion, axis=0).max() > 1e-9)

    def world(self, local: np.ndarray, frames: np.ndarray) -> np.ndarray:
        """Local points (N,3) at `frames` -> world (F,N,3)."""
        return self.position[frames][:, None, :] + np.einsum("fij,nj->fni", self.rot[frames], local)

    def local(self, world: np.ndarray, frames: np.ndarray) -> np.ndarray:
        """World points (F,N,3) -> this object's frame at `frames`."""
        return np.einsum("fni,fij->fnj", world - self.position[frames][:, None, :], self.rot[frames])


@dataclass
class PairGeometry:
    """Per frame (NaN where not evaluated): the gap between two objects' surfaces (negative: overlap depth)
    and the unit normal along which `b` pushes `a` at their closest points."""

    gap: np.ndarray  # (T,)
    normal: np.ndarray  # (T,3)
    known: bool  # False if either is a mesh (gap from a bounding box, normal unknown)


def pair_geometry(a: Track, b: Track, frames: np.ndarray) -> PairGeometry:
    T = len(a.position)
    gap = np.full(T, np.nan)
    normal = np.full((T, 3), np.nan)
    frames = np.asarray(frames, int)
    if len(frames):
        # evaluate each distinct relative configuration once (static scenery repeats frame after frame)
        key = np.c_[a.position[frames], a.quaternion[frames], b.position[frames], b.quaternion[frames]]
        _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        uf = frames[first]
        g, n = _gap(a, b, uf)
        gap[frames], normal[frames] = g[inverse.ravel()], n[inverse.ravel()]
    return PairGeometry(gap, normal, a.shape.known and b.shape.known)


def _gap(a: Track, b: Track, f: np.ndarray):
    """Signed gap and push normal (b onto a) at frames f (F,)."""
    if a.shape.sphere_radius is not None:  # exact: distance from a's centre to b, minus a's radius
        c = a.position[f][:, None, :]
        local = b.local(c, f)
        gap = b.shape.sdf(local)[:, 0] - a.shape.sphere_radius
        n = np.einsum("fij,fj->fi", b.rot[f], b.shape.grad(local[:, 0]))
        return gap, n
    if b.shape.sphere_radius is not None:
        g, n = _gap(b, a, f)
        return g, -n
    pa = b.local(a.world(a.shape.samples, f), f)  # a's surface in b's frame
    da = b.shape.sdf(pa)
    pb = a.local(b.world(b.shape.samples, f), f)  # b's surface in a's frame
    db = a.shape.sdf(pb)
    ia, ib = da.argmin(axis=1), db.argmin(axis=1)
    rows = np.arange(len(f))
    ma, mb = da[rows, ia], db[rows, ib]
    na = np.einsum("fij,fj->fi", b.rot[f], b.shape.grad(pa[rows, ia]))  # outward of b: pushes a
    nb = -np.einsum("fij,fj->fi", a.rot[f], a.shape.grad(pb[rows, ib]))  # into a's outward: reversed
    use_a = ma <= mb
    gap, n = np.where(use_a, ma, mb), np.where(use_a[:, None], na, nb)
    for x, y, sign in ((a, b, 1.0), (b, a, -1.0)):
        if x.shape.kind == "sphere" and x.shape.sphere_radius is None:
            # an ellipsoid's samples are too sparse for a mm gap: add its extreme point toward y, exactly
            world = _ellipsoid_extreme(x, f, -sign * n)  # toward y (n pushes a away from b)
            ly = y.local(world[:, None, :], f)[:, 0]
            dy = y.shape.sdf(ly)
            better = dy < gap
            if better.any():
                ny = np.einsum("fij,fj->fi", y.rot[f], y.shape.grad(ly))  # outward of y
                gap = np.where(better, dy, gap)
                n = np.where(better[:, None], sign * ny, n)
    return gap, n


def _ellipsoid_extreme(x: Track, f: np.ndarray, toward: np.ndarray) -> np.ndarray:
    """(F,3) the point of ellipsoid x farthest in world direction `toward` (F,3) at frames f."""
    d_local = np.einsum("fji,fj->fi", x.rot[f], toward)
    r2 = x.shape.h**2
    pt = (d_local * r2) / np.sqrt(np.maximum((d_local**2 * r2).sum(axis=1, keepdims=True), 1e-18))
    return x.position[f] + np.einsum("fij,fj->fi", x.rot[f], pt)


def contact_points(a: Track, b: Track, t: int, tol: float = CONTACT_TOL):
    """Points of a's surface within `tol` of b at frame t, and b's outward normal there (world)."""
    f = np.array([t])
    if a.shape.sphere_radius is not None:
        local = b.local(a.position[f][:, None, :], f)[0]
        d = b.shape.sdf(local)[0] - a.shape.sphere_radius
        if d > tol:
            return np.zeros((0, 3)), np.zeros((0, 3))
        n = b.rot[t] @ b.shape.grad(local)[0]
        return (a.position[t] - a.shape.sphere_radius * n)[None], n[None]
    pts = a.world(a.shape.samples, f)[0]
    local = b.local(pts[None], f)[0]
    keep = b.shape.sdf(local) <= tol
    if b.shape.sphere_radius is not None:  # a sphere touches a at one point: the sphere's closest point
        c = b.position[t]
        la = a.local(c[None, None], f)[0]
        d = a.shape.sdf(la)[0] - b.shape.sphere_radius
        if d > tol:
            return np.zeros((0, 3)), np.zeros((0, 3))
        na = a.rot[t] @ a.shape.grad(la)[0]
        return (c - b.shape.sphere_radius * na)[None], -na[None]
    n = (b.rot[t] @ b.shape.grad(local[keep]).T).T
    pts = pts[keep]
    if a.shape.kind == "sphere":  # an ellipsoid: its exact extreme point toward b
        _, nn = _gap(a, b, f)
        q = _ellipsoid_extreme(a, f, -nn)
        lq = b.local(q[:, None, :], f)[0]
        if b.shape.sdf(lq)[0] <= tol:
            pts = np.r_[pts, q]
            n = np.r_[n, (b.rot[t] @ b.shape.grad(lq).T).T]
    return pts, n


def _near(a: Track, b: Track, margin: np.ndarray | float) -> np.ndarray:
    """Frames where both exist and their bounding spheres come within `margin`."""
    d = np.linalg.norm(a.position + a.rot @ a.shape.com - b.position - b.rot @ b.shape.com, axis=1)
    reach = a.shape.radius + np.linalg.norm(a.shape.com) + b.shape.radius + np.linalg.norm(b.shape.com)
    return np.flatnonzero(a.visible & b.visible & (d <= reach + margin))


# ------------------------------------------------------------------------------------------- a video


@dataclass
class Finding:
    """One failed check on one object over some frames."""

    check: str
    object: str
    frames: list
    detail: str
    other: str | None = None  # the other object, for pair checks


class Video:
    """A video's ground truth plus the derived motion (velocity, acceleration) and contact geometry."""

    def __init__(self, path: str, entry: dict | None = None):
        from voebench.generator.io.hdf5 import read_states

        s = read_states(path)
        self.path = path
        self.attrs = s["attrs"]
        self.entry = entry or {}
        self.fps = float(self.attrs["fps"])
        self.n_frames = int(self.attrs["n_frames"])
        self.tracks: dict[str, Track] = {}
        for name, o in s["objects"].items():
            vp = o.get("visible_pixels", np.full(self.n_frames, -1))
            self.tracks[name] = Track(name, str(o["role"]), Shape(str(o["shape"]), o["dimensions"]),
                                      bool(o.get("dynamic", False)), np.asarray(o["position"], float),
                                      np.asarray(o["quaternion"], float), np.asarray(o["color"], float),
                                      np.asarray(o["visible"], bool), np.asarray(vp, np.int64))
        self.camera = s["camera"]
        v = s.get("violation")
        self.violation = None
        if v is not None:
            self.violation = {k: (x.decode() if isinstance(x, bytes) else x) for k, x in v.items()}
            if isinstance(self.violation.get("principles"), str):
                self.violation["principles"] = json.loads(self.violation["principles"])
            for k in ("first_frame", "last_frame"):
                self.violation[k] = int(self.violation[k])
            self.violation["hidden"] = bool(self.violation.get("hidden", False))
        self._pairs: dict = {}
        self._physics: list | None = None

    def physics(self) -> list:
        """Every physics check's findings (computed once)."""
        if self._physics is None:
            self._physics = physics_findings(self)
        return self._physics

    @property
    def condition(self) -> str:
        return str(self.attrs.get("condition", ""))

    def velocity(self, name: str) -> np.ndarray:
        """(T-1,3) m/s between frame t and t+1."""
        return np.diff(self.tracks[name].position, axis=0) * self.fps

    def geometry(self, a: str, b: str) -> PairGeometry:
        """Gap/normal between a and b at every frame where they are near each other."""
        if (a, b) not in self._pairs:
            ta, tb = self.tracks[a], self.tracks[b]
            margin = CONTACT_TOL + 2 * (_steps(ta) + _steps(tb))  # contacts between frames count
            frames = _near(ta, tb, margin)
            self._pairs[(a, b)] = pair_geometry(ta, tb, frames)
        return self._pairs[(a, b)]

    def others(self, name: str):
        return [n for n in self.tracks if n != name]


def _steps(tr: Track, before: int = 1) -> np.ndarray:
    """(T,) the largest distance any point of the object moves in one frame among the `before` frames before t
    and the frame after t (a collision happens between frames, so the speed it came in with may lie two frames
    back)."""
    d = np.linalg.norm(np.diff(tr.position, axis=0), axis=1)
    if len(d):  # plus how far its farthest point turns (a tumbling box's corner moves faster than its centre)
        dots = np.clip(np.abs((tr.quaternion[1:] * tr.quaternion[:-1]).sum(axis=1)), 0.0, 1.0)
        d = d + 2.0 * np.arccos(dots) * tr.shape.radius
    step = np.zeros(len(tr.position))
    if len(d):
        step[:-1] = d
        for k in range(1, before + 1):
            step[k:] = np.maximum(step[k:], d[: len(d) - k + 1])
    return step


def _relative_motion(a: Track, b: Track) -> np.ndarray:
    """(T,) whether a moves relative to b between frame t-1 and t or t and t+1."""
    key = np.c_[a.position - b.position, a.quaternion, b.quaternion]
    change = np.abs(np.diff(key, axis=0)).max(axis=1) > 1e-9
    out = np.zeros(len(key), bool)
    out[1:] |= change
    out[:-1] |= change
    return out


def _frames(mask_or_list) -> list:
    idx = np.flatnonzero(mask_or_list) if np.asarray(mask_or_list).dtype == bool else np.asarray(mask_or_list)
    return [int(i) for i in idx]


def _fmt_frames(frames: list) -> str:
    if len(frames) <= MAX_FRAMES_LISTED:
        return ",".join(map(str, frames))
    return ",".join(map(str, frames[:MAX_FRAMES_LISTED])) + f",... ({len(frames)} frames)"


# ------------------------------------------------------------------------------------------- physics checks


def check_no_interpenetration(v: Video) -> list[Finding]:
    """No two solids overlap by more than PENETRATION_TOL (plus IMPACT_SLACK of their motion in that frame).
    Fixtures may be built into each other (tray walls meet at corners, a plank's ends tuck into the walls) and
    mounted on each other (a strip swinging on its rod, a screen in its slot), so a pair of fixtures is
    flagged only if they start apart and one then moves into the other (a screen sinking into the ground).
    Mesh objects (containers, mugs) have no stored geometry and are skipped."""
    out = []
    names = list(v.tracks)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            a, b = first, second
            ta, tb = v.tracks[a], v.tracks[b]
            if not (ta.shape.known and tb.shape.known):
                continue
            if not (ta.free or tb.free or ta.moves or tb.moves):
                continue
            if not ta.free and tb.free:
                a, b, ta, tb = b, a, tb, ta  # report the free object first
            g = v.geometry(a, b)
            bad = g.gap < -(PENETRATION_TOL + IMPACT_SLACK * (_steps(ta, 2) + _steps(tb, 2)))
            if not (ta.free or tb.free):  # fixtures may be built into each other, but not move through each other
                both = np.flatnonzero(ta.visible & tb.visible)
                if len(both) and np.isfinite(g.gap[both[0]]) and g.gap[both[0]] <= CONTACT_TOL:
                    continue  # joined from the start: a hinge, a slide in its slot
                bad &= _relative_motion(ta, tb)
            if bad.any():
                frames = _frames(bad)
                out.append(Finding("no_interpenetration", a, frames,
                                   f"{a} and {b} overlap by up to {-np.nanmin(g.gap[bad]) * 1000:.0f} mm "
                                   f"(frames {_fmt_frames(frames)})", other=b))
    return out


def check_no_teleport(v: Video) -> list[Finding]:
    """Every object moves at most MAX_SPEED / fps per frame while it exists."""
    out = []
    for name, tr in v.tracks.items():
        both = tr.visible[:-1] & tr.visible[1:]
        speed = np.linalg.norm(v.velocity(name), axis=1)
        bad = both & (speed > MAX_SPEED)
        if bad.any():
            frames = _frames(bad)
            out.append(Finding("no_teleport", name, [f + 1 for f in frames],
                               f"{name} jumps {speed[bad].max() / v.fps:.2f} m in one frame "
                               f"({speed[bad].max():.1f} m/s > {MAX_SPEED}) at frames {_fmt_frames([f + 1 for f in frames])}"))
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
        excess[1:-1] = (vel[1:] - vel[:-1]) * v.fps - G
        v_before[1:-1], v_after[1:-1] = speed[:-1], speed[1:]
        defined[1:-1] = tr.visible[:-2] & tr.visible[1:-1] & tr.visible[2:]
    contacts = [[] for _ in range(T)]
    step = _steps(tr)
    for other in v.others(name):
        g = v.geometry(name, other)
        ok = np.flatnonzero(np.isfinite(g.gap))
        reach = CONTACT_TOL + step + _steps(v.tracks[other])  # contacts between frames count
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
        if speed <= REST_SPEED or float(np.dot(e, n)) > IMPACT_ACC or abs(float(np.dot(rel, n))) > SLIDING * speed \
                or turning[t]:
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
        a = np.linalg.norm(m.excess[unsupported] + G, axis=1)
        out.append(Finding("falls_when_unsupported", name, unsupported,
                           f"{name} touches nothing but accelerates at {a.min():.1f}-{a.max():.1f} m/s^2 instead of "
                           f"g (frames {_fmt_frames(unsupported)})"))
    if jumps:
        out.append(Finding("no_velocity_jump", name, jumps,
                           f"{name} changes velocity by up to {np.linalg.norm(m.excess[jumps], axis=1).max() / v.fps:.2f} "
                           f"m/s in a frame with no contact pushing that way (frames {_fmt_frames(jumps)})"))
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
    return [Finding("resting_supported", name, bad, f"{name} rests with nothing holding it up (or its centre of "
                                                    f"mass over no contact) at frames {_fmt_frames(bad)}")]


def _supported(v: Video, name: str, t: int) -> bool:
    tr = v.tracks[name]
    com = tr.position[t] + tr.rot[t] @ tr.shape.com
    pts, holds = [], False
    for other in v.others(name):
        ot = v.tracks[other]
        if not ot.visible[t]:
            continue
        g = v.geometry(name, other)
        if not np.isfinite(g.gap[t]) or g.gap[t] > CONTACT_TOL:
            continue
        if not (ot.shape.known and tr.shape.known):
            # a mesh's true surface is unknown: touching its bounding box counts as support (lenient)
            pts.append(com[None])
            holds = True
            continue
        p, n = contact_points(tr, ot, t)
        pts.append(p)
        holds = holds or bool((n[:, 2] >= SUPPORT_NORMAL_Z).any())
    pts = np.concatenate(pts) if pts else np.zeros((0, 3))
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
            frames = [f + 1 for f in _frames(change)]
            out.append(Finding("color_constant", name, frames, f"{name} changes colour at frames {_fmt_frames(frames)}"))
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
        frames = [f + 1 for f in _frames(change)]
        k = frames[0]
        if len(frames) == 1 and tr.visible[k] and tr.visible_pixels[k] <= 0:
            continue  # spawned out of view (or not measurable: states-only)
        how = "appears" if tr.visible[k] else "vanishes"
        seen = f" in view ({tr.visible_pixels[k]} pixels)" if how == "appears" and tr.visible_pixels[k] > 0 else ""
        out.append(Finding("visible_constant", name, frames, f"{name} {how}{seen} at frame {k}"
                           + (f" (and changes again at {_fmt_frames(frames[1:])})" if len(frames) > 1 else "")))
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


# ------------------------------------------------------------------------------------------- violation checks


def check_violation_record(v: Video) -> list[Finding]:
    """The condition and the `violation` group agree, and the record names an object and a valid window."""
    cond = v.condition
    viol = v.violation
    if cond in IMPLAUSIBLE_CONDITIONS:
        if viol is None:
            return [Finding("violation_record", "-", [], f"a {cond} video without a violation record")]
        problems = []
        if viol.get("object") not in v.tracks:
            problems.append(f"names object {viol.get('object')!r}, which is not in the scene")
        if not 0 <= viol["first_frame"] <= viol["last_frame"] < v.n_frames:
            problems.append(f"window {viol['first_frame']}-{viol['last_frame']} is outside 0-{v.n_frames - 1}")
        if not viol.get("principles"):
            problems.append("lists no principle")
        return [Finding("violation_record", str(viol.get("object")), [], "violation record " + "; ".join(problems))] \
            if problems else []
    if viol is not None:
        return [Finding("violation_record", str(viol.get("object")), [], f"a {cond or 'Level 1'} video with a "
                                                                         "violation record")]
    return []


def violation_objects(v: Video) -> list[str]:
    """The violation's object, plus any *replacement*: an object that appears inside the window where the
    violation object is at that moment (a shape change is written as one object vanishing and another,
    hidden until then, appearing in its place)."""
    viol = v.violation
    name = viol.get("object") if viol else None
    if name not in v.tracks:
        return []
    out = [name]
    win = _window(viol, v.n_frames)
    main = v.tracks[name]
    for other, tr in v.tracks.items():
        if other == name:
            continue
        change = np.flatnonzero(tr.visible[1:] != tr.visible[:-1]) + 1
        if len(change) and win[change].all() and tr.visible[change[0]]:
            k = change[0]
            if np.linalg.norm(tr.position[k] - main.position[k]) <= max(main.shape.radius, tr.shape.radius):
                out.append(other)
    return out


def _window(viol: dict, T: int, slack: int = WINDOW_SLACK) -> np.ndarray:
    w = np.zeros(T, bool)
    w[max(0, viol["first_frame"] - slack): min(T, viol["last_frame"] + slack + 1)] = True
    return w


def _differs(a: Track, b: Track, frames=None, tol: float = PAIR_TOL) -> np.ndarray:
    """(T,) bool: the two tracks differ at frame t in pose, colour or visibility."""
    T = min(len(a.position), len(b.position))
    d = (np.abs(a.position[:T] - b.position[:T]).max(axis=1) > tol) \
        | (np.abs(a.quaternion[:T] - b.quaternion[:T]).max(axis=1) > tol) \
        | (np.abs(a.color[:T] - b.color[:T]).max(axis=1) > COLOR_TOL) \
        | (a.visible[:T] != b.visible[:T])
    return d


def check_violation_present(v: Video, findings: list[Finding], twin: Video | None) -> list[Finding]:
    """The recorded violation shows in its window: its kind's signature (teleport: a jump; recolor: a colour
    change; vanish: not visible; freeze: at rest while a gravity/support/velocity check fails; any kind: the
    object differs from its plausible twin inside the window)."""
    viol = v.violation
    name = viol["object"]
    tr = v.tracks[name]
    first, last = viol["first_frame"], viol["last_frame"]
    win = _window(viol, v.n_frames)
    kind = viol.get("kind", "")
    mine = [f for f in findings if f.object == name or f.other == name]
    in_win = lambda f, checks: f.check in checks and any(win[t] for t in f.frames)  # noqa: E731
    problems = []
    if kind == "teleport":
        if not any(in_win(f, ("no_teleport", "no_velocity_jump", "falls_when_unsupported")) for f in mine):
            problems.append("no jump in position inside the window")
    elif kind == "recolor":
        before = tr.color[first - 1] if first > 0 else None
        if before is None or np.abs(tr.color[first] - before).max() <= COLOR_TOL:
            problems.append(f"colour does not change at frame {first}")
    elif kind == "vanish":
        if tr.visible[first:last + 1].any():
            problems.append("still visible inside the window")
        elif first > 0 and not tr.visible[first - 1]:
            problems.append("already gone before the window")
    elif kind == "freeze":
        vel = np.linalg.norm(v.velocity(name)[first:max(first, last)], axis=1)
        if (vel > REST_SPEED).any():
            problems.append("moves inside its freeze window")
        if not any(in_win(f, ("falls_when_unsupported", "resting_supported", "no_velocity_jump")) for f in mine):
            problems.append("stopping there breaks no physics check (nothing hovers, stops dead or overhangs)")
    elif len(violation_objects(v)) > 1 or kind in ("reshape", "replace", "swap"):
        repl = violation_objects(v)[1:]
        if not repl:
            problems.append("no object takes its place inside the window")
        elif tr.visible[min(last + 1, v.n_frames - 1)] and last + 1 < v.n_frames:
            problems.append("still there after the window, beside its replacement")
        else:
            new = v.tracks[repl[0]].shape
            if new.kind == tr.shape.kind and np.allclose(new.dims, tr.shape.dims) \
                    and np.allclose(v.tracks[repl[0]].color[last], tr.color[max(first - 1, 0)], atol=COLOR_TOL):
                problems.append(f"its replacement {repl[0]} has the same shape, size and colour")
    elif kind == "pass_through":
        if not any(in_win(f, ("no_interpenetration",)) for f in mine) and twin is None:
            problems.append("no overlap inside the window")
    if twin is not None and name in twin.tracks:
        d = _differs(tr, twin.tracks[name])
        if not d[first:last + 1].any():
            problems.append("identical to its plausible twin inside the window")
    elif twin is None and kind not in ("teleport", "recolor", "vanish", "freeze", "pass_through", "reshape"):
        problems.append(f"kind {kind!r} can only be checked against a plausible twin, and there is none")
    if problems:
        return [Finding("violation_present", name, list(range(first, last + 1)),
                        f"{kind} of {name} in frames {first}-{last}: " + "; ".join(problems))]
    return []


def aftermath(v: Video) -> np.ndarray:
    """(T,) frames after the window in which the violation object still holds the pose it had at the window's
    last frame: the violation's lasting result (a ball stopped in mid-air stays there when revealed)."""
    viol = v.violation
    out = np.zeros(v.n_frames, bool)
    tr = v.tracks[viol["object"]]
    last = viol["last_frame"]
    for t in range(last + 1, v.n_frames):
        if np.abs(tr.position[t] - tr.position[last]).max() > PAIR_TOL \
                or np.abs(tr.quaternion[t] - tr.quaternion[last]).max() > PAIR_TOL:
            break
        out[t] = True
    return out


def outside_window(v: Video, findings: list[Finding]) -> list[Finding]:
    """Drop the violation objects' findings inside the window (the designed violation) and in its aftermath
    (the object left as the violation left it); keep the rest."""
    names = set(violation_objects(v))
    if not names:
        return findings
    win = _window(v.violation, v.n_frames) | aftermath(v)
    kept = []
    for f in findings:
        if f.object in names or f.other in names:
            frames = [t for t in f.frames if not win[t]]
            if not frames:
                continue
            f = Finding(f.check, f.object, frames, f.detail + " [outside the violation window]", f.other)
        kept.append(f)
    return kept


EVENT_CHECKS = ("no_teleport", "no_velocity_jump", "no_interpenetration", "color_constant", "visible_constant")


def manipulation_frames(v: Video, findings: list[Finding], twin: Video | None) -> list[int]:
    """The frames in which the manipulation happens: the window's first frame, and every frame near the window
    where a violation object has an *event* finding (a jump, an overlap, a colour or existence change) that its
    plausible twin does not have. States that follow (a ball revealed hovering, an object floating in view as
    designed) and motion both videos share are not the manipulation."""
    viol = v.violation
    names = set(violation_objects(v))
    win = _window(viol, v.n_frames)
    shared = set()
    same = {}  # name -> (T,) the object moves the same way in both videos around frame t
    if twin is not None:
        shared = {(f.check, f.object, f.other, t) for f in twin.physics() for t in f.frames}
        for n in names:
            if n in twin.tracks:
                d = v.tracks[n].position - twin.tracks[n].position
                step = np.abs(np.diff(d, axis=0)).max(axis=1) <= PAIR_TOL
                same[n] = np.r_[True, step] & np.r_[step, True]
    frames = {viol["first_frame"]}
    for f in findings:
        if f.check in EVENT_CHECKS and (f.object in names or f.other in names):
            n = f.object if f.object in names else f.other
            frames |= {t for t in f.frames if win[t] and not ((f.check, f.object, f.other, t) in shared
                                                              and n in same and same[n][t])}
    return sorted(frames)


def check_hidden(v: Video, findings: list[Finding] | None = None, twin: Video | None = None) -> list[Finding]:
    """A manipulation recorded as hidden happens while the object (and any replacement) has zero visible
    pixels: at the window's first frame and in every frame of the manipulation's events (see
    `manipulation_frames`)."""
    viol = v.violation
    if not viol or not viol.get("hidden") or viol.get("object") not in v.tracks:
        return []
    frames = manipulation_frames(v, v.physics() if findings is None else findings, twin)
    out = []
    for name in violation_objects(v):
        px = v.tracks[name].visible_pixels[frames]
        if (px < 0).any():
            continue  # not measured (states-only set): reported as skipped
        bad = [t for t, n in zip(frames, px) if n > 0]
        if bad:
            out.append(Finding("hidden_when_manipulated", name, bad,
                               f"hidden {viol['kind']} of {viol['object']}, but {name} shows up to {px.max()} pixels "
                               f"at manipulation frames {_fmt_frames(bad)}"))
    return out


def check_pair(v: Video, twin: Video, onset: int) -> list[Finding]:
    """Both videos of a trial are identical before the violation's first frame: the same objects (shape, role,
    size), poses, colours, visibility, visible pixel counts and camera."""
    out = []
    if set(v.tracks) != set(twin.tracks):
        diff = sorted(set(v.tracks) ^ set(twin.tracks))
        # an object only one video has must not exist before the onset
        for n in diff:
            tr = v.tracks.get(n) or twin.tracks.get(n)
            if tr.visible[:onset].any():
                out.append(Finding("pair_identical_before_onset", n, _frames(tr.visible[:onset]),
                                   f"{n} exists before the onset in only one video of the pair"))
    for n in set(v.tracks) & set(twin.tracks):
        a, b = v.tracks[n], twin.tracks[n]
        if a.shape.kind != b.shape.kind or not np.allclose(a.shape.dims, b.shape.dims, atol=PAIR_TOL) \
                or a.role != b.role:
            out.append(Finding("pair_identical_before_onset", n, [], f"{n} has another shape, size or role in "
                                                                      "its twin"))
            continue
        d = _differs(a, b)[:onset]
        if a.visible_pixels.min() >= 0 and b.visible_pixels.min() >= 0:
            d |= (a.visible_pixels[:onset] != b.visible_pixels[:onset])
        if d.any():
            frames = _frames(d)
            out.append(Finding("pair_identical_before_onset", n, frames,
                               f"{n} differs from its twin before the onset (frame {onset}) at frames "
                               f"{_fmt_frames(frames)}"))
    ea, eb = v.camera.get("extrinsics"), twin.camera.get("extrinsics")
    if ea is not None and eb is not None and not np.allclose(ea[:onset], eb[:onset], atol=PAIR_TOL):
        out.append(Finding("pair_identical_before_onset", "camera", [], "the camera differs before the onset"))
    return out


# ------------------------------------------------------------------------------------------- driver


@dataclass
class VideoResult:
    id: str
    suite: str
    test: str
    condition: str
    findings: list
    skipped: list  # (check, reason)
    checks: tuple

    @property
    def ok(self) -> bool:
        return not self.findings

    def failed_checks(self) -> list[str]:
        return sorted({f.check for f in self.findings})

    def as_dict(self) -> dict:
        by = defaultdict(list)
        for f in self.findings:
            by[f.check].append({"object": f.object, "other": f.other, "frames": f.frames, "detail": f.detail})
        skipped = dict(self.skipped)
        checks = {c: {"ok": c not in by, "skipped": c in skipped, "reason": skipped.get(c),
                      "findings": by.get(c, [])} for c in self.checks}
        return {"id": self.id, "suite": self.suite, "test": self.test, "condition": self.condition,
                "ok": self.ok, "checks": checks}


def audit_video(v: Video, twin: Video | None = None, twin_missing_reason: str | None = None) -> VideoResult:
    """All checks of one video. `twin`: the other video of its pair (for implausible videos: the plausible one)."""
    a = v.attrs
    cond = v.condition
    skipped = []
    findings = check_violation_record(v)
    physics = v.physics()
    checks = PHYSICS_CHECKS + ("violation_record",)
    paired = bool(a.get("pair_id"))
    if cond in IMPLAUSIBLE_CONDITIONS and v.violation is not None and not findings:
        checks = checks + ("violation_present",)
        findings += check_violation_present(v, physics, twin)
        findings += outside_window(v, physics)
        if v.violation.get("hidden"):  # (a violation meant to be seen has nothing to hide)
            checks = checks + ("hidden_when_manipulated",)
            vp = v.tracks[v.violation["object"]].visible_pixels
            if (vp < 0).any():
                skipped.append(("hidden_when_manipulated", "visible pixels not measured (no segmentation pass)"))
            findings += check_hidden(v, physics, twin)
    else:
        findings += physics
    if paired:
        checks = checks + ("pair_identical_before_onset",)
        if twin is None:
            skipped.append(("pair_identical_before_onset", twin_missing_reason or "its twin is not in the set"))
        else:
            viol = v.violation if v.violation is not None else twin.violation
            if viol is None:
                findings.append(Finding("pair_identical_before_onset", "-", [],
                                        "neither video of the pair records a violation"))
            else:
                findings += check_pair(v, twin, int(viol["first_frame"]))
    return VideoResult(str(a.get("id")), str(a.get("suite")), str(a.get("test")), cond, findings, skipped, checks)


def read_manifest(path: str) -> list[dict]:
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def _audit_group(args) -> list[VideoResult]:
    """Audit the videos of one trial (a pair, or one video) together, so each sees its twin."""
    out_dir, group = args
    results, videos = [], []
    for g in group:
        try:
            videos.append((g, Video(os.path.join(out_dir, g["states"]), g)))
        except Exception as exc:  # an unreadable file is a failed video, not a crash
            results.append(VideoResult(g["id"], g["suite"], g["test"], g.get("condition", ""),
                                       [Finding("readable", "-", [], f"{g['states']}: {type(exc).__name__}: {exc}")],
                                       [], ("readable",)))
    for g, v in videos:
        twins = [w for h, w in videos if h["id"] != g["id"]]
        reason = "only one video of this trial was rendered" if len(group) == 1 and g.get("pair_id") else None
        results.append(audit_video(v, twins[0] if len(twins) == 1 else None, reason))
    return results


def audit_set(out_dir: str, progress: bool = False, workers: int | None = None) -> list[VideoResult]:
    """Every video of the set in `out_dir`, in manifest order (suite, test, index). Trials are audited in
    `workers` processes (default: the machine's cores, for sets of more than a few trials)."""
    entries = read_manifest(os.path.join(out_dir, "manifest.jsonl"))
    groups = defaultdict(list)
    for e in sorted(entries, key=lambda e: (e["suite"], e["test"], e["index"], e["id"])):
        groups[e.get("pair_id") or e["id"]].append(e)
    jobs = [(out_dir, g) for g in groups.values()]
    workers = workers if workers is not None else (os.cpu_count() or 1) if len(jobs) > 16 else 1
    results = []

    def collect(it):
        for rs in it:
            results.extend(rs)
            if progress:
                print(f"\raudit: {len(results)}/{len(entries)}", end="", file=sys.stderr, flush=True)

    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            collect(pool.imap(_audit_group, jobs, chunksize=4))
    else:
        collect(map(_audit_group, jobs))
    if progress:
        print(file=sys.stderr)
    return results


def summary(results: list[VideoResult]) -> str:
    rows = defaultdict(lambda: [0, 0, Counter()])
    for r in results:
        row = rows[f"{r.suite}/{r.test}"]
        row[0] += 1
        row[1] += r.ok
        row[2].update(r.failed_checks())
    width = max([len(k) for k in rows] + [4])
    lines = [f"{'test':<{width}}  videos  passed  failed  failing checks (videos)"]
    for k in sorted(rows):
        n, ok, c = rows[k]
        lines.append(f"{k:<{width}}  {n:>6}  {ok:>6}  {n - ok:>6}  "
                     + (", ".join(f"{name} ({cnt})" for name, cnt in sorted(c.items())) or "-"))
    n = len(results)
    ok = sum(r.ok for r in results)
    lines.append(f"{'all':<{width}}  {n:>6}  {ok:>6}  {n - ok:>6}")
    return "\n".join(lines)


def main(out_dir: str, json_path: str | None = None, verbose: bool = True, workers: int | None = None) -> int:
    results = audit_set(out_dir, progress=verbose and sys.stderr.isatty(), workers=workers)
    if not results and verbose:
        print(f"{out_dir}: the manifest lists no videos", file=sys.stderr)
    if verbose:
        for r in results:
            for f in r.findings:
                print(f"FAIL {r.id}: {f.check}: {f.detail}")
        print(summary(results))
        skipped = Counter(c for r in results for c, _ in r.skipped)
        if skipped:
            print("skipped: " + ", ".join(f"{c} ({n} videos)" for c, n in sorted(skipped.items())))
    if json_path:
        from voebench.generator.output import write_json_atomic

        write_json_atomic(json_path, {"dir": out_dir, "videos": len(results), "passed": sum(r.ok for r in results),
                                      "results": [r.as_dict() for r in results]})
    return 0 if results and all(r.ok for r in results) else 1
