"""RGB frames drawn as a cached background plus the one rectangle that changed (`RenderSettings(render_path="dirty")`).

A video's static objects are drawn once, alone, at full size (the background). For each distinct state,
Workbench draws only the frame's dirty rectangle (`voebench.generator.dirty_regions`: where dynamic objects and
their shadows can be), which is pasted into a copy of the background.

How the rectangle is drawn: as a small image of its own, not as a border render. Blender's border render
(`use_border` + `use_crop_to_border`) draws the whole frame and crops it: a 4x4 border of a 640x480 frame cost
as much as the full frame (bench/render_dirty.py, docs/performance.md). Instead the camera is narrowed to the
rectangle: resolution = the rectangle's size, the vertical angle shrunk by h / H and the lens shifted to its
centre (Blender's view plane for a VERTICAL sensor fit is `shift * h` pixels off centre with `tan(angle / 2)`
spread over h / 2 pixels), so each pixel sees the same ray as in the full frame. The view matrix is untouched, so
studio light and shadows are the same. The projection is the full one composed with a crop, rounded differently
in float32: at a few pixels a triangle edge falls on the other side of a pixel centre (a surface swaps with its
neighbour there). tests/generator/test_dirty.py bounds how many, on every Level 2 test.

Consecutive states are drawn by one `render(animation=True)` over the union of their rectangles (the view is
set once per call); a state joins the current call while the pixels the union adds cost less than a new call
(`CALL_PIXELS`). Anti-aliasing stays the numpy filter's (`antialias.fxaa`), applied locally: its output at a
pixel depends only on input pixels within `REACH` of it, so the filtered frame differs from the filtered
background only within `REACH` of the rectangle, and filtering the composite within `2 * REACH` of it gives
those pixels exactly (image borders are padded as the whole-frame filter pads them). Where a rectangle is the
whole image (a moving camera) the state is drawn as a plain full frame.

Segmentation and depth (`DirtyTruth`) follow the same plan with the GPU ground-truth pass, exactly: the static
objects' are drawn once, and per state only the rectangle the dynamic objects themselves can cover (no shadows)
is drawn, through a scissor that keeps the whole frame's projection, and pasted in.
"""

from __future__ import annotations

import math
import os

import bpy
import numpy as np

from voebench.generator import antialias
from voebench.generator.blender import quiet
from voebench.generator.blender.ground_truth import GroundTruthPass
from voebench.generator.dirty_regions import EMPTY, DirtyRegions, Rect

#: how far (pixels) the numpy filter reads around a pixel: its edge search's reach plus one pixel across the edge
REACH = antialias._PAD
#: a render call's fixed cost in pixels drawn: ~15 ms per call against ~0.2-0.3 us per pixel on this project's
#: 2-core machine (bench/render_dirty.py measure); only decides how states are grouped, never the pixels
CALL_PIXELS = 50_000
#: the compositor runs the filter's edge stage only near changed pixels where at most this share of the 8x8 blocks
#: around them changed (`Compositor.frame_parts`); a speed setting only, the bytes are the same either way
SPARSE = 0.5
#: smallest side of a drawn rectangle (Blender's smallest resolution is 4 pixels)
MIN_SIDE = 8
#: rest backgrounds (`DirtyRegions.rest` keys) kept per video, the static objects' one besides: the oldest is
#: dropped beyond this (drawn again, the same bytes, if its key comes back), so memory stays bounded
KEPT_BACKGROUNDS = 8


def check_settings(settings) -> None:
    """The dirty path composites Workbench's aliased frames and filters them with the numpy FXAA; it draws RGB
    only, so segmentation and depth must come from the GPU pass (the previous path's depth rides on the RGB
    render's compositor)."""
    if settings.engine != "workbench" or settings.antialias != "numpy" or settings.ground_truth != "gpu":
        raise ValueError("render_path 'dirty' needs engine 'workbench', antialias 'numpy' and ground_truth 'gpu'")


