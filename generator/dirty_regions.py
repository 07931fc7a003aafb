"""Where a frame can differ from its scene's static background: one pixel rectangle per frame.

A Workbench frame (studio light, shadows, no anti-aliasing) is a function of the state of each object, and an
object that never changes pose, colour or visibility during a video draws the same pixels in every frame. So a
frame equals a background -- the static objects alone -- everywhere except where the changing ("dynamic")
objects are seen or cast their shadows:

- an object covers only pixels inside the projection of its bounding box;
- Workbench's shadow is a shadow volume along one fixed world direction (`shadow_direction`), so every point it
  darkens lies in the object's bounding box swept along that direction. A darkened pixel shows a surface: either
  of a dynamic object (inside that object's own rectangle) or of a static one, a receiver, and then the point lies
  in the part of the sweep within the receiver's bounding box. That part is the sweep cut to the range of sweep
  distances that reach the box (`_sweep_range`), and its pixels lie in the receiver's rectangle too. Along each
  axis the light moves on, that part also lies between the planes of the receiver's two faces across the axis,
  so in the hull of the box's corners slid along the light to both planes (`_slid`): on a flat receiver, a
  floor, the shadow's footprint, where the sweep's own hull reaches the box's height above it;
- each piece is a convex volume, whose projection is the convex hull of its corners' projections: the rectangle
  around them, widened by `MARGIN` pixels for rasterization at the rectangle's edge, bounds the pixels that can
  change;
- a piece that lies strictly beyond the far face of a solid static box, seen from the camera, is hidden wherever
  that face projects (`DirtyRegions._occluders`): a band of its rectangle inside the face's projection, by the
  margin, is cut off where what is left stays one rectangle (`_cut`).

The rule needs the camera to stay put (studio light moves with the view) and every corner to lie in front of the
camera; where either fails the frame's rectangle is the whole image, which is never wrong, only not cheaper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from voebench.generator.geometry import quat_to_matrix
from voebench.generator.scene import Scene

#: pixels added on every side of a projected rectangle: a triangle edge may cover a pixel whose centre lies within
#: rounding of the exact projection, and the corner arithmetic here is float64 where Blender's is float32
MARGIN = 2
#: the camera's near clip (build.build sets clip_start to it): a corner closer than this is not projected
NEAR = 0.05
#: an object's box is cut into SPLIT^3 pieces whose shadow volumes are bounded one by one (`DirtyRegions._object_rect`)
SPLIT = 2
#: a dynamic object whose longest side (in its own frame) is at least LONG times its next, turned off the world axes
#: at some frame (`_turned`), is bounded as SLABS boxes cut across that side (`slab_boxes`): a long turned object,
#: such as a tilting plank, has a world bounding box far larger than itself, while each slab's is close to the slab
#: (one not turned gains nothing: its slabs' boxes tile its own). Geometry only, fixed here
SLABS = 4
LONG = 2.0
#: a narrowed render's fixed cost, in pixels drawn: 5.0-5.2 ms a state for an 8x8 rectangle against 0.31-0.40 us
#: a pixel (`bench/render_dirty.py rect-cost`, t15 at 640x480, batched, BMP reads included): ~15,000 pixels,
#: rounded up. Fixed here, so which rectangles are drawn apart never depends on a timing (`merge_rects`)
RENDER_FIXED_PIXELS = 16_000
#: a dynamic object at rest over a stretch of its video is drawn into a background of its own there
#: (`DirtyRegions.rest`) where the stretch's renders times the object's rectangle reach this many whole images: a
#: background costs about one whole-frame render and its filter, a state at rest saves up to its rectangle. Fixed
#: here, so which objects rest never depends on a timing
REST_IMAGES = 2.0
#: whether a piece hidden behind a solid static box is cut from its rectangle (`DirtyRegions._occluders`); off only
#: for measurements against the rectangles before (bench/render_dirty.py occlude)
OCCLUDE = True
#: whether a shadow's rectangle on a receiver is also bounded by the sweep's part between the receiver's faces
#: (`_slid`); off only for measurements against the rectangles before (bench/render_dirty.py slide)
SLIDE = True


@dataclass(frozen=True)
class Rect:
    """Pixels [x0, x1) x [y0, y1) of an image, rows counted from the top. Empty when x0 >= x1 or y0 >= y1."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def empty(self) -> bool:
        return self.x0 >= self.x1 or self.y0 >= self.y1

    @property
    def area(self) -> int:
        return 0 if self.empty else (self.x1 - self.x0) * (self.y1 - self.y0)

    def grow(self, n: int, width: int, height: int) -> Rect:
        """This rectangle widened by n pixels on every side, clipped to the image."""
        if self.empty:
            return self
        return Rect(max(0, self.x0 - n), max(0, self.y0 - n), min(width, self.x1 + n), min(height, self.y1 + n))

    def union(self, other: Rect) -> Rect:
        if self.empty:
            return other
        if other.empty:
            return self
        return Rect(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))

    @property
    def slices(self) -> tuple[slice, slice]:
        """(rows, columns) to index an (H, W, ...) array with."""
        return slice(self.y0, self.y1), slice(self.x0, self.x1)


