"""`--batch-size auto`: the largest batch that fits on the GPU, found once and kept (issue 28).

The search (`search`) runs trial batches of the run's own longest request, repeated: it doubles from `START` while
a batch fits and, at the first CUDA out-of-memory error, bisects between the last size that fitted and the one that
did not; when even `START` does not fit it halves until one does. A trial generates the full `max_new_tokens`
(the adapter pins the minimum to it), so the KV cache of the real run is counted. Sizes above `LIMIT` are not
tried: beyond a few hundred conversations a bigger batch only adds memory; nor sizes above the run's number of
requests (rounded up to a power of two): a small run does not pay for trials it cannot use. A size kept because it
reached that cap (not memory's limit) is searched on from by a later, bigger run.

The answer is kept in a JSON file (`batch-sizes.json` in the frame store's folder; with `--frame-store off`, in the
default store's folder) under a key made of what decides the memory a batch takes: the model and its settings
(dtype, answer length, packed attention), the frames sampled (`num_frames` / `fps`), the largest video resolution,
the videos and turns of the longest request and its text length (rounded up to a power of two), and the GPU's name
and memory. A later run with the same key takes the size from the file and skips the search. The file is written
whole to a temporary name and renamed: two runs that search at once both write a correct file, the last wins.

On a CPU (or an adapter that cannot run a trial, e.g. `openai`, whose batch is its concurrency) there is no
search: `auto` is `CPU_DEFAULT` for a local model on a CPU and the adapter's own batch size otherwise.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from typing import Any

from voebench.errors import UsageError

#: first size tried on a GPU; the search doubles from here
START = 8
#: the largest size tried
LIMIT = 256
#: `auto` for a local model on a CPU: a small batch (CPU matrix products gain little from bigger ones)
CPU_DEFAULT = 4
FILE = "batch-sizes.json"


def is_oom(exc: BaseException) -> bool:
    """A CUDA out-of-memory error (torch's own class, or a RuntimeError saying so from an older torch / a kernel)."""
    try:
        import torch

        if isinstance(exc, torch.cuda.OutOfMemoryError):
            return True
    except ImportError:  # pragma: no cover - hf adapters need torch
        pass
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def search(
    fits: Callable[[int], Any],
    start: int = START,
    limit: int = LIMIT,
    oom: Callable[[BaseException], bool] = is_oom,
) -> tuple[int, list[dict]]:
    """The largest n <= `limit` for which `fits(n)` returns without an out-of-memory error, and the trials made
    (`[{"batch": n, "fits": bool}]` in order). Other errors propagate. Assumes that a batch that fits means every
    smaller one fits. Raises UsageError when not even a batch of one fits."""
    trials: list[dict] = []

    def ok(n: int) -> bool:
        try:
            fits(n)
        except BaseException as e:
            if not oom(e):
                raise
            trials.append({"batch": n, "fits": False})
            return False
        trials.append({"batch": n, "fits": True})
        return True

    limit = max(1, int(limit))
    n = max(1, min(int(start), limit))
    bad: int | None = None
    if ok(n):
        good = n
        while good < limit:
            n = min(2 * good, limit)
            if not ok(n):
                bad = n
                break
            good = n
    else:
        bad, good = n, 0
        while bad > 1:
            n = bad // 2
            if ok(n):
                good = n
                break
            bad = n
        if good == 0:
            raise UsageError("--batch-size auto: not even one conversation fits in the GPU's memory")
    while bad is not None and bad - good > 1:  # bisect: `good` fits, `bad` does not
        n = (good + bad) // 2
        if ok(n):
            good = n
        else:
            bad = n
    return good, trials


def _pow2(n: int) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


def _longest(requests: list) -> Any:
    """The request that makes the biggest batch: most video frames, then most text."""

    def size(r) -> tuple[int, int]:
        frames = sum(len(m["video"]["indices"]) for m in r.messages if m.get("video"))
        return frames, sum(len(m.get("text") or "") for m in r.messages)

    return max(requests, key=size)


def key_parts(adapter: Any, requests: list, num_frames: int | None, fps: float | None, gpu: str) -> dict:
    """What decides how much memory a batch of these requests takes on this GPU (the cache key, readable)."""
    longest = _longest(requests)
    videos = [m["video"] for r in requests for m in r.messages if m.get("video")]
    return {
        "model": adapter.name,
        "settings": adapter.settings(),
        "num_frames": num_frames,
        "fps": fps,
        "resolution": max(((int(v.get("width") or 0), int(v.get("height") or 0)) for v in videos), default=(0, 0)),
        "videos_per_request": sum(1 for m in longest.messages if m.get("video")),
        "turns": sum(1 for m in longest.messages if m["role"] == "user"),
        "text_chars_pow2": _pow2(sum(len(m.get("text") or "") for m in longest.messages)),
        "gpu": gpu,
    }


def cache_key(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=list).encode()).hexdigest()[:32]


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):  # absent or torn: search again
        return {}


