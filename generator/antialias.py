"""Anti-aliasing of a rendered RGB frame in numpy: an FXAA-style edge filter (after Lottes' FXAA 3.11).

Why outside Blender: on the software rasteriser (Mesa llvmpipe) Workbench's own FXAA costs about half of an RGB
frame (62 ms with it, 32 ms without, 320x240, one core). The same filter in numpy costs a few ms, and only the
RGB frame gets it: depth and segmentation stay aliased, so segmentation ids stay exact integers.

The filter, per pixel: find pixels whose local luma contrast is high (an edge), decide whether the edge runs
horizontally or vertically, search along the edge in both directions for its ends, and blend the pixel with its
neighbour across the edge, in linear light, by how far it sits from the nearer end (long, nearly axis-aligned
staircase edges get a ramp) or by the sub-pixel estimate (small features), whichever is larger. Only +, -, *, /,
abs, min and max are used per frame (no transcendental functions, no matrix product), in float32, so the output bytes
do not depend on the machine or the numpy build.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

# FXAA 3.11's edge thresholds: skip pixels whose contrast is below max(EDGE_MIN, EDGE_REL * local max luma).
# SUBPIX and RAMP_BIAS were chosen against a 4x supersampled reference (`bench/bench_render.py quality`).
EDGE_REL = np.float32(0.125)
EDGE_MIN = np.float32(0.0312)
SUBPIX = np.float32(0.25)  # how strongly sub-pixel features (a one-pixel spike) are smoothed
# an edge ends between its last matching and first departing sample: count half a step back
RAMP_BIAS = np.float32(0.5)
# cumulative search distances (pixels) along an edge; longer steps further out, as FXAA's quality presets
SEARCH_STEPS = (1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 8)
# padding of the luma image: the farthest tap is the search's reach along the edge plus one pixel across it
_PAD = sum(SEARCH_STEPS) + 1
_REACH = np.cumsum(SEARCH_STEPS)  # distance of each tap from the pixel, along the edge
_REACH_F32 = _REACH.astype(np.float32)
_LUMA = np.array([0.299, 0.587, 0.114], np.float32) / np.float32(255.0)


def fxaa(rgb: np.ndarray) -> np.ndarray:
    """Anti-alias an (H, W, 3) uint8 image; returns a new (H, W, 3) uint8 array."""
    if rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError("fxaa expects an (H, W, 3) uint8 image")
    h, w, _ = rgb.shape
    return fxaa_window(rgb, padded_luma(rgb), 0, h, 0, w)


def padded_luma(rgb: np.ndarray) -> np.ndarray:
    """The filter's luma of an (H, W, 3) uint8 image, padded by `_PAD` on every side (edge mode): (H + 2 _PAD,
    W + 2 _PAD) float32. Padding by the search's reach makes every tap land inside the array, so no index needs
    clipping; edge padding repeats the border as clipping to it did, so the output is the same bytes."""
    return np.pad(luma(rgb), _PAD, mode="edge")


def luma(rgb: np.ndarray) -> np.ndarray:
    """The filter's luma of (..., 3) uint8 pixels, float32 in [0, 1]: r, g and b weighted and summed in this fixed
    order, each product and sum rounded to float32. Not a matrix product (`rgb @ _LUMA`), whose rounding depends
    on the BLAS kernel the array's shape selects: on an AVX-512 machine OpenBLAS gave one pixel of a window other
    bits than the whole image's, so the dirty path's composite differed from the whole-frame filter there."""
    c = rgb.astype(np.float32)
    return (c[..., 0] * _LUMA[0] + c[..., 1] * _LUMA[1]) + c[..., 2] * _LUMA[2]


def fxaa_window(
    rgb: np.ndarray,
    p: np.ndarray,
    y0: int,
    y1: int,
    x0: int,
    x1: int,
    changed: Reach | None = None,
    elsewhere: np.ndarray | None = None,
) -> np.ndarray:
    """`fxaa(rgb)[y0:y1, x0:x1]`, given `p = padded_luma(rgb)`: the filter run on that window's pixels only (every
    step is per pixel, reading `p` and `rgb` within `_PAD` of it, so the bytes are those of the whole-frame filter).
    Lets a caller that changed part of an image refresh `p` there and filter only where the output can change.

    With `changed` (where `rgb` differs from an image whose filtered frame is `elsewhere`, full size): an edge pixel
    none of whose inputs changed (`ChangedReach.reaches`) has the output it has in `elsewhere`, which is copied
    instead of running the edge stage there. A pixel that is no edge is left as it is, which is its output in both
    images. So the bytes are the same, and the edge stage runs only within reach of a change."""
    h, w, _ = rgb.shape
    k = _PAD
    m = p[k + y0 : k + y1, k + x0 : k + x1]
    n, s, wst, e = (
        p[k + y0 - 1 : k + y1 - 1, k + x0 : k + x1],
        p[k + y0 + 1 : k + y1 + 1, k + x0 : k + x1],
        p[k + y0 : k + y1, k + x0 - 1 : k + x1 - 1],
        p[k + y0 : k + y1, k + x0 + 1 : k + x1 + 1],
    )
    # the contrast test over the whole window, in place (fewer temporaries: this part is a third of the filter)
    lmax = np.maximum(n, s)
    np.maximum(lmax, wst, out=lmax)
    np.maximum(lmax, e, out=lmax)
    np.maximum(lmax, m, out=lmax)
    lmin = np.minimum(n, s)
    np.minimum(lmin, wst, out=lmin)
    np.minimum(lmin, e, out=lmin)
    np.minimum(lmin, m, out=lmin)
    rng = lmax - lmin
    np.multiply(lmax, EDGE_REL, out=lmax)
    np.maximum(lmax, EDGE_MIN, out=lmax)
    edge = rng >= lmax
    wy, wx = np.nonzero(edge)  # in the window
    out = rgb[y0:y1, x0:x1].copy()
    if changed is not None and len(wy):
        if elsewhere is None:
            raise ValueError("fxaa_window: `changed` needs `elsewhere`, the filtered frame of the unchanged image")
        near = changed.reaches(wy + y0, wx + x0)
        out[wy[~near], wx[~near]] = elsewhere[wy[~near] + y0, wx[~near] + x0]
        wy, wx = wy[near], wx[near]
    if len(wy) == 0:
        return out
    ys, xs = wy + y0, wx + x0  # in the image
    # everything below works on the edge pixels only (a few % of the image)
    py, px = ys + k, xs + k  # coordinates in the padded luma
    lm, ln, ls, lw, le = (q[wy, wx] for q in (m, n, s, wst, e))
    lnw, lne, lsw, lse = p[py - 1, px - 1], p[py - 1, px + 1], p[py + 1, px - 1], p[py + 1, px + 1]
    r = rng[wy, wx]

    # edge orientation: second differences across rows (a horizontal edge) against across columns
    two = np.float32(2.0)
    horz = np.abs(lnw + lsw - two * lw) + two * np.abs(ln + ls - two * lm) + np.abs(lne + lse - two * le)
    vert = np.abs(lnw + lne - two * ln) + two * np.abs(lw + le - two * lm) + np.abs(lsw + lse - two * ls)
    is_h = horz >= vert

    # sub-pixel blend: how far the pixel differs from its 3x3 low-pass, relative to the local contrast
    lowpass = (two * (ln + ls + lw + le) + (lnw + lne + lsw + lse)) / np.float32(12.0)
    c = np.minimum(np.abs(lowpass - lm) / r, np.float32(1.0))
    sub = (np.float32(3.0) - two * c) * c * c
    sub = sub * sub * SUBPIX

    # the two neighbours across the edge: up/down for a horizontal edge, left/right for a vertical one
    l_neg = np.where(is_h, ln, lw)
    l_pos = np.where(is_h, ls, le)
    g_neg, g_pos = np.abs(l_neg - lm), np.abs(l_pos - lm)
    to_neg = g_neg >= g_pos  # the edge lies between the pixel and its neighbour with the larger gradient
    grad = np.maximum(g_neg, g_pos)
    l_pair = np.where(to_neg, l_neg, l_pos)
    side = np.where(to_neg, -1, 1)  # -1: the neighbour above/left, +1: below/right
    mid = (lm + l_pair) * np.float32(0.5)  # luma on the edge line itself
    thresh = grad * np.float32(0.25)

    # walk along the edge (x for a horizontal edge, y for a vertical one) until the luma on the edge line
    # departs from `mid` by more than a quarter of the gradient: that is where the edge ends
    # Taps are flat indices into the padded luma. All of a direction's taps are gathered at once as an
    # (edge pixels, steps) array and the first departing one is picked per row: the same taps and arithmetic as
    # stepping out one tap at a time and stopping at the end, in a dozen numpy calls instead of a dozen per step
    # (the per-step calls on small arrays were half of the filter's time).
    flat, wp = p.ravel(), p.shape[1]
    base = py * wp + px
    along = np.where(is_h, 1, wp)  # unit step along the edge
    across = np.where(is_h, side * wp, side)[:, None]  # offset to the pair pixel
    far = np.float32(2 * SEARCH_STEPS[-1])  # where an end not found within the search counts as being
    rows = np.arange(len(ys))
    ends = []
    for sign in (-1, 1):
        tap = base[:, None] + (sign * along)[:, None] * _REACH[None, :]
        delta = (flat[tap] + flat[tap + across]) * np.float32(0.5) - mid[:, None]
        found = np.abs(delta) >= thresh[:, None]
        first = found.argmax(axis=1)  # the first departing tap (0 where none departs: `hit` is False)
        hit = found[rows, first]
        ends.append((np.where(hit, _REACH_F32[first], far), np.where(hit, delta[rows, first], np.float32(0.0))))
    (dist_neg, end_neg), (dist_pos, end_pos) = ends
    # blend only toward the end whose luma moves away from the pixel's own side (FXAA's "good span")
    nearer_neg = dist_neg < dist_pos
    d_near = np.where(nearer_neg, dist_neg, dist_pos)
    end_near = np.where(nearer_neg, end_neg, end_pos)
    good = (end_near < 0) != (lm - mid < 0)
    span = dist_neg + dist_pos
    ramp = np.where(good, np.float32(0.5) - (d_near - RAMP_BIAS) / (span - 2 * RAMP_BIAS), np.float32(0.0))
    amount = np.maximum(ramp, sub)  # in [0, 1): fraction of the neighbour across the edge

    # blend the RGB of the pixel with its neighbour across the edge (a bilinear tap at that offset)
    ny = np.clip(ys + np.where(is_h, side, 0), 0, h - 1)
    nx = np.clip(xs + np.where(is_h, 0, side), 0, w - 1)
    a = amount[:, None]
    # Mix in linear light, as real coverage does (the sRGB bytes are decoded and re-encoded through tables)
    mixed = _TO_LINEAR[rgb[ys, xs]] * (np.float32(1.0) - a) + _TO_LINEAR[rgb[ny, nx]] * a
    out[wy, wx] = np.searchsorted(_LINEAR_MIDPOINTS, mixed).astype(np.uint8)  # nearest sRGB byte
    return out


class Reach(Protocol):
    """Answers, per pixel, whether a changed input pixel may lie within the filter's reach of it (`ChangedReach`)."""

    def reaches(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray: ...


class ChangedReach:
    """Which output pixels of the filter can see a changed input pixel. The filter's output at (y, x) reads the
    input (luma and RGB) only in a plus shape around it: rows y - 1 .. y + 1 over columns x - `ALONG` .. x + `ALONG`
    (the 3x3 neighbourhood, a horizontal edge's search and its pair row, the blend's neighbour) and columns
    x - 1 .. x + 1 over rows y - `ALONG` .. y + `ALONG` (a vertical edge's). Taps clipped at the image's border land
    on a border pixel inside the same shape. So an output can differ from the unchanged image's only where a
    changed pixel lies in its shape.

    The test is run on blocks of `block` x `block` pixels (a block counts as changed when any of its pixels is):
    it may answer True for a pixel whose shape holds no changed pixel, only near one (the edge stage then runs
    there and gives the same bytes), never False for one whose shape holds a changed pixel. Blocks, because a
    summed-area table of the whole mask costs more (cumsum, ~8 ms at 400x850) than the edge stage it saves.

    `mask`: bool (h, w), the changed pixels of the image's rows y0 .. y0 + h and columns x0 .. x0 + w (none
    changed outside them)."""

    ALONG = int(_REACH[-1])  # the search's farthest tap along an edge

    def __init__(self, mask: np.ndarray, y0: int, x0: int, block: int = 8) -> None:
        h, w = mask.shape
        hb, wb = -(-h // block), -(-w // block)
        padded = np.zeros((hb * block, wb * block), np.uint8)
        padded[:h, :w] = mask
        blocks = padded.reshape(hb, block, wb * block).max(axis=1).reshape(hb, wb, block).max(axis=2)
        self.y0, self.x0, self.h, self.w, self.block = y0, x0, h, w, block
        self.sat = np.zeros((hb + 1, wb + 1), np.int32)  # changed blocks in [0, i) x [0, j)
        self.sat[1:, 1:] = blocks.astype(np.int32).cumsum(0).cumsum(1)
        self.coverage = float(self.sat[-1, -1]) / (hb * wb)  # the share of its blocks that hold a change

    def _count(self, ya: np.ndarray, yb: np.ndarray, xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
        """Changed blocks meeting rows [ya, yb) x columns [xa, xb) (image coordinates, clipped to the mask)."""
        ya, yb = np.clip(ya - self.y0, 0, self.h), np.clip(yb - self.y0, 0, self.h)
        xa, xb = np.clip(xa - self.x0, 0, self.w), np.clip(xb - self.x0, 0, self.w)
        b, s = self.block, self.sat
        by0, by1, bx0, bx1 = ya // b, -(-yb // b), xa // b, -(-xb // b)
        n = s[by1, bx1] - s[by0, bx1] - s[by1, bx0] + s[by0, bx0]
        return np.where((ya < yb) & (xa < xb), n, 0)

    def reaches(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """bool per pixel (ys, xs): True wherever a changed pixel lies within the filter's reach of it."""
        a = self.ALONG
        across = self._count(ys - 1, ys + 2, xs - a, xs + a + 1)
        down = self._count(ys - a, ys + a + 1, xs - 1, xs + 2)
        return (across + down) > 0


# sRGB byte -> linear light, and the midpoints between consecutive entries (to round back to the nearest byte).
# Built once in float64 and rounded to float32; an error of one float64 ulp in `**` would change an entry only
# if it fell within 2^-29 of a float32 rounding boundary.
_c = np.arange(256, dtype=np.float64) / 255.0
_TO_LINEAR = np.where(_c <= 0.04045, _c / 12.92, ((_c + 0.055) / 1.055) ** 2.4).astype(np.float32)
_LINEAR_MIDPOINTS = ((_TO_LINEAR[1:].astype(np.float64) + _TO_LINEAR[:-1]) / 2).astype(np.float32)