EMPTY = Rect(0, 0, 0, 0)
#: solid static boxes' far faces (`DirtyRegions._occluders`): axes (F,), planes (F,), sides (F,), pixels (F, 4)
Occluders = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def shadow_direction(light_direction) -> np.ndarray:
    """The world direction Workbench's shadows are cast along, from `scene.display.light_direction` (x, y, z).
    Workbench turns the stored vector into world space as (-x, z, -y) (its `shadow_direction_ws`, "more user
    friendly to control"); the default (0.577, 0.577, 0.577) casts shadows downwards, towards -x and +y."""
    x, y, z = (float(v) for v in light_direction)
    d = np.array([-x, z, -y])
    return d / np.linalg.norm(d)


def dynamic_objects(scene: Scene) -> list[str]:
    """Names of the objects whose pose, colour or visibility changes at some frame of the timeline."""
    out = []
    for name, o in scene.objects.items():
        arrays = (o.position, o.quaternion, o.color, o.visible)
        if any(not (np.asarray(a) == np.asarray(a)[:1]).all() for a in arrays):
            out.append(name)
    return out


def camera_moves(scene: Scene) -> bool:
    c = scene.cam
    return not ((c.position == c.position[:1]).all() and (c.look_at == c.look_at[:1]).all())


def world_corners(scene: Scene, name: str, local: np.ndarray) -> np.ndarray:
    """(T, N, 3) world positions of an object's local points (N, 3) at every frame."""
    o = scene.objects[name]
    rot = quat_to_matrix(o.quaternion)  # (T, 3, 3)
    return np.einsum("tij,kj->tki", rot, local) + np.asarray(o.position, float)[:, None, :]