def _save(path: str, key: str, entry: dict) -> None:
    """Add one entry (read, update, write to a temporary name, rename); a failure only costs the cache."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        data = _load(path)
        data[key] = entry
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(tmp)


def choose(
    adapter: Any,
    requests: list,
    num_frames: int | None,
    fps: float | None,
    cache_path: str | None,
    start: int = START,
    limit: int = LIMIT,
) -> dict:
    """Set `adapter.batch_size` for `--batch-size auto` and say how it was chosen (run.json's `batch_size_auto`):
    `{"batch_size", "source": "search"|"cache"|"cpu-default"|"adapter", "key", "key_parts", "trials", "seconds"}`.

    The adapter takes part through two optional methods: `gpu_name()` (None: not on a GPU) and `try_batch(requests)`
    (generate these requests at full answer length, raising the GPU's out-of-memory error when they do not fit)."""
    t0 = time.perf_counter()
    gpu_name = getattr(adapter, "gpu_name", None)
    trial = getattr(adapter, "try_batch", None)
    gpu = gpu_name() if callable(gpu_name) else None
    if not callable(trial) or not requests:
        return {"batch_size": int(adapter.batch_size), "source": "adapter"}
    if gpu is None:
        adapter.batch_size = CPU_DEFAULT
        return {"batch_size": CPU_DEFAULT, "source": "cpu-default"}
    parts = key_parts(adapter, requests, num_frames, fps, gpu)
    key = cache_key(parts)
    # no trial bigger than this run needs (a batch holds at most all its requests); a later, bigger run searches on
    # from the size kept when that size was only this cap, not a real limit of memory
    limit = min(limit, _pow2(len(requests)))
    if cache_path:
        hit = _load(cache_path).get(key)
        if isinstance(hit, dict) and isinstance(hit.get("batch_size"), int) and hit["batch_size"] >= 1:
            n = hit["batch_size"]
            if n < int(hit.get("limit") or LIMIT) or n >= limit:  # memory's limit, or enough for this run
                adapter.batch_size = n
                return {"batch_size": n, "source": "cache", "key": key, "file": cache_path}
            start = max(start, n)
    longest = _longest(requests)
    n, trials = search(lambda k: trial([longest] * k), start=start, limit=limit)
    adapter.batch_size = n
    seconds = round(time.perf_counter() - t0, 3)
    entry = {
        "batch_size": n,
        "limit": limit,
        "key_parts": parts,
        "trials": trials,
        "seconds": seconds,
        "found": round(time.time()),
    }
    if cache_path:
        _save(cache_path, key, entry)
    return {"batch_size": n, "source": "search", "key": key, "file": cache_path, **entry}


def cache_file(frame_store: str | None) -> str:
    """Where the sizes found are kept: next to the decoded frames (the store's folder, or the default one)."""
    from voebench.evaluate.frame_store import default_dir

    return os.path.join(frame_store or default_dir(), FILE)
