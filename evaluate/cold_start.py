"""A cold `voebench evaluate`: its fixed costs overlapped with the model's load, and its timeline (issue 28).

A fresh process spends 10-16 s importing torch and transformers and loading the processor and the weights before
the runner starts, with the GPU and the decoding workers idle; its first batch then pays for the workers' start,
the first clips' decoding and the GPU's first calls (the CUDA context, cuBLAS, cuDNN, lazily loaded kernels).
Three parts move work into the load and a fourth shortens the exit, each picked by `VOEBENCH_COLD_START` (`mode`;
all four on by default):

- `cuda` (on by default), **a CUDA warm-up thread** (`warm_cuda`): started as soon as torch is imported, while
  transformers imports and the processor and weights load, it creates the device's CUDA context and the cuBLAS
  and cuDNN handles and runs one small call of the kernel families a VLM's first `generate` uses (bf16 matmuls,
  attention, a 3-D convolution, normalisation). It computes nothing the model reads.
- `direct` (on by default): the weights are read straight onto the GPU (`device_map`, models/hf.py), without the
  copy through the CPU's memory; where transformers refuses it (no accelerate), they load as before.
- `decode` (on by default), **early decoding** (`start_decoding`): before the adapter is
  built, the decoding worker processes start (forked while the process is still small, then idle) and the clips
  of the run's first batches are held; they are queued (`release_decoding`) when the hf adapter has imported torch
  and transformers (its `imports_done`), or at the latest when the runner starts, so they decode, and fill the
  frame store, while the processor and the weights load, not while the main process imports (decoding during the
  import slowed it by 1-5 s, docs/evaluate.md); the runner finds the workers running (`frames.use_workers` keeps
  a pool of the same size) and those clips decoded.
- `exit` (on by default), **no final garbage collection** (`light_exit`): at the interpreter's exit, after every
  file is written, `gc.freeze()` moves the objects alive then out of the collector's reach, so the interpreter's
  last full collection does not walk torch's, sympy's and transformers' objects (about 1.5 s of a CPU process's
  exit, bench/evaluate_imports.py). The modules are still torn down and the atexit handlers run.

None changes an answer: the same clips decoded by the same function, the same weights, and no computation the
model reads. `off` turns all off. Measured on an H200 (docs/evaluate.md, "A cold run's first batch"): each part
shortens its own stage, but the whole process's wall clock, which the import dominates, moved by less than its
run-to-run spread. Early decoding with its clips queued at once made the whole process 2.8 s longer on the mean
(its clips decoded during the import, which ended later; "Imports and the default cold start") and was off. With
them held until the imports are done, over 14 ABBA pairs on two H200s, the whole process's wall clock is unchanged
within its spread (-0.2 s on the mean: the 418M 1.4 s shorter, the 7B 1.3 s longer) and every run's samples/s is
within 10% of the bench's from its first batch; it is on ("Early decoding after the imports").

`mark` records the process's age at named points (seconds since the process started, from /proc on Linux), which
the runner writes to run.json's `timing.process`, with `time_to_first_answer_from_start_s`.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from voebench.errors import UsageError

#: what can be turned on: early decoding, the CUDA warm-up thread, the weights read straight onto the GPU, the exit
#: without the final garbage collection
PARTS = ("decode", "cuda", "direct", "exit")
DEFAULT = PARTS
#: process age (s) at named points of a cold run, in the order reached
MARKS: dict[str, float] = {}
#: the clips early decoding holds until the imports are done (start_decoding, release_decoding)
_HELD: list[tuple[str, list[int]]] = []
_T0 = time.time()  # fallback origin where /proc is not there: this module's import


def mode() -> set[str]:
    """What `VOEBENCH_COLD_START` turns on, of `decode`, `cuda`, `direct` and `exit`: unset, DEFAULT (all four);
    `on`: all four; `off`: none; else a comma-separated list (`cuda,direct,exit`: the default before early
    decoding's clips were held until the imports are done, docs/evaluate.md)."""
    raw = os.environ.get("VOEBENCH_COLD_START", "").strip().lower()
    if raw == "":
        return set(DEFAULT)
    if raw in ("on", "1"):
        return set(PARTS)
    if raw in ("off", "0", "none"):
        return set()
    parts = {p.strip() for p in raw.split(",") if p.strip()}
    unknown = sorted(parts - set(PARTS))
    if unknown:
        raise UsageError(f"VOEBENCH_COLD_START={raw}: {', '.join(unknown)}? (on, off, or of {', '.join(PARTS)})")
    return parts


def process_age() -> float:
    """Seconds since this process started: /proc/uptime minus the process's start (clock ticks since boot, 10 ms
    resolution) on Linux; elsewhere since this module was imported."""
    try:
        with open("/proc/self/stat") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return time.time() - _T0


def mark(name: str) -> None:
    """Record the process's age now under `name` (the first time only: a later run in the same process keeps the
    cold one's)."""
    if name not in MARKS:
        MARKS[name] = round(process_age(), 3)


def first_clips(samples: list[Any], num_frames: int | None, fps: float | None, n: int) -> list[tuple[str, list[int]]]:
    """The clips ((path, frame indices)) of the first `n` samples' videos, every turn's, in the order a fresh run
    asks for them (repeat 0 first), each once: what its first batches decode. Indices as the runner samples them."""
    from voebench.evaluate import frames as frames_mod

    out: dict[tuple[str, tuple[int, ...]], None] = {}
    for s in samples[: max(0, n)]:
        for tr in s.turns:
            v = tr.video
            if v is not None:
                idx = frames_mod.sample_frame_indices(v.n_frames, num_frames, fps, v.fps)
                out.setdefault((v.path, tuple(idx)), None)
    return [(p, list(i)) for p, i in out]


def start_decoding(clips: list[tuple[str, list[int]]], workers: int, store: str | None) -> int:
    """Start `workers` decoding processes reading and filling `store` and hold `clips` ((path, indices), in the
    order the run asks for them) for `release_decoding`; returns the clips held (0 when early decoding is off or
    there are no workers). Call it before torch is imported: the workers are forked from a small process."""
    _HELD.clear()  # an earlier command's, never released (its adapter failed): not this run's clips
    if "decode" not in mode() or workers <= 0 or not clips:
        return 0
    from voebench.evaluate import frames as frames_mod

    frames_mod.use_store(store)
    frames_mod.use_workers(workers)
    mark("workers_started")
    frames_mod.reset_stats()
    frames_mod.ensure_cache_size(len(clips) + 8)
    _HELD.extend(clips)
    return len(clips)


def release_decoding() -> int:
    """Queue the clips `start_decoding` holds (once; marks `decoding_released`); returns how many. Called when the
    imports are done (models/hf.py) and, for a model that never reaches that point, when the runner starts."""
    if not _HELD:
        return 0
    from voebench.evaluate import frames as frames_mod

    clips = list(_HELD)
    _HELD.clear()
    mark("decoding_released")
    frames_mod.prefetch(clips)
    return len(clips)


def drop_decoding() -> None:
    """Forget the held clips (a run that did not start early decoding, an adapter that failed to load)."""
    _HELD.clear()


def light_exit() -> bool:
    """With `exit` on, have the interpreter's exit freeze the objects alive then (`gc.freeze`, an atexit handler:
    it runs after the command returned and its files are written, before the modules are torn down), so that the
    last full collection skips them; returns whether it was registered. A process about to end loses nothing by
    it: memory goes back to the system either way; only cycles still alive at exit are left uncollected, which
    Python does not promise to finalise anyway (files are written in `with` blocks here; weakref finalizers and
    atexit handlers, temporary folders' cleanup among them, still run). Called in-process (tests), it only
    shortens that process's own exit."""
    if "exit" not in mode():
        return False
    import atexit
    import gc

    atexit.unregister(gc.freeze)  # once per process, however often a command runs in it
    atexit.register(gc.freeze)
    return True


def warm_cuda(device: Any, dtype: Any) -> threading.Thread | None:
    """Start a daemon thread that initialises `device` (a CUDA torch.device) and runs one small call of the kernel
    families a VLM's first generate uses, in `dtype`; None when off or not CUDA. Failures are silent: the model's
    own first call meets (and reports) any real problem."""
    if "cuda" not in mode() or getattr(device, "type", None) != "cuda":
        return None
    t = threading.Thread(target=_warm, args=(device, dtype), name="voebench-cuda-warm", daemon=True)
    t.start()
    return t


def _warm(device: Any, dtype: Any) -> None:
    import torch
    import torch.nn.functional as F

    try:
        t0 = time.perf_counter()
        with torch.inference_mode(), torch.cuda.device(device):
            torch.empty(1, device=device)  # the context
            mark("cuda_context")
            x = torch.randn(256, 1024, device=device, dtype=dtype)
            w = torch.randn(1024, 1024, device=device, dtype=dtype)
            y = F.linear(x, w)  # cuBLAS(Lt) handle and workspace
            y = F.silu(y) * torch.sigmoid(y)
            y = F.gelu(y) + F.layer_norm(y, (1024,))
            var = y.float().pow(2).mean(-1, keepdim=True)  # RMS norm as Qwen's layers compute it
            y = (y.float() * torch.rsqrt(var + 1e-6)).to(dtype)
            q = torch.randn(4, 8, 256, 64, device=device, dtype=dtype)
            F.scaled_dot_product_attention(q, q, q, is_causal=True)
            F.scaled_dot_product_attention(q[:, :, :1], q, q)
            v = torch.randn(2, 3, 2, 28, 28, device=device, dtype=dtype)  # a 3-D patch embedding (cuDNN)
            F.conv3d(v, torch.randn(8, 3, 2, 14, 14, device=device, dtype=dtype), stride=(2, 14, 14))
            logits = torch.softmax(y.float(), -1)
            torch.argmax(logits, -1)
            torch.cat([y, y]).cumsum(0)
            torch.cuda.synchronize(device)
        MARKS.setdefault("cuda_warm_s", round(time.perf_counter() - t0, 3))
        mark("cuda_warm_done")
    except Exception:  # noqa: BLE001 - a warm-up only
        return
