"""The numpy FXAA filter: its fast form (wide padding, flat taps, all taps of a direction gathered at once) gives
the same bytes as the plain form it replaced (1-pixel padding, every tap clipped), kept here as the reference."""

import numpy as np
import pytest

from voebench.generator.antialias import (
    _LINEAR_MIDPOINTS,
    _TO_LINEAR,
    EDGE_MIN,
    EDGE_REL,
    RAMP_BIAS,
    SEARCH_STEPS,
    SUBPIX,
    fxaa,
    luma,
)


def reference_fxaa(rgb: np.ndarray) -> np.ndarray:
    """`fxaa` of generator/antialias.py before it was sped up: 1-pixel padding, every tap clipped to the image."""
    h, w, _ = rgb.shape
    # (H, W) in [0, 1]; the luma is `antialias.luma` (elementwise: a matrix product's rounding follows the BLAS
    # kernel, test_luma_does_not_depend_on_the_arrays_shape)
    p = np.pad(luma(rgb), 1, mode="edge")  # neighbours of border pixels repeat the border
    m = p[1:-1, 1:-1]
    n, s, wst, e = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    lmax = np.maximum(np.maximum(np.maximum(n, s), np.maximum(wst, e)), m)
    lmin = np.minimum(np.minimum(np.minimum(n, s), np.minimum(wst, e)), m)
    rng = lmax - lmin
    edge = rng >= np.maximum(EDGE_MIN, lmax * EDGE_REL)
    ys, xs = np.nonzero(edge)
    if len(ys) == 0:
        return rgb.copy()
    # everything below works on the edge pixels only (a few % of the image)
    py, px = ys + 1, xs + 1  # coordinates in the padded luma
    lm, ln, ls, lw, le = (q[ys, xs] for q in (m, n, s, wst, e))
    lnw, lne, lsw, lse = p[py - 1, px - 1], p[py - 1, px + 1], p[py + 1, px - 1], p[py + 1, px + 1]
    r = rng[ys, xs]

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
    ay = np.where(is_h, 0, 1)  # unit step along the edge
    ax = 1 - ay
    oy, ox = np.where(is_h, side, 0), np.where(is_h, 0, side)  # offset to the pair pixel
    hp, wp = h + 2, w + 2
    far = np.float32(2 * SEARCH_STEPS[-1])  # where an end not found within the search counts as being
    dist_neg, dist_pos = np.full(len(ys), far, np.float32), np.full(len(ys), far, np.float32)
    end_neg, end_pos = np.zeros(len(ys), np.float32), np.zeros(len(ys), np.float32)
    for sign, dist, end in ((-1, dist_neg, end_neg), (1, dist_pos, end_pos)):
        open_ = np.arange(len(ys))  # pixels whose end on this side is not found yet (most end within a few steps)
        d = 0
        for step in SEARCH_STEPS:
            d += step
            yy = np.clip(py[open_] + sign * d * ay[open_], 0, hp - 1)
            xx = np.clip(px[open_] + sign * d * ax[open_], 0, wp - 1)
            pair = p[np.clip(yy + oy[open_], 0, hp - 1), np.clip(xx + ox[open_], 0, wp - 1)]
            delta = (p[yy, xx] + pair) * np.float32(0.5) - mid[open_]
            found = np.abs(delta) >= thresh[open_]
            dist[open_[found]] = d
            end[open_[found]] = delta[found]
            open_ = open_[~found]
            if len(open_) == 0:
                break
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
    out = rgb.copy()
    out[ys, xs] = np.searchsorted(_LINEAR_MIDPOINTS, mixed).astype(np.uint8)  # nearest sRGB byte
    return out


def _images():
    rng = np.random.default_rng(7)
    noise = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in [(1, 1), (2, 3), (5, 40), (30, 7), (48, 64)]]
    bits = (rng.random((60, 80, 1)) > 0.5).repeat(3, 2).astype(np.uint8) * 255
    # long, nearly axis-aligned edges that run into the border: the search reaches past the image there
    stairs = np.zeros((48, 64, 3), np.uint8)
    for x in range(64):
        stairs[: 10 + x // 9, x] = 220
        stairs[30 + x // 13 :, x, 1] = 180
    stairs[:, :2] = 255
    return [*noise, bits, stairs, stairs.transpose(1, 0, 2).copy()]


@pytest.mark.parametrize("i", range(len(_images())))
def test_fast_fxaa_gives_the_reference_bytes(i):
    img = _images()[i]
    out = fxaa(img)
    assert out.dtype == np.uint8 and out.shape == img.shape
    np.testing.assert_array_equal(out, reference_fxaa(img))


def test_fxaa_changes_edges_only():
    img = _images()[-2]
    out = fxaa(img)
    assert (out != img).any()  # the staircase is smoothed
    assert (out[20:28, 10:50] == img[20:28, 10:50]).all()  # the flat band between the edges is untouched


def test_fxaa_rejects_other_images():
    with pytest.raises(ValueError):
        fxaa(np.zeros((4, 4), np.uint8))


def test_luma_does_not_depend_on_the_arrays_shape():
    """Every window of an image has the whole image's luma bits there (a matrix product did not on an AVX-512
    machine: one pixel of the dirty path's composite then differed from the whole-frame filter)."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (67, 101, 3), dtype=np.uint8)
    whole = luma(img)
    for y0, y1, x0, x1 in [(0, 67, 0, 101), (5, 6, 3, 90), (10, 41, 17, 18), (1, 66, 1, 100), (30, 50, 40, 60)]:
        np.testing.assert_array_equal(luma(np.ascontiguousarray(img[y0:y1, x0:x1])), whole[y0:y1, x0:x1])
    flat = img.reshape(-1, 3)
    np.testing.assert_array_equal(luma(flat).reshape(67, 101), whole)
