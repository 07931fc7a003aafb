"""Which frames a world model sees, following facebookresearch/jepa-intuitive-physics (configs/default_grasp.yaml).

A video is subsampled every `frame_step` frames; the sampled frames are cut into windows of `window` frames that
start every `stride` sampled frames; for each context length C the model sees the first C frames of a window and
predicts the rest. GRASP's videos (50 fps) use frame_step 10, i.e. 5 sampled frames per second: `auto_frame_step`
keeps that rate for any frame rate, but takes a smaller step where the video would otherwise give fewer than
`min_windows` windows (AVoE's 2-second clips).

Each frame is cut to its central square (`square_box`, the reference's crop) before a model sees it.

A window's surprise is placed at the (original) index of its last frame: a window that ends before the violation's
first frame saw only frames that both videos of a pair share, so its surprise must be equal in both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: Sampled frames per second of the reference protocol (GRASP: 50 fps, frame_step 10).
REFERENCE_RATE = 5.0


@dataclass(frozen=True)
class Protocol:
    window: int = 16
    stride: int = 2
    context_lengths: tuple[int, ...] = (2, 4, 6, 8, 10)
    #: The context length declared before looking at any result (the headline number); the report also shows the
    #: best context length per test, which is what the reference figures plot (an optimistic, selected number).
    fixed_context: int = 8
    #: None = `auto_frame_step` per video.
    frame_step: int | None = None
    min_windows: int = 5

    def __post_init__(self):
        if self.window < 2 or self.stride < 1:
            raise ValueError("window must be >= 2 and stride >= 1")
        bad = [c for c in self.context_lengths if not 0 < c < self.window]
        if bad or not self.context_lengths:
            raise ValueError(f"context lengths must lie in 1..{self.window - 1}, got {list(self.context_lengths)}")
        if self.fixed_context not in self.context_lengths:
            raise ValueError(f"the fixed context {self.fixed_context} is not among {list(self.context_lengths)}")
        if self.frame_step is not None and self.frame_step < 1:
            raise ValueError("frame_step must be >= 1")

    def record(self) -> dict:
        d = asdict(self)
        d["context_lengths"] = list(self.context_lengths)
        return d

    def step_for(self, n_frames: int, fps: float) -> int:
        if self.frame_step is not None:
            return self.frame_step
        return auto_frame_step(n_frames, fps, self.window, self.stride, self.min_windows)

    def frames(self, n_frames: int, fps: float) -> list[int]:
        """The original indices of the frames the model sees."""
        return list(range(0, n_frames, self.step_for(n_frames, fps)))

    def starts(self, n_sampled: int) -> list[int]:
        """Start (in sampled frames) of each window; empty when the video is shorter than one window."""
        return list(range(0, n_sampled - self.window + 1, self.stride))


def auto_frame_step(n_frames: int, fps: float, window: int = 16, stride: int = 2, min_windows: int = 5) -> int:
    """The step that gives REFERENCE_RATE sampled frames per second, lowered (down to 1) until the video yields at
    least `min_windows` windows."""
    step = max(1, round(fps / REFERENCE_RATE)) if fps > 0 else 1
    need = window + stride * (min_windows - 1)
    while step > 1 and len(range(0, n_frames, step)) < need:
        step -= 1
    return step


def window_ends(frames: list[int], starts: list[int], window: int) -> list[int]:
    """Original index of the last frame of each window."""
    return [frames[s + window - 1] for s in starts]


def square_box(h: int, w: int) -> tuple[int, int, int]:
    """(top, left, side) of the central square of an h x w frame: side = min(h, w), the rest split with the odd
    pixel on the bottom/right (the reference's `(height - h) // 2`, `(width - w) // 2`)."""
    side = min(h, w)
    return (h - side) // 2, (w - side) // 2, side


def center_square(clips):
    """The central square (`square_box`) of every frame of (..., H, W, C) clips (a view, no copy)."""
    h, w = clips.shape[-3], clips.shape[-2]
    top, left, side = square_box(h, w)
    return clips[..., top : top + side, left : left + side, :]
