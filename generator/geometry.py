"""Geometry every part of the generator shares, defined once: gravity, quaternion -> rotation matrix, the
polygon count of curved meshes, surface sample points, and segment-against-box occlusion.

Pure numpy and no Blender, so the scenes, the Blender builder (`blender/build.py`) and the audit all import
the same definitions: a constant changed here changes what is simulated, rendered and checked alike.
"""

from __future__ import annotations

import numpy as np

G = 9.81  # m/s^2, the magnitude of gravity: analytic motion (kinematics) and thresholds in units of g
GRAVITY = np.array([0.0, 0.0, -G])  # the same as a vector, world z up: what Bullet simulates (Scene.gravity starts
# as this) and what the audit expects of free flight (gravity is not stored in the HDF5)

MESH_SEGMENTS = 32  # polygons round a curved surface (sphere, cylinder, cone, torus) in what Blender builds
# and Bullet simulates; the audit's support margin allows for a facet of this polygon (see solids.py)


def quat_to_matrix(q) -> np.ndarray:
    """Rotation matrices (..., 3, 3) (object frame to world) for quaternions (..., 4) w x y z. Not normalised
    here (the scenes write unit quaternions, and this keeps their poses bit for bit); normalise first where a
    quaternion was read back from a file."""
    q = np.asarray(q, float)
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


# ------------------------------------------------------------------------------------------- surface samples


def fibonacci_sphere(n: int) -> np.ndarray:
    """(n,3) points spread evenly over the unit sphere (a Fibonacci lattice)."""
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    return np.stack([np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], axis=1)


def box_surface(half, n: int = 11) -> np.ndarray:
    """Grid points (n per edge) on the six faces of a box with half extents `half` (corners and edges
    included), each point once, sorted lexicographically (x, then y, then z)."""
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
    return np.unique(np.concatenate(pts) * np.asarray(half, float), axis=0)


def revolution_surface(
    radius_at, z0: float, z1: float, n_angle: int = 64, n_z: int = 9, n_rings: int = 5
) -> np.ndarray:
    """Points on a solid of revolution about z with radius `radius_at(z)` between z0 and z1: `n_z` rings of
    `n_angle` points, plus `n_rings - 1` concentric rings (from the axis outward) on each flat cap."""
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


# ------------------------------------------------------------------------------------------- occlusion


def segments_hit_box(eye, points, center, rotation, half, end: float = 1.0) -> np.ndarray:
    """(N,) bool: does the segment from `eye` (3,) to each of `points` (N,3) pass through the oriented box
    (centre (3,), rotation matrix (3,3) box frame -> world, half extents (3,))? A slab test: the segment's
    parameter range inside the box, [entry, exit], must meet [0, end]; `end` slightly below 1 lets a point
    lying on the box's own face count as not hidden by it. Segments parallel to a pair of faces hit only if
    they run between them."""
    rotation = np.asarray(rotation, float)
    half = np.asarray(half, float)
    a = (np.asarray(eye, float) - center) @ rotation  # segment start in the box frame
    d = (np.asarray(points, float) - center) @ rotation - a  # (N,3) segment directions
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (-half - a) / d
        t1 = (half - a) / d
    parallel = np.abs(d) < 1e-12
    entry = np.where(parallel, -np.inf, np.minimum(t0, t1)).max(axis=1)
    exit_ = np.where(parallel, np.inf, np.maximum(t0, t1)).min(axis=1)
    outside = (parallel & (np.abs(a) > half)).any(axis=1)  # parallel to a slab and not between its faces
    return ~outside & (np.maximum(entry, 0.0) <= np.minimum(exit_, end))
