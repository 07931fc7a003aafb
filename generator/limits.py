"""Bounds on the render command's settings, each with its reason, checked before anything is written.

A value outside these bounds used to be accepted and fail once per video (`--fps nan`: 768 tracebacks) or
exhaust a machine (`--resolution 100000x100000`). Each check raises `UsageError` naming the flag.
"""

from __future__ import annotations

import math

from voebench.errors import UsageError

#: frames per second. Below 1 a video has fewer frames than seconds and physics steps (one per frame plus
#: substeps) get too coarse for contacts; 240 is the fastest common high-speed video rate, and every frame is a
#: physics step and a render, so more is a typo rather than a wish.
FPS_MIN, FPS_MAX = 1.0, 240.0

#: video length in seconds. The suites' videos last 2-10 s; five minutes is far past any test and keeps one
#: video's states (one row per frame per object) and render time bounded.
SECONDS_MAX = 300.0

#: trials per test. Video ids carry a 5-digit index (`grasp-l1/shape/00042`), so 100000 trials or more would
#: give ids of different widths that no longer sort in order.
TRIALS_MAX = 99_999

#: worker processes. Each is a warm Blender (several hundred MB resident); more than this on one host is a typo.
WORKERS_MAX = 256

#: render threads per worker (0 = cores / workers). llvmpipe and Cycles gain nothing from more threads than cores.
THREADS_MAX = 1024

#: Cycles / Eevee samples per pixel (Blender's own UI stops at 4096).
SAMPLES_MAX = 65_536

#: the base seed is recorded as a signed 64-bit integer.
SEED_LIMIT = 2**63

#: the smallest image side: the encoder's 2-pixel macro blocks and a meaningful picture.
MIN_SIDE = 16

#: Blender's largest render resolution per side.
MAX_SIDE = 65_536

#: Bytes per pixel one frame holds in a worker while it is rendered and written: Blender's float RGBA render
#: result (16) and its depth pass (4), the RGB BMP on disk and as read (4 + 4) and its copy (3), the depth EXR
#: as read and its copy (4 + 4), the segmentation BMP as read (4), widened to uint16 (8) and combined (2):
#: 57, rounded up to 64 for the encoder's and HDF5's buffers.
FRAME_BYTES_PER_PIXEL = 64

#: With frame reuse on (the default) a worker keeps the RGB image (3 bytes a pixel) of every distinct state of
#: the video it renders, up to one per frame.
REUSE_BYTES_PER_PIXEL_PER_FRAME = 3

#: The most memory one worker may need for one video's images (8 GiB): a machine runs one worker per core.
WORKER_MEMORY_CAP = 8 * 2**30


def finite(flag: str, value: float) -> float:
    if value is None or not math.isfinite(value):
        raise UsageError(f"{flag} {value}: must be a finite number")
    return value


def check_fps(fps: float) -> float:
    finite("--fps", fps)
    if not FPS_MIN <= fps <= FPS_MAX:
        raise UsageError(f"--fps {fps:g}: must be between {FPS_MIN:g} and {FPS_MAX:g} frames per second")
    return fps


def check_seconds(seconds: float, fps: float) -> float:
    finite("--seconds", seconds)
    if not 0 < seconds <= SECONDS_MAX:
        raise UsageError(f"--seconds {seconds:g}: must be above 0 and at most {SECONDS_MAX:g} (five minutes)")
    if seconds * fps < 1:
        raise UsageError(f"--seconds {seconds:g}: shorter than one frame at {fps:g} fps")
    return seconds


def check_count(flag: str, value: int, lo: int, hi: int, why: str = "") -> int:
    if not lo <= value <= hi:
        raise UsageError(f"{flag} {value}: must be at least {lo} and at most {hi}{why}")
    return value


def check_seed(seed: int) -> int:
    if not 0 <= seed < SEED_LIMIT:
        raise UsageError(f"--seed {seed}: must be a whole number with 0 <= seed < 2**63")
    return seed


def check_fraction(fraction: float) -> float:
    finite("--fraction", fraction)
    if not 0 < fraction <= 1:
        raise UsageError(f"--fraction {fraction:g}: must be above 0 and at most 1")
    return fraction


def parse_resolution(text: str) -> tuple[int, int]:
    parts = text.strip().lower().split("x")
    try:
        if len(parts) != 2:
            raise ValueError
        w, h = (int(v) for v in parts)
    except ValueError:
        raise UsageError(f"--resolution {text!r}: expected WIDTHxHEIGHT, e.g. 320x240") from None
    if w < MIN_SIDE or h < MIN_SIDE or w % 2 or h % 2:
        raise UsageError(f"--resolution {text!r}: width and height must be even and at least {MIN_SIDE}")
    if w > MAX_SIDE or h > MAX_SIDE:
        raise UsageError(f"--resolution {text!r}: at most {MAX_SIDE} pixels a side (Blender's limit)")
    return w, h


def worker_memory(width: int, height: int, n_frames: int, reuse: bool, rgb: bool) -> int:
    """Estimated bytes one worker holds for one video's images (see FRAME_BYTES_PER_PIXEL)."""
    per_pixel = FRAME_BYTES_PER_PIXEL + (REUSE_BYTES_PER_PIXEL_PER_FRAME * n_frames if reuse and rgb else 0)
    return width * height * per_pixel


def check_memory(width: int, height: int, n_frames: int, reuse: bool, passes: tuple) -> None:
    if not passes:  # --states-only renders no image
        return
    need = worker_memory(width, height, n_frames, reuse, "rgb" in passes)
    if need > WORKER_MEMORY_CAP:
        hint = " or --no-reuse" if reuse and "rgb" in passes else ""
        raise UsageError(
            f"--resolution {width}x{height}: a worker would need about {need / 2**30:.1f} GiB for "
            f"{n_frames} frames' images (cap {WORKER_MEMORY_CAP / 2**30:.0f} GiB); use a smaller "
            f"--resolution, fewer --seconds{hint}"
        )
