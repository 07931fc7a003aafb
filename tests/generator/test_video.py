"""The mp4 writer codes each frame without looking ahead, so two videos that are identical up to a frame decode
to identical frames up to that frame (a pair's plausible and implausible videos before the onset)."""

import numpy as np


def _clip(vanish_at: int | None, n: int = 60) -> list[np.ndarray]:
    frames = []
    for t in range(n):
        f = np.full((96, 128, 3), 90, np.uint8)
        f[70:, :] = (60, 120, 60)
        x = 5 + t
        if vanish_at is None or t < vanish_at:
            f[30:50, x : x + 20] = (200, 40, 40)
        f[10:25, 100 - t : 115 - t] = (40, 40, 200)
        frames.append(f)
    return frames


def _write(path, frames):
    from voebench.generator.io.video import VideoWriter

    w = VideoWriter(str(path), 128, 96, 25)
    for f in frames:
        w.write(f)
    w.close()


def test_frames_before_a_difference_decode_identically(tmp_path):
    from voebench.generator.io.video import read_video

    onset = 30
    _write(tmp_path / "a.mp4", _clip(None))
    _write(tmp_path / "b.mp4", _clip(onset))
    a, b = read_video(str(tmp_path / "a.mp4")), read_video(str(tmp_path / "b.mp4"))
    assert a.shape == b.shape == (60, 96, 128, 3)
    diff = np.abs(a.astype(int) - b.astype(int)).reshape(60, -1).max(axis=1)
    assert diff[:onset].max() == 0, f"pre-onset frames differ (first at {int(np.argmax(diff > 0))})"
    assert diff[onset:].max() > 50  # the difference itself is coded
