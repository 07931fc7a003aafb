"""Contact geometry between two written tracks: the signed gap and push normal per frame (`pair_geometry`), the
contact points at one frame (`contact_points`), and which frames are worth evaluating (`near_frames`,
`frame_steps`: how far an object moves per frame, since collisions happen between frames)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voebench.generator.solids import Track, into_frame_of


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
    pa = into_frame_of(a, b, a.shape.samples, f)  # a's surface in b's frame
    da = b.shape.sdf(pa)
    pb = into_frame_of(b, a, b.shape.samples, f)  # b's surface in a's frame
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


def contact_points(a: Track, b: Track, t: int, tol: float):
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


def near_frames(a: Track, b: Track, margin: np.ndarray | float) -> np.ndarray:
    """Frames where both exist and their bounding spheres come within `margin`."""
    d = np.linalg.norm(a.position + a.rot @ a.shape.com - b.position - b.rot @ b.shape.com, axis=1)
    reach = a.shape.radius + np.linalg.norm(a.shape.com) + b.shape.radius + np.linalg.norm(b.shape.com)
    return np.flatnonzero(a.visible & b.visible & (d <= reach + margin))


def frame_steps(tr: Track, before: int = 1) -> np.ndarray:
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
