"""Procedural textures (wood, parquet, fabric, rusty metal, wall plaster, checker) made with numpy from a
seed, so a dataset never depends on image files that could leak or go missing. Each returns an
(H, W, 3) float32 image in linear RGB 0-1, already tinted by the object's colour."""

from __future__ import annotations

import numpy as np

PATTERNS = ("wood", "parquet", "fabric", "rust", "plaster", "checker")


def _smooth_noise(rng, h, w, cells):
    """Value noise: a coarse random grid, bilinearly upsampled."""
    gh, gw = max(2, h // cells), max(2, w // cells)
    grid = rng.random((gh + 1, gw + 1))
    y = np.linspace(0, gh, h, endpoint=False)
    x = np.linspace(0, gw, w, endpoint=False)
    y0, x0 = y.astype(int), x.astype(int)
    fy, fx = (y - y0)[:, None], (x - x0)[None, :]
    a = grid[y0][:, x0]
    b = grid[y0][:, x0 + 1]
    c = grid[y0 + 1][:, x0]
    d = grid[y0 + 1][:, x0 + 1]
    return a * (1 - fy) * (1 - fx) + b * (1 - fy) * fx + c * fy * (1 - fx) + d * fy * fx


def make_texture(pattern: str, seed: int, tint, size: int = 256) -> np.ndarray:
    if pattern not in PATTERNS:
        raise ValueError(f"unknown texture pattern {pattern!r}; one of {PATTERNS}")
    rng = np.random.default_rng(seed)
    h = w = size
    yy, xx = np.mgrid[0:h, 0:w] / size
    if pattern == "wood":
        warp = _smooth_noise(rng, h, w, 32) * 0.6
        rings = np.sin((yy * 18 + warp * 6 + _smooth_noise(rng, h, w, 8) * 0.5) * np.pi)
        v = 0.72 + 0.18 * rings + 0.1 * _smooth_noise(rng, h, w, 4)
    elif pattern == "parquet":
        block = 1 / 8
        bx, by = (xx // block).astype(int), (yy // (block * 2)).astype(int)
        horizontal = (bx + by) % 2 == 0
        grain = np.where(
            horizontal,
            np.sin(yy * 140 + _smooth_noise(rng, h, w, 16) * 4),
            np.sin(xx * 140 + _smooth_noise(rng, h, w, 16) * 4),
        )
        shade = rng.uniform(0.8, 1.0, (by.max() + 1, bx.max() + 1))[by, bx]
        seams = ((xx % block) < 0.004) | ((yy % (block * 2)) < 0.004)
        v = np.where(seams, 0.35, shade * (0.8 + 0.1 * grain))
    elif pattern == "fabric":
        weave = 0.5 + 0.25 * np.sin(xx * 2 * np.pi * 48) * np.sin(yy * 2 * np.pi * 48)
        v = 0.65 + 0.2 * weave + 0.15 * _smooth_noise(rng, h, w, 16)
    elif pattern == "rust":
        patches = _smooth_noise(rng, h, w, 24) * 0.6 + _smooth_noise(rng, h, w, 6) * 0.4
        v = 0.55 + 0.45 * patches
    elif pattern == "plaster":
        v = 0.85 + 0.1 * _smooth_noise(rng, h, w, 8) + 0.05 * _smooth_noise(rng, h, w, 2)
    else:  # checker
        v = np.where(((xx * 8).astype(int) + (yy * 8).astype(int)) % 2 == 0, 1.0, 0.55)
    img = np.clip(v, 0, 1)[..., None] * np.asarray(tint, np.float32)[None, None, :]
    return img.astype(np.float32)