class DirtyRGB:
    """RGB frames of a `Renderer`'s scene drawn through dirty rectangles. Counts what it drew in `stats`."""

    def __init__(self, renderer) -> None:
        s = renderer.settings
        check_settings(s)
        self.r, self.width, self.height = renderer, s.width, s.height
        self.regions = DirtyRegions(renderer.scene, *geometry(renderer), s.width, s.height)
        # (aliased, filtered) background and its compositor per `DirtyRegions.rest` key: () the static objects alone
        self._backgrounds: dict[tuple[tuple[str, int], ...], tuple[np.ndarray, np.ndarray]] = {}
        self._compositors: dict[tuple[tuple[str, int], ...], Compositor] = {}
        self.stats = {"frames": 0, "full": 0, "empty": 0, "border": 0, "parts": 0, "calls": 0, "pixels_drawn": 0}
        self.stats["backgrounds"] = 0

    # ------------------------------------------------------------------ Blender

    def _draw(self, rect: Rect | None, ts: list[int] | None = None) -> list[np.ndarray]:
        """Aliased RGB of the current state (ts None: one render()) or of states ts (one render(animation=True)),
        drawn through the camera narrowed to `rect` (None: the whole image)."""
        from voebench.generator.blender.render import read_bmp  # render imports this module

        r, cam, rs = self.r, self.r.cam.data, self.r.bscene.render
        saved = (rs.resolution_x, rs.resolution_y, cam.angle_y, cam.shift_x, cam.shift_y)
        w, h = (self.width, self.height) if rect is None else (rect.x1 - rect.x0, rect.y1 - rect.y0)
        r._rgb_mode()
        try:
            if rect is not None:
                big_h = self.height
                rs.resolution_x, rs.resolution_y = w, h
                cam.angle_y = 2.0 * math.atan(math.tan(saved[2] / 2.0) * h / big_h)
                cam.shift_x = ((rect.x0 + rect.x1) / 2.0 - self.width / 2.0) / h
                cam.shift_y = (big_h / 2.0 - (rect.y0 + rect.y1) / 2.0) / h
            if ts is None:
                paths = [os.path.join(r.tmp, "dirty.bmp")]
                with quiet():
                    bpy.ops.render.render()
                    bpy.data.images["Render Result"].save_render(paths[0])
            else:
                r._animate(ts, "dirty_")
                paths = [os.path.join(r.tmp, f"dirty_{i:04d}.bmp") for i in range(1, len(ts) + 1)]
        finally:
            rs.resolution_x, rs.resolution_y, cam.angle_y, cam.shift_x, cam.shift_y = saved
        out = []
        for path in paths:
            px = read_bmp(path)[..., :3]
            os.remove(path)
            if px.shape[:2] != (h, w):
                raise RuntimeError(f"narrowed render gave {px.shape[:2]} pixels, expected {(h, w)}")
            out.append(np.ascontiguousarray(px))
        self.stats["pixels_drawn"] += w * h * len(out)
        self.stats["calls"] += 1
        return out

    def background(self, t: int = 0, resting: tuple[tuple[str, int], ...] = ()) -> tuple[np.ndarray, np.ndarray]:
        """(aliased, filtered) frame of the static objects and the dynamic objects `resting` (at rest at state t:
        `DirtyRegions.rest`), drawn once per video and key (for () any frame t gives the same: static objects never
        change, and its state is applied first so one hidden throughout stays hidden)."""
        hit = self._backgrounds.get(resting)
        if hit is None:
            self.r.apply(t)
            obs = self.r.obs
            keep = {name for name, _ in resting}
            saved = {name: obs[name].hide_render for name in self.regions.dynamic if name not in keep}
            try:
                for name in saved:
                    obs[name].hide_render = True
                (raw,) = self._draw(None)
            finally:
                for name, hidden in saved.items():
                    obs[name].hide_render = hidden
            _keep_room(self._backgrounds)
            _keep_room(self._compositors)
            hit = self._backgrounds[resting] = (raw, antialias.fxaa(raw))
            self.stats["backgrounds"] += 1
        return hit

    def drawn_rects(self, t: int) -> list[Rect]:
        """The rectangles state t is drawn through, outside which its frame is its background's (`frames`)."""
        return self.regions.view(self.regions.rest(t)).rects(t)

    # ------------------------------------------------------------------ frames

    def frame(self, t: int) -> np.ndarray:
        """The finished (filtered) RGB frame of state t: `fxaa` of its full aliased render, to the stated tolerance."""
        return self.frames([t])[t]

    def frames(self, ts: list[int]) -> dict[int, np.ndarray]:
        """{t: finished RGB frame} for states ts (distinct, in the order they are wanted), grouped into calls. A
        state whose background holds dynamic objects at rest (`DirtyRegions.rest`) is drawn over that background,
        only where the other dynamic objects can be (`DirtyRegions.view`); states of one key are grouped together."""
        out: dict[int, np.ndarray] = {}
        self.stats["frames"] += len(ts)
        keys = {t: self.regions.rest(t) for t in ts}
        full = [t for t in ts if self.regions.view(keys[t]).rects(t) == [self.regions.full]]
        if full:  # a moving camera: plain full frames
            self.stats["full"] += len(full)
            for t, raw in zip(full, self._draw(None, full)):
                out[t] = antialias.fxaa(raw)
        rest = [t for t in ts if t not in out]
        for key in dict.fromkeys(keys[t] for t in rest):  # keys in the order of their first state
            self._frames_over([t for t in rest if keys[t] == key], key, out)
        return out

    def _frames_over(self, ts: list[int], resting: tuple[tuple[str, int], ...], out: dict[int, np.ndarray]) -> None:
        """Frames of states ts, all of rest key `resting`, into `out`: the key's background with each state's
        rectangles (`DirtyRegions.view(resting).rects`) drawn and composited."""
        regions = self.regions.view(resting)
        rects = {t: regions.rects(t) for t in ts}
        bg_raw, bg_aa = self.background(ts[0], resting)
        comp = self._compositors.get(resting)
        if comp is None:
            comp = self._compositors[resting] = Compositor(bg_raw, bg_aa)
        for t in ts:
            if not rects[t]:
                self.stats["empty"] += 1
                out[t] = bg_aa.copy()
        for group, unions in self._groups([t for t in ts if t not in out], rects):
            self.stats["border"] += len(group)
            self.stats["parts"] += len(group) * len(unions)
            drawn = [self._draw(union, group) for union in unions]  # one call per slot
            for i, t in enumerate(group):
                parts = [(px[i], union, rect) for px, union, rect in zip(drawn, unions, rects[t])]
                out[t] = comp.frame_parts(parts)

    def _groups(self, ts: list[int], rects: dict[int, list[Rect]]) -> list[tuple[list[int], list[Rect]]]:
        """Consecutive states with as many rectangles, and the rectangles each group is drawn through (slot by
        slot: a state's i-th rectangle lies in the group's i-th): a state joins the group while the pixels the
        unions add over all the group's states cost less than a call of its own, up to `settings.batch` states
        per group (1 when batching is off)."""
        most = max(1, self.r.settings.batch)
        groups: list[tuple[list[int], list[Rect]]] = []
        for t in ts:
            rs = [self._at_least(r) for r in rects[t]]
            if groups:
                g, us = groups[-1]
                if len(us) == len(rs) and len(g) < most:
                    new = [u.union(r) for u, r in zip(us, rs)]
                    n = len(g)
                    extra = sum(a.area * (n + 1) - u.area * n - r.area for a, u, r in zip(new, us, rs))
                    if extra < CALL_PIXELS:
                        groups[-1] = (g + [t], new)
                        continue
            groups.append(([t], rs))
        return groups

    def _at_least(self, rect: Rect) -> Rect:
        """`rect` widened to MIN_SIDE pixels a side where the image allows (Blender draws at least 4x4)."""
        w, h = self.width, self.height
        grow_x, grow_y = max(0, MIN_SIDE - (rect.x1 - rect.x0)), max(0, MIN_SIDE - (rect.y1 - rect.y0))
        x0 = min(max(0, rect.x0 - (grow_x + 1) // 2), max(0, w - MIN_SIDE))
        y0 = min(max(0, rect.y0 - (grow_y + 1) // 2), max(0, h - MIN_SIDE))
        return Rect(x0, y0, min(w, max(rect.x1, x0 + MIN_SIDE)), min(h, max(rect.y1, y0 + MIN_SIDE)))


class DirtyTruth:
    """Segmentation and depth of a `Renderer`'s scene as the static objects' (drawn once per video) with the
    rectangle where dynamic objects can be (`DirtyRegions.object_rect`) drawn over it. Exact, pixel for pixel the
    whole-frame draw: inside the rectangle the scissored draw gives each pixel the whole frame's value
    (`GroundTruthPass.draw`), and outside it no dynamic object covers a pixel, so the nearest surface there is the
    same static one (drawn in the same order, so ties resolve alike). Shadows do not matter: these passes see
    surfaces, not light. Counts what it drew in `stats`."""

    def __init__(self, truth: GroundTruthPass, regions: DirtyRegions) -> None:
        self.truth, self.regions = truth, regions
        # per `DirtyRegions.rest` key: () the static objects alone, else with the dynamic objects at rest
        self._backgrounds: dict[tuple[tuple[str, int], ...], tuple[np.ndarray, np.ndarray]] = {}
        self.stats = {"frames": 0, "full": 0, "empty": 0, "pixels_drawn": 0, "backgrounds": 0}

    def background(self, resting: tuple[tuple[str, int], ...] = ()) -> tuple[np.ndarray, np.ndarray]:
        """(segmentation, depth) of the static objects and the dynamic objects `resting`, as currently applied (a
        state of that rest key: they hold their pose over it), drawn once per key."""
        hit = self._backgrounds.get(resting)
        if hit is None:
            _keep_room(self._backgrounds)
            hit = self._backgrounds[resting] = self.truth.draw(skip=set(self.regions.view(resting).dynamic))
            self.stats["pixels_drawn"] += self.regions.full.area
            self.stats["backgrounds"] += 1
        return hit

    def draw(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(segmentation uint16 HxW, depth float32 HxW) of state t, which must be the one applied: its rest key's
        background with the other dynamic objects' rectangle (`DirtyRegions.view(...).object_rect`) drawn over it
        (outside it the nearest surface is a static or resting object's, as in the background)."""
        resting = self.regions.rest(t)
        rect = self.regions.view(resting).object_rect(t)
        self.stats["frames"] += 1
        if rect == self.regions.full:
            self.stats["full"] += 1
            self.stats["pixels_drawn"] += rect.area
            return self.truth.draw()
        seg, depth = (a.copy() for a in self.background(resting))
        if rect.empty:
            self.stats["empty"] += 1
            return seg, depth
        seg[rect.slices], depth[rect.slices] = self.truth.draw(rect)
        self.stats["pixels_drawn"] += rect.area
        return seg, depth


class Compositor:
    """Finished frames as the filtered background with the filter's output pasted where it can differ.

    A state's aliased frame is the background with each drawn rectangle `union` pasted in, and it differs from the
    background only inside the state's own rectangles `rect` (one per draw, within its `union`, none overlapping;
    elsewhere a draw shows the static objects). The filter's output at a pixel depends only on input within
    `REACH` of it, so the filtered frame differs from the filtered background only within `REACH` of the
    rectangles (`inner`), and there it is computed from the input within `2 * REACH` of them (`need`: the part of
    a draw that is used). Nothing is copied whole but the finished frame: the aliased frame and the filter's
    padded luma are kept as working buffers holding the background. Each draw's `need` is pasted into the aliased
    buffer (then each `rect` again from its own draw, so a pixel of a rectangle comes from that rectangle's
    draw); the pixels that now differ from the background (`changed`) are found, and only their bounding box is
    refreshed in the luma (with the padding where it touches the image's border; an unchanged pixel's luma is the
    background's). `antialias.fxaa_window` then filters each `inner` cut to within `REACH` of a changed pixel's
    box -- beyond it the output is the filtered background's -- and runs its edge stage only on pixels within the
    filter's reach of a changed pixel (`antialias.ChangedReach`): the others' output is the filtered
    background's too. The bytes are those of the whole-frame filter of the composite within `inner`
    (tests/generator/test_dirty_composite.py); the buffers are put back afterwards."""

    def __init__(self, background_raw: np.ndarray, background_aa: np.ndarray) -> None:
        self.bg_raw, self.bg_aa = background_raw, background_aa
        self.height, self.width = background_raw.shape[:2]
        self.bg_luma = antialias.padded_luma(background_raw)
        self.raw, self.luma = background_raw.copy(), self.bg_luma.copy()  # the working buffers

    def frame(self, px: np.ndarray, union: Rect, rect: Rect) -> np.ndarray:
        """The finished frame of a state whose draw through `union` gave `px` and that differs from the background
        only inside `rect` (non-empty, within `union`): `fxaa` of the background with `px` pasted over `union`."""
        return self.frame_parts([(px, union, rect)])

    def frame_parts(self, parts: list[tuple[np.ndarray, Rect, Rect]]) -> np.ndarray:
        """The finished frame of a state drawn in parts (px, union, rect): each draw `px` through `union` shows the
        state inside `rect` (non-empty, within `union`; the rects do not overlap), and the state differs from the
        background only inside the rects."""
        w, h = self.width, self.height
        pasted: list[Rect] = []
        lumas: list[tuple[slice, slice]] = []
        try:
            for px, union, rect in parts:
                need = _intersect(union, rect.grow(2 * REACH, w, h))
                self.raw[need.slices] = px[
                    need.y0 - union.y0 : need.y1 - union.y0, need.x0 - union.x0 : need.x1 - union.x0
                ]
                pasted.append(need)
            if len(parts) > 1:  # a rectangle's pixels from its own draw
                for px, union, rect in parts:
                    self.raw[rect.slices] = px[
                        rect.y0 - union.y0 : rect.y1 - union.y0, rect.x0 - union.x0 : rect.x1 - union.x0
                    ]
            pieces, boxes = [], []
            for need in pasted:
                diff = self.raw[need.slices] != self.bg_raw[need.slices]
                mask = diff[..., 0] | diff[..., 1] | diff[..., 2]  # (ORed by hand: `.any(axis=2)` is ~9x slower)
                box = _box(mask, need)
                if not box.empty:
                    boxes.append(box)
                    pieces.append(
                        antialias.ChangedReach(
                            mask[box.y0 - need.y0 : box.y1 - need.y0, box.x0 - need.x0 : box.x1 - need.x0],
                            box.y0,
                            box.x0,
                        )
                    )
            out = self.bg_aa.copy()
            if not boxes:
                return out
            for box in boxes:
                lumas.append(self._refresh_luma(box))
            # the edge stage near changes only where they are sparse: where most blocks hold one (AVoE's ground,
            # whose narrowed lighting steps one level at scattered pixels) the test skips few edge pixels and costs
            # more than it saves (bench/render_dirty.py fxaa-reach); either way the same bytes
            reach = _AnyReach(pieces) if max(p.coverage for p in pieces) < SPARSE else None
            near = boxes[0]
            for box in boxes[1:]:
                near = near.union(box)
            near = near.grow(REACH, w, h)
            for _, _, rect in parts:
                win = _intersect(rect.grow(REACH, w, h), near)
                if not win.empty:
                    out[win.slices] = antialias.fxaa_window(
                        self.raw, self.luma, win.y0, win.y1, win.x0, win.x1, reach, self.bg_aa
                    )
            return out
        finally:  # the buffers hold the background again
            for need in pasted:
                self.raw[need.slices] = self.bg_raw[need.slices]
            for padded in lumas:
                self.luma[padded] = self.bg_luma[padded]

    def _refresh_luma(self, box: Rect) -> tuple[slice, slice]:
        """Write the padded luma of the aliased buffer's pixels in `box` (rows/columns of the padding repeat the
        border where `box` touches it); returns the padded luma's slices written."""
        w, h, k = self.width, self.height, REACH
        rows = np.arange(box.y0 + k if box.y0 else 0, box.y1 + k if box.y1 < h else h + 2 * k)
        cols = np.arange(box.x0 + k if box.x0 else 0, box.x1 + k if box.x1 < w else w + 2 * k)
        luma = antialias.luma(self.raw[box.slices])
        ry = np.clip(rows - k, box.y0, box.y1 - 1) - box.y0
        cx = np.clip(cols - k, box.x0, box.x1 - 1) - box.x0
        padded = slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)
        self.luma[padded] = luma[ry][:, cx]
        return padded


class _AnyReach:
    """`antialias.ChangedReach` over several pieces of the changed mask: True where any piece's is."""

    def __init__(self, pieces: list[antialias.ChangedReach]) -> None:
        self.pieces = pieces

    def reaches(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        out = self.pieces[0].reaches(ys, xs)
        for p in self.pieces[1:]:
            out |= p.reaches(ys, xs)
        return out


def _keep_room(cache: dict) -> None:
    """Drop the oldest rest keys of `cache` (by insertion; never (), the static objects') until one more fits in
    `KEPT_BACKGROUNDS`."""
    rests = [k for k in cache if k != ()]
    for key in rests[: max(0, len(rests) - KEPT_BACKGROUNDS + 1)]:
        del cache[key]


def _intersect(a: Rect, b: Rect) -> Rect:
    r = Rect(max(a.x0, b.x0), max(a.y0, b.y0), min(a.x1, b.x1), min(a.y1, b.y1))
    return EMPTY if r.empty else r


def _box(mask: np.ndarray, at: Rect) -> Rect:
    """The bounding box (image coordinates) of the True pixels of `mask`, which covers `at`; EMPTY where none."""
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        return EMPTY
    return Rect(at.x0 + int(cols[0]), at.y0 + int(rows[0]), at.x0 + int(cols[-1]) + 1, at.y0 + int(rows[-1]) + 1)


def geometry(renderer) -> tuple[dict[str, np.ndarray], tuple[float, ...]]:
    """What `DirtyRegions` takes from a `Renderer`'s Blender scene: each object's vertices in its own frame (by
    name) and the studio light's direction."""
    return {name: _vertices(ob) for name, ob in renderer.obs.items()}, tuple(renderer.bscene.display.light_direction)


def _vertices(ob) -> np.ndarray:
    """(V, 3) vertices of a mesh object in its own frame (its 8 bounding-box corners where it has none)."""
    n = len(ob.data.vertices)
    if not n:
        return np.array([tuple(c) for c in ob.bound_box], float)
    co = np.empty(n * 3, np.float32)
    ob.data.vertices.foreach_get("co", co)
    return co.reshape(n, 3).astype(float)
