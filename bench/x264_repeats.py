"""What x264 (as `VideoWriter` sets it) costs for a repeated frame, at two sizes (issue 29, fifth step).

    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/x264_repeats.py

A synthetic still (gradients and a rectangle), converted once to yuv420p, is piped 1 and 500 times into ffmpeg with
the writer's x264 settings; the CPU seconds of ffmpeg (children) over 499 extra frames give the cost of a repeat.
Extra x264 parameters are tried beside the writer's (aq-mode=0 etc.): bytes and CPU, not quality.
"""

from __future__ import annotations

import os
import tempfile

import imageio_ffmpeg
import numpy as np

from render.common import children_cpu

from voebench.generator.io.video import CAUSAL_X264
from voebench.generator.io.yuv420 import rgb_to_yuv420p


def still(w: int, h: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // w, y * 255 // h, (x + y) * 127 // (w + h)], -1).astype(np.uint8)
    img[h // 4 : h // 2, w // 4 : w // 2] = (200, 40, 40)
    return img


def encode(path: str, w: int, h: int, frame: bytes, n: int, extra: str = "") -> tuple[float, int]:
    params = CAUSAL_X264[1] + extra
    c0 = children_cpu()
    gen = imageio_ffmpeg.write_frames(
        path,
        (w, h),
        pix_fmt_in="yuv420p",
        fps=50,
        codec="libx264",
        pix_fmt_out="yuv420p",
        macro_block_size=2,
        quality=None,
        output_params=["-preset", "veryfast", "-crf", "18", "-x264-params", params, "-threads", "1", "-f", "mp4"],
        ffmpeg_log_level="error",
    )
    gen.send(None)
    for _ in range(n):
        gen.send(frame)
    gen.close()
    return children_cpu() - c0, os.path.getsize(path)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "still.mp4")
        for w, h in ((320, 240), (640, 480)):
            frame = rgb_to_yuv420p(still(w, h))
            for extra in ("", ":aq-mode=0", ":psy=0"):
                one, _ = encode(path, w, h, frame, 1, extra)
                many, size = encode(path, w, h, frame, 500, extra)
                print(
                    f"{w}x{h} x264{extra or ' (the writer)'}: 500 frames {many:.2f} CPU s, 1 frame {one:.2f}, "
                    f"{(many - one) / 499 * 1000:.2f} ms a repeat, {size} bytes"
                )


if __name__ == "__main__":
    main()
