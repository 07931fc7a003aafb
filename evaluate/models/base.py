"""The adapter interface: a conversation in, text out, a batch at a time.

A conversation is a list of plain dicts, the same for every backend:

    {"role": "system", "text": "..."}
    {"role": "user", "text": "...", "video": {"rel", "path", "indices", "fps", "n_frames", "width", "height"}}
    {"role": "assistant", "text": "..."}          # the model's earlier replies (CoT, one-shot)

`video` is optional (absent for text-only turns). `indices` are the frames the harness chose with
`frames.sample_frame_indices`; adapters that decode frames must use exactly those (`frames.read_frames`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class AdapterError(RuntimeError):
    """A model call that failed for good (after the adapter's own retries)."""


@dataclass
class Request:
    messages: list[dict]
    seed: int
    repeat: int
    turn: int  # 0-based index of the user turn being answered
    n_turns: int
    sample: Any = None  # the evaluate.tasks.Sample; only `fake` (oracle) and `replay` may look at it


class Adapter:
    """Subclasses set `name` (what the run logs as the model) and implement `generate`."""

    name: str = "adapter"
    batch_size: int = 1
    decodes_video: bool = False  # True: the runner prefetches (decodes) the next batch's frames in the background
    pipelined: bool = False  # set by the runner when decoding runs in worker processes (`--num-workers` > 0)
    timer: Any = None  # the run's timing.StageTimer, set by the runner; adapters may add their inner stages to it

    def settings(self) -> dict:
        """Everything that changes the model's answers (goes into the cache key and the log)."""
        return {}

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        """One reply per request, in order. A failed request may be returned as an exception instead of raising,
        so the others of the batch are kept."""
        raise NotImplementedError

    def prefetch(self, requests: list[Request]) -> None:
        """A hint from the runner: these requests come next. Adapters may start preparing them (the hf adapter runs
        its processor a batch ahead when pipelined); the default does nothing."""

    def close(self) -> None:
        pass
