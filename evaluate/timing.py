"""Where a scoring run spends its time: seconds per stage, and how busy the GPU was while the model generated.

Stages (see docs/evaluate.md, "Where the time goes"):

- ``decode``: decoding video frames (summed over clips; in worker processes these overlap with everything else);
- ``preprocess``: the model's processor (chat template, tokenizer, video resize/normalise) and the copy to the device;
- ``wait``: the main loop blocked on frames or inputs that were not ready yet (the stall that leaves a GPU idle);
- ``generate``: the model call itself (hf: ``model.generate``; other adapters: the whole adapter call);
- ``parse``: scoring the answers; ``write``: the cache, the per-sample log and run.json.

Stages that run in background threads or processes overlap, so their seconds can add up to more than the wall time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

STAGES = ("decode", "preprocess", "wait", "generate", "parse", "write")


class StageTimer:
    """Thread-safe seconds and counts per stage; the intervals of ``generate`` are kept so GPU samples taken while
    the model generated can be told apart from the rest."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds: dict[str, float] = {s: 0.0 for s in STAGES}
        self.counts: dict[str, int] = {s: 0 for s in STAGES}
        self.generate_intervals: list[tuple[float, float]] = []

    def add(self, stage: str, seconds: float, count: int | float = 1) -> None:
        with self._lock:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds
            self.counts[stage] = self.counts.get(stage, 0) + int(count)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.time()
        try:
            yield
        finally:
            t1 = time.time()
            self.add(name, t1 - t0)
            if name == "generate":
                with self._lock:
                    self.generate_intervals.append((t0, t1))

    def summary(self, wall_seconds: float) -> dict:
        with self._lock:
            stages = {
                s: {
                    "seconds": round(self.seconds[s], 4),
                    "count": self.counts[s],
                    "share_of_wall": round(self.seconds[s] / wall_seconds, 4) if wall_seconds > 0 else None,
                }
                for s in self.seconds
            }
        return {"wall_seconds": round(wall_seconds, 4), "stages": stages}


@contextmanager
def timed(timer: StageTimer | None, stage: str) -> Iterator[None]:
    """`timer.stage(stage)`, or nothing when no timer is attached (an adapter used outside a run)."""
    if timer is None:
        yield
    else:
        with timer.stage(stage):
            yield


def utilisation_during(times: list[float], values: list[float], intervals: list[tuple[float, float]]) -> dict:
    """Mean / median of the GPU samples taken inside the given intervals (the generation phase) and of all samples."""
    import statistics

    inside = [v for t, v in zip(times, values) if any(a <= t <= b for a, b in intervals)]

    def stats(xs: list[float]) -> dict:
        return {
            "samples": len(xs),
            "mean_percent": round(statistics.fmean(xs), 1) if xs else None,
            "median_percent": round(statistics.median(xs), 1) if xs else None,
        }

    return {"whole_run": stats(list(values)), "during_generate": stats(inside)}


class GpuSampler:
    """GPU utilisation over a run, sampled in a thread by the baseline trainer's `GpuMonitor` (the one owner of how
    utilisation is read), or nothing when the adapter does not run on CUDA."""

    def __init__(self, adapter, interval: float = 0.25):
        self.monitor = None
        device = getattr(adapter, "device", None)
        if getattr(device, "type", None) != "cuda":
            return
        try:
            from voebench.evaluate.baseline.gpu_monitor import GpuMonitor  # imports torch

            self.monitor = GpuMonitor(device, interval=interval)
        except Exception:  # noqa: BLE001 - no monitor is no reason to fail a run
            self.monitor = None

    def __enter__(self) -> GpuSampler:
        if self.monitor is not None:
            self.monitor.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.monitor is not None:
            self.monitor.__exit__(*exc)

    def summary(self, timer: StageTimer) -> dict | None:
        m = self.monitor
        if m is None or not m.source:
            return None
        out = {"source": m.source, "interval_s": m.interval}
        out.update(utilisation_during(list(m.times), list(m.samples), timer.generate_intervals))
        return out
