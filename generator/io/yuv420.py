"""RGB frames to planar yuv420p in integer numpy: BT.601, limited range, the colours every H.264 reader assumes.

An mp4 that says nothing about its colours is decoded with BT.601 limited-range ("tv") coefficients by ffmpeg's
swscale, so by imageio-ffmpeg, OpenCV and PyAV alike; the same coefficients in, the same colours out:

    Y  = 16  + 219/255 * ( 0.299    R + 0.587    G + 0.114    B)
    Cb = 128 + 224/255 * (-0.168736 R - 0.331264 G + 0.5      B)
    Cr = 128 + 224/255 * ( 0.5      R - 0.418688 G - 0.081312 B)

Chroma is taken from each 2x2 block's mean RGB (centred siting). The arithmetic is integer only: coefficients
scaled by 2**SHIFT and rounded once, sums of exact products, one rounding shift at the end. So the bytes are the
same on every machine and with any number of threads, and no value is off by more than the final rounding plus
3 * 255 * 2**-SHIFT from the formula above. Width and height must be even (one chroma sample per 2x2 block).

`Yuv420Stream` converts a sequence of frames and, since a 2x2 block's values depend on that block's pixels alone,
converts only the box of blocks where a frame differs from the one before it; the rest is the previous frame's
bytes. Its output is `rgb_to_yuv420p` of each frame, byte for byte (tests/generator/test_video_yuv.py).
"""

from __future__ import annotations

import numpy as np

SHIFT = 14  # fixed-point precision; with chroma taken from sums of 4 pixels every partial sum stays below 2**31


def _fixed(c: float, scale: float) -> int:
    return int(round(c * scale * (1 << SHIFT)))


# Y's weights per 8-bit channel; Cb's and Cr's per channel of a 2x2 block's sum (hence the / 4).
_Y = [_fixed(c, 219 / 255) for c in (0.299, 0.587, 0.114)]
_CB = [_fixed(c, 224 / 255 / 4) for c in (-0.168736, -0.331264, 0.5)]
_CR = [_fixed(c, 224 / 255 / 4) for c in (0.5, -0.418688, -0.081312)]
_Y_OFFSET = (16 << SHIFT) + (1 << (SHIFT - 1))  # + half: round to nearest
_C_OFFSET = (128 << SHIFT) + (1 << (SHIFT - 1))


def _check(rgb: np.ndarray) -> None:
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.shape[0] % 2 or rgb.shape[1] % 2:
        raise ValueError(f"yuv420p needs an RGB frame of even width and height, got {rgb.shape}")


def _block_sums(plane: np.ndarray) -> np.ndarray:
    """Sum of each 2x2 block of an (H, W) plane: rows paired first, then columns."""
    rows = plane[0::2] + plane[1::2]
    return rows[:, 0::2] + rows[:, 1::2]


def _weighted(a: np.ndarray, b: np.ndarray, c: np.ndarray, weights: list[int], offset: int) -> np.ndarray:
    out = a * weights[0]
    out += b * weights[1]
    out += c * weights[2]
    out += offset
    out >>= SHIFT
    return out  # within 16..235 (Y) and 16..240 (Cb, Cr) by construction: no clipping needed


def rgb_to_planes(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Y, Cb, Cr) int32 planes of an (H, W, 3) uint8 RGB frame, H and W even: (H, W), (H/2, W/2), (H/2, W/2)."""
    _check(rgb)
    r, g, b = (rgb[..., i].astype(np.int32) for i in range(3))  # one contiguous copy per channel
    y = _weighted(r, g, b, _Y, _Y_OFFSET)
    sr, sg, sb = (_block_sums(p) for p in (r, g, b))
    return y, _weighted(sr, sg, sb, _CB, _C_OFFSET), _weighted(sr, sg, sb, _CR, _C_OFFSET)


def frame_bytes(width: int, height: int) -> int:
    """Bytes of one yuv420p frame: a full-size luma plane and two quarter-size chroma planes."""
    return width * height * 3 // 2


def rgb_to_yuv420p(rgb: np.ndarray) -> bytes:
    """One (H, W, 3) uint8 RGB frame as yuv420p bytes (the Y plane, then Cb, then Cr), H and W even."""
    h, w = rgb.shape[:2]
    out = np.empty(frame_bytes(w, h), np.uint8)
    n = w * h
    for dst, plane in zip((out[:n], out[n : n + n // 4], out[n + n // 4 :]), rgb_to_planes(rgb)):
        dst[:] = plane.ravel()
    return out.tobytes()


class Yuv420Stream:
    """yuv420p bytes of consecutive frames of one size, converting only what changed since the previous frame.

    It keeps its own copy of the previous frame (so a caller that reuses one buffer for every frame is safe) and
    that frame's planes; a frame equal to it costs one comparison."""

    def __init__(self, width: int, height: int):
        _check(np.empty((height, width, 3), np.uint8))
        self.width, self.height = width, height
        self._rgb: np.ndarray | None = None
        self._buf = np.empty(frame_bytes(width, height), np.uint8)
        n = width * height
        self._y = self._buf[:n].reshape(height, width)
        self._cb = self._buf[n : n + n // 4].reshape(height // 2, width // 2)
        self._cr = self._buf[n + n // 4 :].reshape(height // 2, width // 2)
        self._bytes = b""

    def convert(self, rgb: np.ndarray) -> bytes:
        rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
        if rgb.shape != (self.height, self.width, 3):
            raise ValueError(f"frame of shape {rgb.shape} in a {self.width}x{self.height} stream")
        if self._rgb is None:
            self._rgb = rgb.copy()
            box: tuple[int, int, int, int] | None = (0, self.height, 0, self.width)
        else:
            box = changed_box(self._rgb, rgb)
            if box is None:
                return self._bytes
        assert box is not None
        y0, y1, x0, x1 = box
        self._rgb[y0:y1, x0:x1] = rgb[y0:y1, x0:x1]
        y, cb, cr = rgb_to_planes(rgb[y0:y1, x0:x1])
        self._y[y0:y1, x0:x1] = y
        self._cb[y0 // 2 : y1 // 2, x0 // 2 : x1 // 2] = cb
        self._cr[y0 // 2 : y1 // 2, x0 // 2 : x1 // 2] = cr
        self._bytes = self._buf.tobytes()
        return self._bytes


def changed_box(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int, int] | None:
    """(y0, y1, x0, x1): a box of whole 2x2 blocks holding every pixel where two C-contiguous (H, W, 3) uint8
    frames of even sizes differ; None where they are equal. Rows are compared 8 bytes at a time where a row's bytes
    divide by 8 (the box then reaches up to 3 pixels further left or right than the smallest), else byte by byte."""
    h, w = a.shape[:2]
    ra, rb = a.reshape(h, w * 3), b.reshape(h, w * 3)
    unit = 8 if (w * 3) % 8 == 0 else 1
    if unit == 8:
        ra, rb = ra.view(np.uint64), rb.view(np.uint64)
    rows = np.flatnonzero((ra != rb).any(axis=1))
    if rows.size == 0:
        return None
    y0, y1 = int(rows[0]), int(rows[-1]) + 1
    cols = np.flatnonzero((ra[y0:y1] != rb[y0:y1]).any(axis=0))
    x0, x1 = int(cols[0]) * unit // 3, -(-(int(cols[-1]) + 1) * unit // 3)  # byte columns -> pixels, outward
    return y0 - y0 % 2, min(h, y1 + y1 % 2), x0 - x0 % 2, min(w, x1 + x1 % 2)
