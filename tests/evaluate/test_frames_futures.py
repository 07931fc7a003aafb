"""The clip futures of evaluate/frames.py: a clip whose decode finishes before its bookkeeping is attached (read
from the frame store at once, under load) must not lock the reader out (the `--replicas` hang of issue 28)."""

from __future__ import annotations

import threading
from concurrent.futures import Executor, Future

import numpy as np

from voebench.evaluate import frames


class _DoneAtOnce(Executor):
    """An executor whose futures are already done when `submit` returns: the race at its worst."""

    def submit(self, fn, /, *args, **kwargs):
        fut: Future = Future()
        fut.set_result((np.zeros((1, 2, 2, 3), np.uint8), 0.25, True))
        return fut


def test_a_clip_done_before_submit_returns_is_read_and_counted(monkeypatch):
    monkeypatch.setattr(frames, "_pool", lambda: _DoneAtOnce())
    frames.clear_cache()
    frames.reset_stats()
    got: list[np.ndarray] = []
    reader = threading.Thread(target=lambda: got.append(frames.read_frames("/nowhere/clip.mp4", [0])), daemon=True)
    reader.start()
    reader.join(10.0)
    assert not reader.is_alive(), "read_frames locked itself out"  # before the fix: _count waited on _LOCK forever
    assert got and got[0].shape == (1, 2, 2, 3)
    assert frames.STATS["clips"] == 1 and frames.STATS["stored"] == 1 and frames.STATS["seconds"] == 0.25
    frames.prefetch([("/nowhere/clip.mp4", [0])])  # the same clip again: cached, counted once
    assert frames.STATS["clips"] == 1
    frames.clear_cache()