class DirtyRegions:
    """The rectangle of every frame outside which it equals the background of the static objects.

    `local_corners`: name -> (N, 3) points of each object's mesh in its own frame whose convex hull holds the mesh
    (its vertices: a turned sphere's box stays tight; or the 8 corners of Blender's `Object.bound_box`).
    `rect(t)` is `EMPTY` where no dynamic object is visible, the whole image where the rule cannot bound the frame
    (see the module docstring)."""

    def __init__(
        self,
        scene: Scene,
        local_corners: dict[str, np.ndarray],
        light_direction,
        width: int,
        height: int,
        margin: int = MARGIN,
        resting: dict[str, int] | None = None,
    ):
        resting = resting or {}
        self._args = (scene, local_corners, light_direction, width, height, margin)
        self.width, self.height, self.margin = width, height, margin
        self.full = Rect(0, 0, width, height)
        self.dynamic = [n for n in dynamic_objects(scene) if n not in resting]
        self.camera_moves = camera_moves(scene)
        self.direction = shadow_direction(light_direction)
        self.intrinsics = scene.cam.intrinsics(width, height)
        self.extrinsics = np.linalg.inv(scene.cam.cam_to_world(0))
        self.corners = {n: world_corners(scene, n, np.asarray(local_corners[n], float)) for n in self.dynamic}
        # per long dynamic object: (T, SLABS, 8, 3) world corners of its slabs (`slab_boxes`)
        self.slabs: dict[str, np.ndarray] = {}
        for n in self.dynamic:
            local = np.asarray(local_corners[n], float)
            boxes = slab_boxes(local)
            if len(boxes) > 1 and _turned(self.corners[n], local):
                self.slabs[n] = world_corners(scene, n, boxes.reshape(-1, 3)).reshape(-1, len(boxes), 8, 3)
        self.visible = {n: np.asarray(scene.objects[n].visible, bool) for n in self.dynamic}
        # the receivers: every static object that is drawn, as its world axis-aligned box and that box's rectangle
        # (a resting object at its pose over the rest, frame `resting[name]`)
        lo, hi, rects, solid = [], [], [], []
        for name, corners in local_corners.items():
            o = scene.objects[name]
            at = resting.get(name, 0)
            if name in self.dynamic or not o.visible[at]:
                continue
            c = world_corners(scene, name, np.asarray(corners, float))[at]
            lo.append(c.min(0))
            hi.append(c.max(0))
            rects.append(self._project(_box_corners(c.min(0), c.max(0))))
            # a box whose world bounding box is itself (not turned off the axes) fills its bounding box (1e-5: the
            # mesh's float32 vertices)
            solid.append(o.shape == "box" and np.prod(c.max(0) - c.min(0)) <= np.prod(o.dimensions) * (1 + 1e-5))
        self.receivers = (np.array(lo).reshape(-1, 3), np.array(hi).reshape(-1, 3), rects)
        self.solid = np.array(solid, bool)
        self.eye = np.asarray(scene.cam.position[0], float)
        self.occluders = self._occluders() if OCCLUDE else None
        self._receiver_rects = np.array([[r.x0, r.y0, r.x1, r.y1] for r in rects], int).reshape(-1, 4)
        self._rects: dict[int, Rect] = {}  # rect(t) by t, computed once
        self._parts: dict[int, list[Rect]] = {}  # rects(t) by t
        self._each: dict[int, list[Rect]] = {}  # _object_rects(t) by t
        self._rest_start: dict[str, np.ndarray] | None = None  # per dynamic object: its rest's first frame, or -1
        self._views: dict[tuple[tuple[str, int], ...], DirtyRegions] = {}

    def rest(self, t: int) -> tuple[tuple[str, int], ...]:
        """The dynamic objects that frame t's background holds, as (name, the first frame of its rest), in the
        objects' order: each visible one whose pose, colour and visibility stay as at t over a run of timeline
        frames (its rest) in which the frames where some dynamic object changes, times the object's rectangle at
        rest, reach `REST_IMAGES` whole images. A pure function of the scene's timeline and geometry (the same
        whatever draws it, whichever states are asked); `()` where the camera moves."""
        if self.camera_moves:
            return ()
        if self._rest_start is None:
            self._rest_start = self._rests()
        return tuple((n, int(a[t])) for n, a in self._rest_start.items() if a[t] >= 0)

    def _rests(self) -> dict[str, np.ndarray]:
        """Per dynamic object, each timeline frame's rest start (`rest`), -1 where it does not rest."""
        scene = self._args[0]
        n_frames = len(next(iter(self.corners.values()))) if self.corners else 0
        same = {}  # per object: frame t+1's pose, colour and visibility equal frame t's
        for name in self.dynamic:
            o = scene.objects[name]
            eq = np.ones(max(n_frames - 1, 0), bool)
            for values in (o.position, o.quaternion, o.color, o.visible):
                arr = np.asarray(values).reshape(n_frames, -1)
                eq &= (arr[1:] == arr[:-1]).all(1)
            same[name] = eq
        renders = np.zeros(n_frames, bool)  # frames where some dynamic object differs from the frame before
        for eq in same.values():
            renders[1:] |= ~eq
        before = np.concatenate([[0], np.cumsum(renders)])  # renders among frames < t
        out = {}
        for name in self.dynamic:
            start = np.full(n_frames, -1, int)
            cuts = [0, *(np.flatnonzero(~same[name]) + 1).tolist(), n_frames]  # its runs of equal states
            for first, end in zip(cuts[:-1], cuts[1:]):
                count = 1 + int(before[end] - before[first + 1])  # the run's first frame and its later renders
                if count < REST_IMAGES or not self.visible[name][first]:  # (no rectangle exceeds the image)
                    continue
                if count * self.own_rect(name, first).area >= REST_IMAGES * self.full.area:
                    start[first:end] = first
            out[name] = start
        return out

    def view(self, resting: tuple[tuple[str, int], ...]) -> DirtyRegions:
        """The regions of the frames whose background holds the objects `resting` (from `rest`): those objects are
        receivers at their pose at rest, not dynamic. Made once per key."""
        if not resting:
            return self
        hit = self._views.get(resting)
        if hit is None:
            scene, corners, light, w, h, margin = self._args
            hit = self._views[resting] = DirtyRegions(scene, corners, light, w, h, margin, dict(resting))
        return hit

    def rect(self, t: int) -> Rect:
        """The one rectangle outside which frame t equals the background: the union of every visible dynamic
        object's rectangle (`EMPTY` where none is visible, the whole image where the camera moves)."""
        if self.camera_moves:
            return self.full
        hit = self._rects.get(t)
        if hit is not None:
            return hit
        out = EMPTY
        for part in self._object_rects(t):
            out = out.union(part)
        self._rects[t] = out
        return out

    def rects(self, t: int) -> list[Rect]:
        """Frame t's rectangles drawn apart: each visible dynamic object's own (its shadows included), merged where
        they overlap or where one draw of their union costs no more than two (`merge_rects`). Their union is
        `rect(t)`; none overlap; `[]` where no dynamic object is visible, `[full]` where the camera moves. A pure
        function of the state and the geometry, in the objects' order (the first object of a merged rectangle
        places it), so the same rectangles whatever draws them, and slot by slot stable as objects move."""
        if self.camera_moves:
            return [self.full]
        hit = self._parts.get(t)
        if hit is None:
            hit = self._parts[t] = merge_rects(self._object_rects(t))
        return hit

    def _object_rects(self, t: int) -> list[Rect]:
        """Each visible dynamic object's rectangle at frame t (its shadows included), in the objects' order."""
        hit = self._each.get(t)
        if hit is None:
            hit = self._each[t] = [self.own_rect(n, t) for n in self.corners if self.visible[n][t]]
        return hit

    def own_rect(self, name: str, t: int) -> Rect:
        """Dynamic object `name`'s rectangle at frame t, its shadows included: `_object_rect` of its world box, or
        for a long object (`self.slabs`) of its slabs' boxes, each cut to the object's world box (the object's
        part in a slab lies in both)."""
        return self._boxes_rect(*self._boxes(name, t))

    def _boxes(self, name: str, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi), each (B, 3): world boxes whose union holds dynamic object `name` at frame t -- its world box
        (B = 1), or each of its slabs' world boxes cut to that box (B = SLABS)."""
        c = self.corners[name][t]
        lo, hi = c.min(0), c.max(0)
        slabs = self.slabs.get(name)
        if slabs is None:
            return lo[None], hi[None]
        return np.maximum(slabs[t].min(1), lo), np.minimum(slabs[t].max(1), hi)

    def object_rect(self, t: int) -> Rect:
        """The pixels the visible dynamic objects themselves can cover at frame t, shadows left out: where depth and
        segmentation (which see surfaces, not light) can differ from the static objects'. `EMPTY` where none is
        visible, the whole image where the camera moves."""
        if self.camera_moves:
            return self.full
        out = EMPTY
        for name in self.corners:
            if self.visible[name][t]:
                blo, bhi = self._boxes(name, t)
                for b in range(len(blo)):
                    out = out.union(self._project(_box_corners(blo[b], bhi[b])))
        return out

    def _project(self, pts: np.ndarray) -> Rect:
        """The rectangle of pixels the convex hull of world points `pts` can touch (the whole image when a point
        lies behind the camera's near plane)."""
        (x0, y0, x1, y1), behind = self._project_many(pts[None])
        if behind[0]:
            return self.full
        r = Rect(int(x0[0]), int(y0[0]), int(x1[0]), int(y1[0]))
        return r if not r.empty else EMPTY

    def _project_many(self, pts: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """For M hulls of world points `pts` (M, N, 3): the (x0, y0, x1, y1) pixel bounds of each (widened by the
        margin, clipped to the image; x0 >= x1 or y0 >= y1 where it misses the image) and whether a point lies
        behind the near plane. A rectangle is the same bits on every machine and however many hulls are projected
        at once (`_uv`)."""
        u, v, behind_pts = self._uv(pts)
        behind = behind_pts.any(axis=1)  # those hulls' bounds are not used
        x0 = np.maximum(0, np.floor(u.min(1)).astype(int) - self.margin)
        y0 = np.maximum(0, np.floor(v.min(1)).astype(int) - self.margin)
        x1 = np.minimum(self.width, np.ceil(u.max(1)).astype(int) + self.margin)
        y1 = np.minimum(self.height, np.ceil(v.max(1)).astype(int) + self.margin)
        return (x0, y0, x1, y1), behind

    def _uv(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pixel coordinates u, v of world points `pts` (..., 3), and where each lies behind the near plane (its u, v
        then meaningless). Spelled out as elementwise products and sums in a fixed order (no matrix product, whose
        rounding may depend on the BLAS build and the array's shape), so they are the same bits on every machine."""
        e, k = self.extrinsics, self.intrinsics
        x, y, z = pts[..., 0], pts[..., 1], pts[..., 2]
        cx, cy, cz = (x * e[i, 0] + y * e[i, 1] + z * e[i, 2] + e[i, 3] for i in range(3))
        behind = cz <= NEAR
        cz = np.where(behind, 1.0, cz)
        u = (cx * k[0, 0] + cy * k[0, 1] + cz * k[0, 2]) / cz
        v = (cx * k[1, 0] + cy * k[1, 1] + cz * k[1, 2]) / cz
        return u, v, behind

    def _object_rect(self, corners: np.ndarray) -> Rect:
        """The object's own rectangle and, for every receiver its shadow volume can reach, the rectangle of the
        part of that volume within the receiver's box (intersected with the receiver's own rectangle). The volume
        is bounded piece by piece (`SPLIT`): the object's box cut into SPLIT^3 boxes, each swept on its own (the
        object lies in their union, so its shadow volume in the union of their sweeps), since a piece's rays are
        far more often all caught by one solid box (`_sweep_cap`) than the whole box's. All pieces and receivers
        are bounded at once (numpy over pieces x receivers)."""
        return self._boxes_rect(corners.min(0)[None], corners.max(0)[None])

    def _boxes_rect(self, blo: np.ndarray, bhi: np.ndarray) -> Rect:
        """`_object_rect` of an object that lies in the union of world boxes [blo, bhi] (B, 3): the union of their
        rectangles, each box's shadow volume bounded piece by piece as one box's."""
        own = _box_corners_many(np.asarray(blo, float), np.asarray(bhi, float))  # (B, 8, 3)
        (x0, y0, x1, y1), behind = self._project_many(own)
        x0, y0 = np.where(behind, 0, x0), np.where(behind, 0, y0)  # the whole image
        x1, y1 = np.where(behind, self.width, x1), np.where(behind, self.height, y1)
        out = self._union_of(own, x0, y0, x1, y1, ~behind)
        lo, hi, _ = self.receivers
        if not len(lo):
            return out
        d = self.direction
        pieces = [piece for b in range(len(blo)) for piece in _pieces(blo[b], bhi[b], SPLIT)]
        plo, phi = (np.array(a) for a in zip(*pieces))  # (P, 3) each
        s0, s1 = _sweep_range(plo, phi, d, lo, hi)  # (P, K)
        s1 = np.minimum(s1, _sweep_cap_many(plo, phi, d, lo[self.solid], hi[self.solid])[:, None])
        p, i = np.nonzero(s0 <= s1)
        if not len(p):
            return out
        box = _box_corners_many(plo[p], phi[p])  # (M, 8, 3)
        pts = np.concatenate([box + (s0[p, i, None] * d)[:, None, :], box + (s1[p, i, None] * d)[:, None, :]], 1)
        (x0, y0, x1, y1), behind = self._project_many(pts)
        x0, y0 = np.where(behind, 0, x0), np.where(behind, 0, y0)
        x1, y1 = np.where(behind, self.width, x1), np.where(behind, self.height, y1)
        rr = self._receiver_rects[i]  # intersected with the receiver's own rectangle
        x0, y0 = np.maximum(x0, rr[:, 0]), np.maximum(y0, rr[:, 1])
        x1, y1 = np.minimum(x1, rr[:, 2]), np.minimum(y1, rr[:, 3])
        if SLIDE:  # and with the rectangles of the sweep's part between the receiver's faces (`_slid`)
            slid = _slid(box, lo[i], hi[i], d)  # (A, M, 16, 3)
            (a0, b0, a1, b1), off = self._project_many(slid.reshape(-1, *slid.shape[2:]))
            off = off.reshape(slid.shape[:2])  # a hull with a point behind the near plane bounds nothing
            x0 = np.maximum(x0, np.where(off, 0, a0.reshape(off.shape)).max(0))
            y0 = np.maximum(y0, np.where(off, 0, b0.reshape(off.shape)).max(0))
            x1 = np.minimum(x1, np.where(off, self.width, a1.reshape(off.shape)).min(0))
            y1 = np.minimum(y1, np.where(off, self.height, b1.reshape(off.shape)).min(0))
        return out.union(self._union_of(pts, x0, y0, x1, y1, ~behind))

    def _union_of(self, pts: np.ndarray, x0, y0, x1, y1, may: np.ndarray) -> Rect:
        """The union of M hulls' rectangles (x0, y0, x1, y1), each (M,), with the pixels hidden behind a solid
        static box cut off (`_cull`) where `may` (M,) holds (not for a hull with a point behind the near plane,
        whose rectangle is the whole image). `pts` (M, N, 3): the hulls' world points."""
        if self.occluders is not None:
            x0, y0, x1, y1 = _cull(pts, x0, y0, x1, y1, may, self.occluders)
        keep = (x0 < x1) & (y0 < y1)
        if not keep.any():
            return EMPTY
        return Rect(int(x0[keep].min()), int(y0[keep].min()), int(x1[keep].max()), int(y1[keep].max()))

    def _occluders(self) -> Occluders | None:
        """The solid static boxes' far faces that hide what lies beyond them, as (axis, plane, side, pixels): the
        camera sees a solid box B (it fills its world bounding box [lo, hi]) from outside its slab along `axis`, say
        eye < lo there; the face of B at hi is B's far face, on the plane x_axis = hi (side +1; side -1 and the lo
        face where eye > hi). A ray through a pixel inside that face's projection crosses the plane inside the
        face, so inside B, before it reaches any point strictly beyond the plane (side * (x - plane) > 0): such a
        point is never what that pixel shows, and neither its colour nor its shadow on it there matters (a shadow
        on B's own surface is bounded with B as a receiver, inside B's box, not beyond the plane). `pixels`: an
        axis-aligned rectangle inside the face's projection (a convex quad: perspective keeps it convex) by `margin`
        on every side, for rasterization at its edge (`_inside`). Only boxes wholly in front of the near plane (a ray
        enters one through a face that is drawn, not clipped) and faces with a non-empty rectangle, as arrays (axes,
        planes, sides, rectangles (F, 4)); None where there is none."""
        lo, hi, _ = self.receivers
        out = []
        for k in np.flatnonzero(self.solid):
            if self._project_many(_box_corners(lo[k], hi[k])[None])[1][0]:
                continue  # a corner behind the near plane: the box's near faces may be clipped, so not solid there
            for axis in range(3):
                if self.eye[axis] < lo[k, axis]:
                    plane, side = float(hi[k, axis]), 1.0
                elif self.eye[axis] > hi[k, axis]:
                    plane, side = float(lo[k, axis]), -1.0
                else:
                    continue
                a, b = [j for j in range(3) if j != axis]
                quad = np.empty((4, 3))
                quad[:, axis] = plane
                quad[:, a] = [lo[k, a], hi[k, a], hi[k, a], lo[k, a]]  # in order around the face
                quad[:, b] = [lo[k, b], lo[k, b], hi[k, b], hi[k, b]]
                r = self._inside(quad)
                if not r.empty:
                    out.append((axis, plane, side, (r.x0, r.y0, r.x1, r.y1)))
        if not out:
            return None
        axes, planes, sides, rects = zip(*out)
        return np.array(axes, int), np.array(planes), np.array(sides), np.array(rects, int).reshape(-1, 4)

    def _inside(self, quad: np.ndarray) -> Rect:
        """Pixels [x0, x1) x [y0, y1) whose every point lies inside the projection of the planar convex quad `quad`
        (4, 3 world points in order around it) at least `margin` pixels from its edges, clipped to the image;
        EMPTY where none is found or a corner lies behind the near plane. The rows: between the quad's second
        smallest and second largest v, cut to the image (plus a pixel beyond the margin: the quad's edges beyond the
        image do not matter); the columns: where every row between those holds them. A convex polygon's row at v
        spans [L(v), R(v)] with L convex and R concave, so over the rows [b0, b1] the columns [max(L(b0), L(b1)),
        min(R(b0), R(b1))] lie inside. Shrunk by the margin, every point of the rectangle has a square of that
        half-side around it inside the quad."""
        u, v, behind = self._uv(quad)
        if behind.any():
            return EMPTY
        m = self.margin
        vs = np.sort(v)
        b0, b1 = max(float(vs[1]), -m - 1.0), min(float(vs[2]), self.height + m + 1.0)
        if not b0 < b1:
            return EMPTY
        spans = [_row_span(u, v, c) for c in (b0, b1)]
        a0, a1 = max(sp[0] for sp in spans), min(sp[1] for sp in spans)
        r = Rect(
            max(0, math.ceil(a0) + m),
            max(0, math.ceil(b0) + m),
            min(self.width, math.floor(a1) - m),
            min(self.height, math.floor(b1) - m),
        )
        return r if not r.empty else EMPTY


def _row_span(u: np.ndarray, v: np.ndarray, c: float) -> tuple[float, float]:
    """[L, R]: where the row v = c crosses the convex polygon with vertices (u, v) in order ((inf, -inf) where it
    misses it)."""
    hits = []
    for i in range(len(u)):
        j = (i + 1) % len(u)
        if v[i] == v[j]:
            if v[i] == c:
                hits += [float(u[i]), float(u[j])]
        elif min(v[i], v[j]) <= c <= max(v[i], v[j]):
            hits.append(float(u[i] + (c - v[i]) * (u[j] - u[i]) / (v[j] - v[i])))
    return (min(hits), max(hits)) if hits else (math.inf, -math.inf)


def merge_rects(rects: list[Rect], fixed_pixels: int = RENDER_FIXED_PIXELS) -> list[Rect]:
    """Rectangles to draw apart, from `rects` (in order; empty ones dropped): two are replaced by their union (at
    the first one's place) where they overlap, or where the union's area is at most their areas plus a render's
    fixed cost in pixels (one draw of it costs no more than two), until no pair is left to merge. Each result is
    the union of some of `rects`, so together they cover the same pixels; none overlap. Pure: the same input
    gives the same rectangles, in the same order."""
    out = [r for r in rects if not r.empty]
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                u = a.union(b)
                if not _intersect(a, b).empty or u.area <= a.area + b.area + fixed_pixels:
                    out[i] = u
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def slab_boxes(local: np.ndarray, slabs: int | None = None, long: float = LONG) -> np.ndarray:
    """(K, 8, 3) corners, in an object's own frame, of boxes whose union holds its points `local` (N, 3): their
    bounding box cut into `slabs` equal boxes across its longest side where that side is at least `long` times the
    next longest, else the bounding box whole (K = 1). `slabs` None: `SLABS`."""
    slabs = SLABS if slabs is None else slabs
    lo, hi = local.min(0), local.max(0)
    ext = hi - lo
    order = np.argsort(-ext, kind="stable")
    if slabs < 2 or not ext[order[0]] >= long * ext[order[1]]:
        return _box_corners(lo, hi)[None]
    a = int(order[0])
    edges = np.linspace(lo[a], hi[a], slabs + 1)  # its ends are lo and hi exactly
    out = []
    for k in range(slabs):
        slo, shi = lo.copy(), hi.copy()
        slo[a], shi[a] = edges[k], edges[k + 1]
        out.append(_box_corners(slo, shi))
    return np.array(out)


def _turned(world: np.ndarray, local: np.ndarray) -> bool:
    """Whether an object's points, `local` (N, 3) in its own frame and `world` (T, N, 3) at each frame, lie turned off
    the world axes at some frame: the sides of a box's world bounding box sum to more than its own sides do unless
    each of its axes lies along a world axis (a rotation's columns are unit vectors, whose absolute entries sum to at
    least 1, to exactly 1 only along an axis)."""
    own = float((local.max(0) - local.min(0)).sum())
    return bool(((world.max(1) - world.min(1)).sum(1) > own * (1 + 1e-6)).any())


def _pieces(lo: np.ndarray, hi: np.ndarray, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The box [lo, hi] cut into n x n x n boxes (whose union is the box)."""
    edges = [np.linspace(lo[i], hi[i], n + 1) for i in range(3)]  # its ends are lo and hi exactly
    return [
        (
            np.array([edges[0][a], edges[1][b], edges[2][c]]),
            np.array([edges[0][a + 1], edges[1][b + 1], edges[2][c + 1]]),
        )
        for a in range(n)
        for b in range(n)
        for c in range(n)
    ]


def _box_corners(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])


def _box_corners_many(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """(M, 8, 3) corners of boxes [lo, hi] (M, 3), in `_box_corners`' order."""
    pick = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)])  # 0: lo, 1: hi, per axis
    return np.where(pick[None] == 0, lo[:, None, :], hi[:, None, :])


def _cull(pts: np.ndarray, x0, y0, x1, y1, may: np.ndarray, occluders: Occluders):
    """Hull rectangles (x0, y0, x1, y1), each (M,), with the pixels of each occluder (`DirtyRegions._occluders`)
    that the hull lies strictly beyond cut off, where what is left is a rectangle: an occluder spanning a hull's
    rectangle across one side takes that band off (across both: the hull is hidden, left empty); one in its middle
    takes nothing (the rectangle stays one rectangle). Occluders in their order, so a pure function of the
    geometry. Only hulls where `may` (M,) holds are cut (not one with a point behind the near plane). `pts` (M, N,
    3): the hulls' world points."""
    axes, planes, sides, rects = occluders
    x0, y0, x1, y1 = (np.array(a, dtype=int) for a in (x0, y0, x1, y1))
    # (M, F): the hull lies beyond the face, and the face's pixels meet its rectangle (else a cut takes nothing)
    meet = (rects[:, 0] < x1[:, None]) & (x0[:, None] < rects[:, 2]) & (rects[:, 1] < y1[:, None])
    meet &= (y0[:, None] < rects[:, 3]) & np.asarray(may, bool)[:, None]
    beyond = meet & ((pts[:, :, axes] - planes) * sides > 0).all(axis=1)
    hit = np.flatnonzero(beyond.any(axis=1))
    if not len(hit):
        return x0, y0, x1, y1
    boxes = rects.tolist()  # (plain ints: a few cuts per hull, cheaper than numpy on scalars)
    for m, row in zip(hit.tolist(), beyond[hit].tolist()):
        r = (int(x0[m]), int(y0[m]), int(x1[m]), int(y1[m]))
        for f, b in enumerate(row):
            if b:
                r = _cut(r, boxes[f])
        x0[m], y0[m], x1[m], y1[m] = r
    return x0, y0, x1, y1


def _cut(r: tuple[int, int, int, int], o: list[int]) -> tuple[int, int, int, int]:
    """Rectangle r = [x0, y0, x1, y1] less the pixels of rectangle o where what is left is one rectangle: the band
    o covers across r's width (rows) or height (columns) taken off its top or bottom (left or right) end; all of
    r where o holds it; r as it is otherwise."""
    x0, y0, x1, y1 = r
    ox0, oy0, ox1, oy1 = o
    if ox0 <= x0 and x1 <= ox1:  # spans its width: cut rows
        if oy0 <= y0 < oy1:
            y0 = min(max(y0, oy1), y1)
        if oy0 < y1 <= oy1:
            y1 = max(min(y1, oy0), y0)
    if oy0 <= y0 and y1 <= oy1 and y0 < y1:  # spans its height: cut columns
        if ox0 <= x0 < ox1:
            x0 = min(max(x0, ox1), x1)
        if ox0 < x1 <= ox1:
            x1 = max(min(x1, ox0), x0)
    return x0, y0, x1, y1


def _intersect(a: Rect, b: Rect) -> Rect:
    r = Rect(max(a.x0, b.x0), max(a.y0, b.y0), min(a.x1, b.x1), min(a.y1, b.y1))
    return EMPTY if r.empty else r


def _sweep_range(blo, bhi, d, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """For the box [blo, bhi] swept along d (s >= 0) and receiver boxes [lo, hi] (K, 3): the range [s0, s1] of s
    outside which no swept point lies in each receiver (s0 > s1: the sweep misses it). Along an axis where d_i > 0
    a point p_i + s d_i is in [lo_i, hi_i] for some p_i in [blo_i, bhi_i] only if s is in
    [(lo_i - bhi_i) / d_i, (hi_i - blo_i) / d_i] (the bounds swap where d_i < 0). blo, bhi may also be (P, 3),
    P boxes at once: then s0, s1 are (P, K)."""
    blo, bhi = np.asarray(blo, float), np.asarray(bhi, float)
    shape = blo.shape[:-1] + (len(lo),)
    s0 = np.zeros(shape)
    s1 = np.full(shape, np.inf)
    for i in range(3):
        bl, bh = blo[..., None, i], bhi[..., None, i]
        if abs(d[i]) < 1e-12:
            miss = (bh < lo[:, i]) | (bl > hi[:, i])
            s1[miss] = -np.inf
            continue
        a, b = (lo[:, i] - bh) / d[i], (hi[:, i] - bl) / d[i]
        s0 = np.maximum(s0, np.minimum(a, b))
        s1 = np.minimum(s1, np.maximum(a, b))
    return s0, s1


def _slid(box: np.ndarray, lo: np.ndarray, hi: np.ndarray, d) -> np.ndarray:
    """Hulls that hold the part of each box's shadow volume inside its receiver: boxes `box` (M, 8, 3) corners swept
    along d, receivers [lo, hi] (M, 3) each. A swept point q = p + s d (p in the box) inside the receiver has q_a in
    [lo_a, hi_a] along each axis a with d_a != 0, so it lies on the segment between the points where p's ray
    crosses the planes x_a = lo_a and x_a = hi_a; for a fixed plane that crossing is an affine function of p, so the
    crossings of all the box's rays are the hull of its 8 corners' crossings. Returns (A, M, 16, 3): per such axis
    (A of them) the corners slid to both planes. Where a receiver is thin across an axis (a floor), its hull is the
    shadow's footprint on it, where the sweep's own hull (the box where it enters the receiver and where it leaves)
    reaches the box's height above it. Elementwise arithmetic only, so the same bits on every machine."""
    d = np.asarray(d, float)
    out = []
    for a in range(3):
        if abs(d[a]) < 1e-12:
            continue
        planes = np.concatenate([np.repeat(lo[:, None, a], 8, 1), np.repeat(hi[:, None, a], 8, 1)], 1)  # (M, 16)
        corners = np.concatenate([box, box], 1)  # (M, 16, 3)
        out.append(corners + ((planes - corners[..., a]) / d[a])[..., None] * d)
    return np.stack(out)  # d is a unit vector (`shadow_direction`): at least one axis


def _sweep_cap(blo, bhi, d, lo, hi) -> float:
    """How far the sweep of box [blo, bhi] along d can change a pixel, given solid boxes [lo, hi] (K, 3): where every
    ray of the sweep enters one solid box B (through any face), each point further along is inside B or past it, in
    B's own shadow volume, so shadowed in the background too (Workbench's shadow is on or off, not a count). Past
    the largest entry distance nothing changes. Along each axis a ray's entry into B's slab is an affine function of
    its start (which bound it meets first depends only on the sign of d), so its entry into B, the largest of them,
    is convex, its exit concave, and the starts whose rays hit B form a convex set: when the 8 corners' rays hit B
    (strictly: a grazing ray does not count), every ray does, and the largest entry distance is a corner's. inf
    where no box catches every ray."""
    return float(_sweep_cap_many(np.asarray(blo, float)[None], np.asarray(bhi, float)[None], d, lo, hi)[0])


def _sweep_cap_many(blo: np.ndarray, bhi: np.ndarray, d, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """`_sweep_cap` of P boxes [blo, bhi] (P, 3) at once: (P,)."""
    if not len(lo):
        return np.full(len(blo), np.inf)
    c = _box_corners_many(blo, bhi)  # (P, 8, 3)
    enter = np.zeros((len(blo), len(lo), 8))  # a corner inside B enters it at once
    leave = np.full((len(blo), len(lo), 8), np.inf)
    for i in range(3):
        ci = c[:, None, :, i]  # (P, 1, 8)
        if abs(d[i]) < 1e-12:
            inside = (ci > lo[None, :, None, i]) & (ci < hi[None, :, None, i])
            leave = np.where(inside, leave, -np.inf)
            continue
        a, b = (lo[None, :, None, i] - ci) / d[i], (hi[None, :, None, i] - ci) / d[i]
        enter = np.maximum(enter, np.minimum(a, b))
        leave = np.minimum(leave, np.maximum(a, b))
    ok = (enter < leave).all(axis=2)  # (P, K): every corner's ray enters box K
    return np.where(ok, enter.max(axis=2), np.inf).min(axis=1)
