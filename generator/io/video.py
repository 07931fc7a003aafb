"""H.264 mp4 through imageio-ffmpeg's pipe (no PNG round trip).

Frames of even width and height reach ffmpeg as yuv420p made in numpy (generator/io/yuv420.py: integer BT.601
limited range, what every reader assumes), not as RGB for ffmpeg's swscale to convert: half the bytes through the
pipe, and only the part of a frame that changed since the one before it is converted (a held state costs one
comparison). Measured on t15's and t08's videos (docs/performance.md, "Issue 29, fifth step: the encoder"): a higher
PSNR against the RGB frames than swscale's conversion, and imageio-ffmpeg, OpenCV and PyAV decode the files to the
same frames. Odd sizes keep the RGB input (imageio-ffmpeg pads them to even).

x264 codes at a constant quantiser, qp 10, without sub-pixel motion refinement or weighted prediction (issue 29,
eighth step; `bench/x264_settings.py`, docs/performance.md "Issue 29, eighth step"). A held frame cost x264 as much
as its pixels (2.6 ms at 640x480 with crf 18); at qp 10 with subme=0 and weightp=0, 1.3 ms. (Why, as we read x264,
not profiled: no rate control means no per-frame cost estimate on a half-size copy of the frame, which weightp=0
then no longer needs either, and subme=0 no sub-pixel work.)
On every video measured (a still Level 1 video, three Level 2 videos at 640x480, one at 320x240, two AVoE at
960x540) qp 10 gives a higher PSNR than crf 18 against both the lossless coding of the same yuv420p and the RGB
frames, for 0.36-0.64x the encoder's CPU; files 0.44-0.92x the size on GRASP, 1.4-1.6x on AVoE.
"""

from __future__ import annotations

import imageio_ffmpeg
import numpy as np

from voebench.generator.io.yuv420 import Yuv420Stream

# Each frame is coded from itself and the frames before it, never from later ones. x264 by default looks ahead
# (B-frames, the rate-control lookahead, macroblock-tree and scene-cut decisions): then the two videos of a pair,
# identical up to the onset, decode to different frames a few frames *before* it (measured: up to 21 grey levels,
# 7 frames early), which leaks the violation into frames that must be identical and breaks a hidden edit's
# promise. Without lookahead, frames before the onset decode to identical pixels (tests/generator/test_video.py).
CAUSAL_X264 = ["-x264-params", "bframes=0:rc-lookahead=0:mbtree=0:scenecut=0"]
# The writer's parameters: the causal ones, no sub-pixel motion refinement, no weighted prediction; a constant
# quantiser `QP` (see above), which also leaves no rate-control state for later frames to depend on.
X264_PARAMS = ["-x264-params", CAUSAL_X264[1] + ":subme=0:weightp=0"]
QP = 10


class VideoWriter:
    """Write (H, W, 3) uint8 RGB frames into an H.264 mp4 at `path`, in order."""

    def __init__(self, path: str, width: int, height: int, fps: float, qp: int = QP):
        self.path = path
        # yuv420p needs even sizes; the stream's bytes are a pure function of each frame
        self._yuv = Yuv420Stream(width, height) if width % 2 == 0 and height % 2 == 0 else None
        # yuv420p for players everywhere; -threads 1 keeps the encoder off the render cores and the bytes
        # independent of machine size.
        self._gen = imageio_ffmpeg.write_frames(
            path,
            (width, height),
            pix_fmt_in="rgb24" if self._yuv is None else "yuv420p",
            fps=fps,
            codec="libx264",
            pix_fmt_out="yuv420p",
            macro_block_size=2,
            quality=None,
            # -f mp4: the file is written under a temporary name whose extension ffmpeg cannot read
            output_params=["-preset", "veryfast", "-qp", str(qp), *X264_PARAMS, "-threads", "1", "-f", "mp4"],
            ffmpeg_log_level="error",
        )
        self._gen.send(None)

    @property
    def planar(self) -> bool:
        """True where the frames are converted here (even sizes), False where ffmpeg converts RGB."""
        return self._yuv is not None

    def write(self, rgb: np.ndarray) -> None:
        if self._yuv is not None:
            self._gen.send(self._yuv.convert(rgb))
        else:
            self._gen.send(np.ascontiguousarray(rgb, dtype=np.uint8))

    def close(self) -> None:
        self._gen.close()


def read_video(path: str) -> np.ndarray:
    """All frames of an mp4 as (T,H,W,3) uint8."""
    reader = imageio_ffmpeg.read_frames(path)
    meta = reader.__next__()
    w, h = meta["size"]
    frames = [np.frombuffer(b, np.uint8).reshape(h, w, 3) for b in reader]
    return np.stack(frames) if frames else np.zeros((0, h, w, 3), np.uint8)


def count_frames(path: str) -> int:
    return imageio_ffmpeg.count_frames_and_secs(path)[0]
