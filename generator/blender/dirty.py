"""RGB frames drawn as a cached background plus the one rectangle that changed (`RenderSettings(render_path="dirty")`).

A video's static objects are drawn once, alone, at full size (the background). For each distinct state,
Workbench draws only the frame's dirty rectangle (`voebench.generator.dirty_regions`: where dynamic objects and
their shadows can be) as a border render cropped to it, which is pasted into a copy of the background. Outside the
rectangle the frame is the background's pixels, inside it Blender's: where the rectangle is right, the aliased
frame is the full render's.

Anti-aliasing stays the numpy filter's (`antialias.fxaa`), applied locally: its output at a pixel depends only on
input pixels within `REACH` of it, so the filtered frame differs from the filtered background only within
`REACH` of the rectangle, and filtering the composite within `2 * REACH` of the rectangle gives those pixels
exactly (image borders are padded as the whole-frame filter pads them).

Border renders are one `render()` call each (the border is read once per call, not per animation frame), so a
frame costs Blender's fixed per-call overhead plus the fill of its rectangle. Where the rectangle is the whole
image (a moving camera) the frame is a plain full render.
"""

from __future__ import annotations

import os

import bpy
import numpy as np

from voebench.generator import antialias
from voebench.generator.blender import quiet
from voebench.generator.dirty_regions import DirtyRegions, Rect

#: how far (pixels) the numpy filter reads around a pixel: its edge search's reach plus one pixel across the edge
REACH = antialias._PAD


class DirtyRGB:
    """RGB frames of a `Renderer`'s scene drawn through dirty rectangles. Counts what it drew in `stats`."""

    def __init__(self, renderer) -> None:
        s = renderer.settings
        if s.engine != "workbench" or s.antialias != "numpy":
            raise ValueError("the dirty render path needs engine='workbench' and antialias='numpy'")
        self.r, self.width, self.height = renderer, s.width, s.height
        corners = {name: _vertices(ob) for name, ob in renderer.obs.items()}
        light = tuple(renderer.bscene.display.light_direction)
        self.regions = DirtyRegions(renderer.scene, corners, light, s.width, s.height)
        self._background: tuple[np.ndarray, np.ndarray] | None = None  # (aliased, filtered)
        self.stats = {"frames": 0, "full": 0, "empty": 0, "border": 0, "pixels_drawn": 0}

    # ------------------------------------------------------------------ Blender

    def _draw(self, rect: Rect | None) -> np.ndarray:
        """One Workbench render of the current state, cropped to `rect` (None: the whole image), aliased RGB."""
        from voebench.generator.blender.render import read_bmp  # render imports this module

        sc = self.r.bscene
        self.r._rgb_mode()
        rs = sc.render
        rs.use_border = rect is not None
        if rect is not None:
            # Blender truncates border * size to whole pixels: half a pixel in lands exactly on the intended edge
            w, h = self.width, self.height
            rs.use_crop_to_border = True
            rs.border_min_x, rs.border_max_x = (rect.x0 + 0.5) / w, min(1.0, (rect.x1 + 0.5) / w)
            rs.border_min_y, rs.border_max_y = (h - rect.y1 + 0.5) / h, min(1.0, (h - rect.y0 + 0.5) / h)
        path = os.path.join(self.r.tmp, "dirty.bmp")
        try:
            with quiet():
                bpy.ops.render.render()
                bpy.data.images["Render Result"].save_render(path)
        finally:
            rs.use_border = False
        px = read_bmp(path)[..., :3]
        want = (self.height, self.width) if rect is None else (rect.y1 - rect.y0, rect.x1 - rect.x0)
        if px.shape[:2] != want:
            raise RuntimeError(f"border render gave {px.shape[:2]} pixels, expected {want}")
        self.stats["pixels_drawn"] += px.shape[0] * px.shape[1]
        return np.ascontiguousarray(px)

    def background(self) -> tuple[np.ndarray, np.ndarray]:
        """(aliased, filtered) frame of the static objects alone, drawn once per video."""
        if self._background is None:
            obs = self.r.obs
            saved = {name: obs[name].hide_render for name in self.regions.dynamic}
            try:
                for name in saved:
                    obs[name].hide_render = True
                raw = self._draw(None)
            finally:
                for name, hidden in saved.items():
                    obs[name].hide_render = hidden
            self._background = (raw, antialias.fxaa(raw))
        return self._background

    # ------------------------------------------------------------------ frames

    def frame(self, t: int) -> np.ndarray:
        """The finished (filtered) RGB frame of state t, equal to `fxaa` of a full aliased render of it."""
        self.stats["frames"] += 1
        rect = self.regions.rect(t)
        if rect == self.regions.full:
            self.stats["full"] += 1
            self.r.apply(t)
            return antialias.fxaa(self._draw(None))
        bg_raw, bg_aa = self.background()
        if rect.empty:
            self.stats["empty"] += 1
            return bg_aa.copy()
        self.stats["border"] += 1
        self.r.apply(t)
        raw = bg_raw.copy()
        raw[rect.slices] = self._draw(rect)
        return composite_filtered(raw, bg_aa, rect)


def composite_filtered(raw: np.ndarray, background_aa: np.ndarray, rect: Rect) -> np.ndarray:
    """`fxaa(raw)`, given that raw equals the background outside `rect` and `background_aa` is the background
    filtered: the filter is run on `rect` widened by 2 x REACH and kept within REACH of it."""
    h, w = raw.shape[:2]
    inner, outer = rect.grow(REACH, w, h), rect.grow(2 * REACH, w, h)
    sub = antialias.fxaa(np.ascontiguousarray(raw[outer.slices]))
    out = background_aa.copy()
    out[inner.slices] = sub[inner.y0 - outer.y0 : inner.y1 - outer.y0, inner.x0 - outer.x0 : inner.x1 - outer.x0]
    return out


def _vertices(ob) -> np.ndarray:
    """(V, 3) vertices of a mesh object in its own frame (its 8 bounding-box corners where it has none)."""
    n = len(ob.data.vertices)
    if not n:
        return np.array([tuple(c) for c in ob.bound_box], float)
    co = np.empty(n * 3, np.float32)
    ob.data.vertices.foreach_get("co", co)
    return co.reshape(n, 3).astype(float)
