"""An object as a solid that moves: its solid (`Shape`: a signed distance function, surface samples, centre of
mass, the facet of its polygon mesh) and its track (`Track`: per-frame pose, colour, visibility).

The audit builds these from written files (audit/video.py); scene scripts that read ground truth off their own
simulated states (scenes/predict/truth.py) build them from a Scene's objects, so both measure with one geometry.
Gaps and contacts between two tracks are `contacts.py`'s."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from voebench.generator.geometry import MESH_SEGMENTS, box_surface, fibonacci_sphere, quat_to_matrix, revolution_surface

PLANE_THICKNESS = 0.5  # m: a `plane` is solid this far behind its face, deeper than anything sinks into a ground

# Roles of scenery and mechanisms, for files written before objects carried a `fixture` attribute: such
# objects are not "free" (no gravity/support/velocity checks, since scripts hold them in place or move them),
# but they take part in interpenetration checks as obstacles. Newer files say so per object (`fixture`).
FIXTURE_ROLES = frozenset(
    {
        "floor",
        "wall",
        "table",
        "tray",
        "occluder",
        "barrier",
        "plank",
        "pin",
        "ramp",
        "incline",
        "ledge",
        "shelf",
        "platform",
        "screen",
        "cover",
        "container",
        "support",
        "pole",
        "rail",
        "track",
        "ground",
        "stand",
        "background",
        "drawbridge",
        "apparatus",
        "divider",
        "stopper",
        "rim",
        "base",
        "frame",
        "post",
        "hinge",
        "mechanism",
        "marking",
        "roof",
        "lid",
        "door",
        "gate",
        "holder",
    }
)


def is_fixture_role(role: str) -> bool:
    """A role names a fixture if it, or any `_`/`-`-separated part of it, is a fixture role (`floor_upper`).
    Only for files without the `fixture` object attribute."""
    role = role.lower()
    return role in FIXTURE_ROLES or any(part in FIXTURE_ROLES for part in role.replace("-", "_").split("_"))


def quat_to_matrices(q: np.ndarray) -> np.ndarray:
    """(F,4) w x y z as read from a file -> (F,3,3) rotation matrices (object frame to world), normalised first."""
    q = np.asarray(q, float)
    return quat_to_matrix(q / np.linalg.norm(q, axis=1, keepdims=True))


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
            self.samples = fibonacci_sphere(600) * self.h
        elif kind in ("box", "mesh"):
            self.samples = box_surface(self.h)
        elif kind == "plane":
            # one-sided: a thin slab behind its face (local -z), so that what sinks below a ground plane is
            # inside it rather than "outside, underneath"
            self.h = np.array([d[0] / 2.0, d[1] / 2.0, PLANE_THICKNESS / 2.0])
            self.offset = np.array([0.0, 0.0, -PLANE_THICKNESS / 2.0])
            self.samples = box_surface(self.h) + self.offset
        elif kind == "cylinder":
            self.samples = revolution_surface(lambda z: 1.0, -1.0, 1.0) * self.h
        elif kind == "cone":
            self.samples = revolution_surface(lambda z: (1.0 - z) / 2.0, -1.0, 1.0, n_z=13) * self.h
            self.com = np.array([0.0, 0.0, -d[2] / 4.0])  # a cone's centroid: a quarter of its height up
        elif kind == "torus":
            r = d[2] / 2.0
            R = d[0] / 2.0 - r
            self.R, self.r = R, r
            u, v = np.meshgrid(
                np.linspace(0, 2 * np.pi, 64, endpoint=False), np.linspace(0, 2 * np.pi, 32, endpoint=False)
            )
            u, v = u.ravel(), v.ravel()
            self.samples = np.c_[(R + r * np.cos(v)) * np.cos(u), (R + r * np.cos(v)) * np.sin(u), r * np.sin(v)]
        else:
            raise ValueError(f"unknown shape {kind!r}")
        self.radius = float(np.linalg.norm(self.h)) if kind != "torus" else d[0] / 2.0
        # half a facet of the polygon mesh round a curved surface: a round solid rests on a flat facet up to
        # sin(pi / MESH_SEGMENTS) of its largest radius wide on either side of the ideal solid's contact point,
        # so a tilted ellipsoid (or a sphere) can stand still where the ideal one rolls
        curved = kind in ("sphere", "cylinder", "cone", "torus")
        self.facet = float(self.h.max() * np.sin(np.pi / MESH_SEGMENTS)) if curved else 0.0

    def sdf(self, p: np.ndarray) -> np.ndarray:
        """Signed distance of local points p (...,3): exact for box, plane, sphere, cylinder, cone and torus;
        elliptic cross-sections are scaled to their smaller radius (an underestimate, so never a false overlap
        larger than the true one)."""
        k = self.kind
        if k in ("box", "mesh", "plane"):
            if not REFERENCE_FORMS:
                return box_sdf(p, self.offset, self.h)
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
    fixture: bool | None = None  # scenery or mechanism (HDF5 `fixture`); None: not written, the role decides
    rot: np.ndarray = field(init=False)  # (T,3,3)

    def __post_init__(self):
        self.rot = quat_to_matrices(self.quaternion)

    @property
    def free(self) -> bool:
        """Moved (or held) by physics rather than by a script: subject to gravity, support and velocity checks."""
        fixture = is_fixture_role(self.role) if self.fixture is None else self.fixture
        return self.dynamic or not fixture

    @property
    def moves(self) -> bool:
        return bool(np.ptp(self.position, axis=0).max() > 1e-9 or np.ptp(self.quaternion, axis=0).max() > 1e-9)

    def world(self, local: np.ndarray, frames: np.ndarray) -> np.ndarray:
        """Local points (N,3) at `frames` -> world (F,N,3)."""
        if REFERENCE_FORMS:
            return self.position[frames][:, None, :] + np.einsum("fij,nj->fni", self.rot[frames], local)
        return to_world(self.rot[frames], np.asarray(local, float), self.position[frames])

    def local(self, world: np.ndarray, frames: np.ndarray) -> np.ndarray:
        """World points (F,N,3) -> this object's frame at `frames`."""
        if REFERENCE_FORMS:
            return np.einsum("fni,fij->fnj", world - self.position[frames][:, None, :], self.rot[frames])
        return to_local(np.asarray(world, float), self.rot[frames], self.position[frames])


