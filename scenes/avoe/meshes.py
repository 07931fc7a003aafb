"""Meshes of AVoE's containers, built as vertex and face lists (the `mesh` of a Scene object, which Blender
builds and Bullet simulates with its exact MESH collision shape): an open-topped box and a mug with a handle.

Pure numpy; the origin of each mesh is given in its docstring (the caller re-centres it on its bounding box).
"""

from __future__ import annotations

import numpy as np

Mesh = tuple[np.ndarray, list[tuple[int, ...]]]  # (V,3) vertices, faces as vertex-index tuples


def open_box_mesh(X: float, Y: float, Z: float, t: float) -> Mesh:
    """An open-topped box (outer X x Y x Z, walls t) as one closed mesh, origin at its bounding-box centre."""
    verts: list[tuple[float, ...]] = []
    faces: list[tuple[int, ...]] = []

    def block(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> None:
        base = len(verts)
        verts.extend([(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)])
        for f in ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)):
            faces.append(tuple(base + i for i in f))

    x, y, z = X / 2, Y / 2, Z / 2
    block(-x, x, -y, y, -z, -z + t)  # floor
    block(-x, -x + t, -y, y, -z + t, z)
    block(x - t, x, -y, y, -z + t, z)
    block(-x + t, x - t, -y, -y + t, -z + t, z)
    block(-x + t, x - t, y - t, y, -z + t, z)
    return np.array(verts, float), faces


def mug_mesh(R: float, Z: float, t: float, n: int = 32) -> Mesh:
    """A mug: a hollow cylinder (outer radius R, height Z, walls t) with a floor and a handle on its left
    back; origin at the cup's centre (the handle sticks out beyond the cup's radius)."""
    verts: list[tuple[float, ...]] = []
    faces: list[tuple[int, ...]] = []
    ang = 2 * np.pi * np.arange(n) / n
    z0, z1, zf = -Z / 2, Z / 2, -Z / 2 + t

    def ring(r: float, z: float) -> int:
        base = len(verts)
        verts.extend([(r * np.cos(a), r * np.sin(a), z) for a in ang])
        return base

    ob, ot, it, ib = ring(R, z0), ring(R, z1), ring(R - t, z1), ring(R - t, zf)
    for i in range(n):
        j = (i + 1) % n
        faces += [(ob + i, ob + j, ot + j, ot + i), (ot + i, ot + j, it + j, it + i), (it + i, it + j, ib + j, ib + i)]
    cb, cf = len(verts), len(verts) + 1
    verts += [(0.0, 0.0, z0), (0.0, 0.0, zf)]
    for i in range(n):
        j = (i + 1) % n
        faces += [(cb, ob + j, ob + i), (cf, ib + i, ib + j)]
    # handle: a half ring of a tube in the vertical plane through the cup's axis at angle 150 deg
    phi = np.radians(150.0)
    d = np.array([np.cos(phi), np.sin(phi), 0.0])
    rh, tube, m = 0.3 * Z, 0.12 * min(R, Z / 2) + 0.03, 12
    start = len(verts)
    k = 8
    for i in range(m + 1):
        u = -np.pi / 2 + np.pi * i / m
        c = d * (R - t / 2 + rh * np.cos(u)) + np.array([0, 0, rh * np.sin(u)])
        tangent = d * (-np.sin(u)) + np.array([0, 0, np.cos(u)])
        side = np.cross(tangent, (0, 0, 1)) if abs(tangent[2]) < 0.99 else np.cross(tangent, d)
        side /= np.linalg.norm(side)
        up = np.cross(side, tangent)
        for jj in range(k):
            v = 2 * np.pi * jj / k
            verts.append(tuple(c + tube * (np.cos(v) * side + np.sin(v) * up)))
    for i in range(m):
        for jj in range(k):
            a, b = start + i * k + jj, start + i * k + (jj + 1) % k
            faces.append((a, b, b + k, a + k))
    return np.array(verts, float), faces
