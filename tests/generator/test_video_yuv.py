"""The mp4 writer's own RGB -> yuv420p conversion (generator/io/yuv420.py) and its reuse of converted frames."""

import os

import numpy as np
import pytest

from voebench.generator.io import yuv420
from voebench.generator.io.video import VideoWriter, read_video
from voebench.generator.io.yuv420 import rgb_to_yuv420p


def _planes(data: bytes, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.frombuffer(data, np.uint8)
    n = h * w
    return a[:n].reshape(h, w), a[n : n + n // 4].reshape(h // 2, w // 2), a[n + n // 4 :].reshape(h // 2, w // 2)


def _reference(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BT.601 limited range in float64, chroma from 2x2 block means."""
    x = rgb.astype(np.float64)
    y = 16 + 219 / 255 * (0.299 * x[..., 0] + 0.587 * x[..., 1] + 0.114 * x[..., 2])
    m = (x[0::2, 0::2] + x[1::2, 0::2] + x[0::2, 1::2] + x[1::2, 1::2]) / 4
    cb = 128 + 224 / 255 * (-0.168736 * m[..., 0] - 0.331264 * m[..., 1] + 0.5 * m[..., 2])
    cr = 128 + 224 / 255 * (0.5 * m[..., 0] - 0.418688 * m[..., 1] - 0.081312 * m[..., 2])
    return y, cb, cr


def test_primaries_take_the_bt601_limited_range_values():
    # the textbook 8-bit BT.601 studio-range values: a full-range or BT.709 matrix gives other numbers
    expect = {
        (0, 0, 0): (16, 128, 128),
        (255, 255, 255): (235, 128, 128),
        (255, 0, 0): (81, 90, 240),
        (0, 255, 0): (145, 54, 34),
        (0, 0, 255): (41, 240, 110),
    }
    for rgb, yuv in expect.items():
        frame = np.zeros((2, 4, 3), np.uint8) + np.array(rgb, np.uint8)
        y, cb, cr = _planes(rgb_to_yuv420p(frame), 2, 4)
        assert (int(y[0, 0]), int(cb[0, 0]), int(cr[0, 0])) == yuv, rgb


def test_conversion_rounds_the_exact_formula():
    rng = np.random.default_rng(7)
    frame = rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)
    frame[:8] = [[0, 0, 0], [255, 255, 255]] * 32  # extremes next to each other
    got = _planes(rgb_to_yuv420p(frame), 48, 64)
    for g, ref in zip(got, _reference(frame)):
        err = np.abs(g.astype(np.float64) - ref)
        assert err.max() <= 0.5 + 3 * 255 * 2.0**-yuv420.SHIFT  # rounding, plus the fixed-point weights


def test_odd_sizes_are_refused_by_the_conversion():
    with pytest.raises(ValueError, match="even"):
        rgb_to_yuv420p(np.zeros((3, 4, 3), np.uint8))


def _clip(n: int = 12) -> list[np.ndarray]:
    frames = []
    yy, xx = np.mgrid[0:96, 0:128]
    for t in range(n):
        f = np.stack([(xx * 2) % 256, (yy * 2 + 40) % 256, np.full_like(xx, 90)], axis=-1).astype(np.uint8)
        f[30:60, 10 + 4 * t : 40 + 4 * t] = (220, 30, 30)
        frames.append(f)
    return frames


def test_decoded_colours_match_the_frames(tmp_path):
    """Written through the numpy conversion, decoded by imageio-ffmpeg (BT.601 limited range assumed): flat
    saturated colours come back within a few levels (a wrong matrix or range is off by tens)."""
    colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (20, 20, 20), (200, 150, 60)]
    frames = [np.zeros((48, 64, 3), np.uint8) + np.array(c, np.uint8) for c in colours]
    w = VideoWriter(str(tmp_path / "c.mp4"), 64, 48, 25)
    assert w.planar  # the numpy conversion, not ffmpeg's
    for f in frames:
        w.write(f)
    w.close()
    dec = read_video(str(tmp_path / "c.mp4"))
    assert dec.shape == (len(colours), 48, 64, 3)
    err = np.abs(dec.astype(int) - np.stack(frames).astype(int))
    assert err.max() <= 3, err.reshape(len(colours), -1).max(axis=1)


@pytest.mark.parametrize("w", [64, 66])  # 66: a row's bytes do not divide by 8 (compared byte by byte)
def test_stream_converts_only_changes_and_equals_whole_conversions(w):
    """Changes of every kind (one pixel at an edge or an odd position, a box, the whole frame, none) in one buffer
    changed in place: each output equals the whole frame's conversion."""
    rng = np.random.default_rng(3)
    h = 48
    buf = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    stream = yuv420.Yuv420Stream(w, h)
    edits = [(0, 1, 0, 1), (h - 1, h, w - 1, w), (5, 6, 7, 8), (9, 30, 3, 41), (0, h, 0, w), None, (17, 18, 0, w)]
    edits += [tuple(sorted(rng.integers(0, h, 2)) + sorted(rng.integers(0, w, 2))) for _ in range(30)]
    assert stream.convert(buf) == rgb_to_yuv420p(buf)
    for e in edits:
        if e is not None:
            y0, y1, x0, x1 = e
            buf[y0 : y1 + 1, x0 : x1 + 1] = rng.integers(0, 256, (min(h, y1 + 1) - y0, min(w, x1 + 1) - x0, 3))
        assert stream.convert(buf) == rgb_to_yuv420p(buf), e


def test_changed_box_holds_the_changed_blocks():
    a = np.zeros((8, 16, 3), np.uint8)  # rows of 48 bytes: compared 8 bytes (2 2/3 pixels) at a time
    b = a.copy()
    assert yuv420.changed_box(a, b) is None
    b[3, 5, 2] = 1  # byte 17 of row 3: bytes 16-23 are pixels 5-7, in the blocks of columns 4-7
    assert yuv420.changed_box(a, b) == (2, 4, 4, 8)
    b[6, 15, 0] = 1
    assert yuv420.changed_box(a, b) == (2, 8, 4, 16)
    a, b = np.zeros((8, 22, 3), np.uint8), np.zeros((8, 22, 3), np.uint8)  # 66 bytes: byte by byte, the smallest box
    b[3, 5, 2] = 1
    assert yuv420.changed_box(a, b) == (2, 4, 4, 6)


def test_writer_bytes_do_not_depend_on_how_frames_arrive(tmp_path):
    """One buffer changed in place, or fresh arrays: the same mp4 bytes (the conversion is a function of the frame)."""
    frames = _clip()
    fresh, reused = tmp_path / "fresh.mp4", tmp_path / "reused.mp4"
    w = VideoWriter(str(fresh), 128, 96, 25)
    for f in frames:
        w.write(f.copy())
    w.close()
    buf = np.zeros_like(frames[0])
    w = VideoWriter(str(reused), 128, 96, 25)
    for f in frames + frames[-1:] * 3:
        buf[:] = f
        w.write(buf)
    w.close()
    assert len(read_video(str(reused))) == len(frames) + 3
    fresh2 = tmp_path / "fresh2.mp4"
    w = VideoWriter(str(fresh2), 128, 96, 25)
    for f in frames + frames[-1:] * 3:
        w.write(f.copy())
    w.close()
    assert reused.read_bytes() == fresh2.read_bytes()
    assert fresh.read_bytes() != fresh2.read_bytes()  # three more frames


def test_odd_sizes_keep_the_rgb_input(tmp_path):
    w = VideoWriter(str(tmp_path / "odd.mp4"), 65, 49, 25)
    assert not w.planar
    for v in (30, 120, 210):
        w.write(np.full((49, 65, 3), v, np.uint8))
    w.close()
    assert os.path.getsize(tmp_path / "odd.mp4") > 0
    assert len(read_video(str(tmp_path / "odd.mp4"))) == 3