#: The audit's previous expressions (np.einsum transforms, a box's sdf reduced over the xyz axis), kept as the
#: reference that the faster forms are tested against (tests/generator/test_audit_transforms.py) and for the
#: benchmark's "today" path (bench/render/paths.py). The results are the same floats on this project's machines.
REFERENCE_FORMS = False


def to_world(rot: np.ndarray, local: np.ndarray, position: np.ndarray) -> np.ndarray:
    """(F,3,3) rotations, (N,3) local points, (F,3) positions -> (F,N,3) world points.

    Why not np.einsum: this is most of the generation gate's time (the interpenetration check transforms ~600
    surface samples per object and frame), and einsum's 3-term sums run through a generic kernel 4-5x slower
    than these per-component products on (F,N) planes. The sum order is einsum's on this project's AVX-512
    machines, (r0 p0 + r2 p2) + r1 p1: numpy 1.26 sums the products in SIMD lanes and folds the lanes in halves.
    Its source folds narrower vectors otherwise (AVX2's horizontal add: (r0 p0 + r1 p1) + r2 p2; not measured
    here), and strided inputs take yet another kernel, so einsum's last bit depends on the CPU and the layout;
    these products and sums, one IEEE operation each, do not. So on such a machine every gap, and every verdict,
    is the same float as before (tests/generator/test_audit_transforms.py, bench/audit_forms.py), and elsewhere
    it is the same float as on such a machine."""
    out = np.empty((len(rot), len(local), 3))
    p0, p1, p2 = local[None, :, 0], local[None, :, 1], local[None, :, 2]
    for i in range(3):
        c = rot[:, i, 0, None] * p0
        c += rot[:, i, 2, None] * p2
        c += rot[:, i, 1, None] * p1
        c += position[:, i, None]  # position + rotated point: the same float as einsum's result + position
        out[..., i] = c
    return out


def to_local(world: np.ndarray, rot: np.ndarray, position: np.ndarray) -> np.ndarray:
    """(F,N,3) world points, (F,3,3) rotations, (F,3) positions -> (F,N,3) points in the object's frame:
    (d0 r0j + d1 r1j) + d2 r2j with d = world - position, einsum's order for this contraction (see to_world)."""
    d = world - position[:, None, :]
    out = np.empty_like(d)
    d0, d1, d2 = d[..., 0], d[..., 1], d[..., 2]
    for j in range(3):
        c = d0 * rot[:, None, 0, j]
        c += d1 * rot[:, None, 1, j]
        c += d2 * rot[:, None, 2, j]
        out[..., j] = c
    return out


def into_frame_of(a: Track, b: Track, local: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """a's local points (N,3) at `frames`, in b's frame: `b.local(a.world(local, frames), frames)` without
    interleaving the world points in between (the same operations on the same floats, so the same result;
    the contact check's main transform)."""
    if REFERENCE_FORMS:
        return b.local(a.world(local, frames), frames)
    rot_a, pos_a, rot_b, pos_b = a.rot[frames], a.position[frames], b.rot[frames], b.position[frames]
    local = np.asarray(local, float)
    p0, p1, p2 = local[None, :, 0], local[None, :, 1], local[None, :, 2]
    d = []
    for i in range(3):  # to_world's component i, then to_local's world - position
        c = rot_a[:, i, 0, None] * p0
        c += rot_a[:, i, 2, None] * p2
        c += rot_a[:, i, 1, None] * p1
        c += pos_a[:, i, None]
        c -= pos_b[:, i, None]
        d.append(c)
    out = np.empty(d[0].shape + (3,))
    for j in range(3):  # to_local's products and sums
        c = d[0] * rot_b[:, None, 0, j]
        c += d[1] * rot_b[:, None, 1, j]
        c += d[2] * rot_b[:, None, 2, j]
        out[..., j] = c
    return out


def box_sdf(p: np.ndarray, offset: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Signed distance of points p (...,3) to the box of half extents h centred at offset: the reference's
    `norm(max(q, 0)) + min(max(q), 0)` with q = |p - offset| - h, worked per coordinate plane instead of reducing
    over a length-3 axis (3.5x faster). The same IEEE operations in the same order, so the same floats:
    np.linalg.norm squares and sums its three terms as (q0^2 + q1^2) + q2^2, and max is exact in any order."""
    p = np.asarray(p, float)
    if p.ndim == 1:  # one point: the in-place steps below need arrays, not scalars
        return box_sdf(p[None], offset, h)[0]
    q = [np.abs(p[..., i] - offset[i]) for i in range(3)]
    for i in range(3):
        q[i] -= h[i]
    inside = np.maximum(np.maximum(q[0], q[1]), q[2])
    np.minimum(inside, 0.0, out=inside)
    s = [np.maximum(qi, 0.0) for qi in q]
    for si in s:
        si *= si
    s[0] += s[1]
    s[0] += s[2]
    np.sqrt(s[0], out=s[0])
    s[0] += inside
    return s[0]
