"""Frame sampling (the one place it happens) and video decoding.

`sample_frame_indices` decides which frames a model sees, for every adapter; the chosen indices are logged per
sample. Decoding uses PyAV when installed (the `eval` extra; it bundles FFmpeg), else OpenCV, else imageio-ffmpeg (a
core dependency), so the harness also runs where `av` is missing (the GPU image lent here has OpenCV but no PyAV).
"""

from __future__ import annotations

import functools
import io
import math
import os
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import Executor, Future, ThreadPoolExecutor

import numpy as np

from voebench.parent_death import die_with_parent


def sample_frame_indices(
    n_frames: int, num_frames: int | None = None, fps: float | None = None, video_fps: float | None = None
) -> list[int]:
    """Uniformly spaced frame indices that always include the first and the last frame.

    - `num_frames`: exactly that many frames (all frames if the video has fewer).
    - `fps`: as many frames as `fps` times the duration gives (at least 2), still spread evenly from first to last.
    - neither: every frame.
    """
    if n_frames <= 0:
        raise ValueError("video has no frames")
    if num_frames is not None and fps is not None:
        raise ValueError("give num_frames or fps, not both")
    if fps is not None:
        if not video_fps or video_fps <= 0:
            raise ValueError("fps sampling needs the video's fps")
        duration = n_frames / video_fps
        num_frames = max(2, int(math.floor(duration * fps)) + 1)
    if num_frames is None or num_frames >= n_frames:
        return list(range(n_frames))
    if num_frames <= 0:
        raise ValueError("num_frames must be positive")
    if num_frames == 1:
        return [0]
    idx = np.linspace(0, n_frames - 1, num_frames)
    out = sorted({int(round(i)) for i in idx})
    return out


def _decode_pyav(path: str, wanted: set[int]) -> dict[int, np.ndarray]:
    import av

    got: dict[int, np.ndarray] = {}
    last = max(wanted)
    with av.open(path) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        for n, frame in enumerate(container.decode(stream)):
            if n in wanted:
                got[n] = frame.to_ndarray(format="rgb24")
            if n >= last:
                break
    return got


def _decode_imageio(path: str, wanted: set[int]) -> dict[int, np.ndarray]:
    import imageio.v2 as iio

    got: dict[int, np.ndarray] = {}
    last = max(wanted)
    reader = iio.get_reader(path, format="FFMPEG")
    try:
        for n, frame in enumerate(reader):
            if n in wanted:
                got[n] = np.asarray(frame)[..., :3]
            if n >= last:
                break
    finally:
        reader.close()
    return got


def _decode_cv2(path: str, wanted: set[int]) -> dict[int, np.ndarray]:
    import cv2

    got: dict[int, np.ndarray] = {}
    last = max(wanted)
    cap = cv2.VideoCapture(path)
    try:
        n = 0
        while n <= last:
            # grab() decodes without converting; only the wanted frames are retrieved (converted to BGR, copied)
            if not cap.grab():
                break
            if n in wanted:
                ok, frame = cap.retrieve()
                if not ok:
                    break
                got[n] = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
            n += 1
    finally:
        cap.release()
    return got


_DECODERS = {
    "pyav": ("av", _decode_pyav),
    "opencv": ("cv2", _decode_cv2),
    "imageio-ffmpeg": ("imageio_ffmpeg", _decode_imageio),
}


@functools.lru_cache(maxsize=1)
def decoder_name() -> str:
    """The first decoder that imports: PyAV (the eval extra), OpenCV (present on many GPU images that lack PyAV),
    imageio-ffmpeg (a core dependency)."""
    import importlib

    for name, (module, _) in _DECODERS.items():
        try:
            importlib.import_module(module)
            return name
        except ImportError:
            continue
    raise RuntimeError("no video decoder: install av (pip install 'voebench[eval]') or imageio-ffmpeg")


def _decode_now(path: str, indices: tuple[int, ...]) -> np.ndarray:
    got = _DECODERS[decoder_name()][1](path, set(indices))
    missing = [i for i in indices if i not in got]
    if missing:
        raise RuntimeError(f"{path}: video has fewer frames than the manifest says (frame {missing[0]} missing)")
    return np.stack([got[i] for i in indices])


# Decoded clips are kept as futures, so the frames of a whole batch decode in parallel and the runner can prefetch
# the next batches while the model works on this one. Two executors: a small thread pool in this process (PyAV and
# OpenCV release the GIL; `--num-workers 0`, the original path) or a pool of worker processes (`use_workers(n)`),
# which keeps decoding off the interpreter that drives the GPU. A future resolves to (frames, decode seconds).
_LOCK = threading.Lock()
_FUTURES: OrderedDict[tuple[str, tuple[int, ...]], Future] = OrderedDict()
_POOL: Executor | None = None
_WORKERS = 0  # 0: thread pool in this process; n > 0: n worker processes
_CACHE_SIZE = 64
#: clips read (decoded or from the frame store), their summed seconds, read_frames calls, clips the store had
STATS = {"clips": 0, "seconds": 0.0, "requests": 0, "stored": 0}
_STORE = None  # the decoded-frame store (evaluate/frame_store.py), or None: decode every clip


def use_store(root: str | None) -> None:
    """Read and fill the decoded-frame store at `root` from now on (None: decode every clip). Set it before
    `use_workers`: worker processes take the store they start with."""
    global _STORE
    from voebench.evaluate.frame_store import FrameStore

    _STORE = FrameStore(root) if root else None


def _decode_timed(path: str, indices: tuple[int, ...]) -> tuple[np.ndarray, float, bool]:
    """(frames, seconds, whether the store had them)."""
    t0 = time.perf_counter()
    if _STORE is not None:
        arr = _STORE.get(path, indices)
        if arr is not None:
            return np.asarray(arr), time.perf_counter() - t0, True
    arr = _decode_now(path, indices)
    if _STORE is not None:
        _STORE.put(path, indices, arr)
    return arr, time.perf_counter() - t0, False


def _worker_init(parent_pid: int, store_root: str | None = None) -> None:
    # a decoder must not outlive the run that started it (a killed `voebench evaluate` left its decoders running)
    die_with_parent(parent_pid)
    use_store(store_root)  # the parent's store (spawned workers, not Linux, start without the parent's globals)
    # one decode per process at a time: FFmpeg's own threads would only fight the other workers for the cores
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        import cv2

        cv2.setNumThreads(1)
    except ImportError:
        pass


def _pool() -> Executor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(
            max_workers=max(2, min(8, os.cpu_count() or 2)), thread_name_prefix="voebench-decode"
        )
    return _POOL


def default_workers() -> int:
    """Decoding processes for `--num-workers` by default: one per core, leaving one for the process that drives
    the model and one for the processor thread, at most 16."""
    return max(1, min(16, (os.cpu_count() or 2) - 2))


def use_workers(n: int) -> None:
    """Decode in `n` worker processes from now on (0: the in-process thread pool). Decoded clips are kept.

    Linux forks the workers (they need only numpy and the decoder, and inherit the imported modules, which also
    works where voebench is mapped onto a checkout rather than installed); elsewhere they are spawned. All workers
    start at once, before the run starts its own threads, and die with this process (src/voebench/parent_death.py)."""
    global _POOL, _WORKERS
    n = max(0, int(n))
    with _LOCK:
        if n == _WORKERS and (n == 0 or _POOL is not None):
            return
        old, _POOL, _WORKERS = _POOL, None, n
    if old is not None:
        old.shutdown(wait=True, cancel_futures=True)
        with _LOCK:  # prefetches cancelled with the old pool are decoded again on demand
            for k in [k for k, f in _FUTURES.items() if f.cancelled()]:
                del _FUTURES[k]
    if n > 0:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        method = "fork" if sys.platform.startswith("linux") else "spawn"
        ctx = multiprocessing.get_context(method)
        store = _STORE.root if _STORE is not None else None
        pool = ProcessPoolExecutor(
            max_workers=n, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(), store)
        )
        list(pool.map(int, range(n)))  # start the processes now
        with _LOCK:
            _POOL = pool


def num_workers() -> int:
    return _WORKERS


def submit(fn, *args) -> Future:
    """Run `fn(*args)` in a decoding worker process (the hf adapter's processor, models/hf_inputs.py); only while
    `use_workers(n > 0)` is on. `fn` must be a module-level function; its result comes back pickled (torch tensors
    through shared memory)."""
    with _LOCK:
        pool = _POOL if _WORKERS > 0 else None
    if pool is None:
        raise RuntimeError("no decoding worker processes")
    return pool.submit(fn, *args)


def add_stats(clips: int, seconds: float, stored: int, requests: int) -> None:
    """Count clips read elsewhere (in a worker, by the hf adapter's processor) in this run's STATS."""
    with _LOCK:
        STATS["clips"] += clips
        STATS["seconds"] += seconds
        STATS["stored"] += stored
        STATS["requests"] += requests


def _count(fut: Future) -> None:
    if fut.cancelled() or fut.exception() is not None:
        return
    with _LOCK:
        STATS["clips"] += 1
        STATS["seconds"] += fut.result()[1]
        STATS["stored"] += bool(fut.result()[2])


def _future(path: str, indices) -> tuple[tuple, Future]:
    key = (os.path.abspath(path), tuple(int(i) for i in indices))
    if not key[1]:
        raise ValueError("no frame indices")
    new = False
    with _LOCK:
        fut = _FUTURES.get(key)
        if fut is None:
            fut, new = _pool().submit(_decode_timed, *key), True
            _FUTURES[key] = fut
            excess = len(_FUTURES) - _CACHE_SIZE
            for k in list(_FUTURES):
                if excess <= 0:
                    break
                if k != key and _FUTURES[k].done():
                    del _FUTURES[k]
                    excess -= 1
        else:
            _FUTURES.move_to_end(key)
    if new:  # outside the lock: a future already done runs `_count`, which takes the lock, right here
        fut.add_done_callback(_count)
    return key, fut


def read_frames(path: str, indices: list[int] | tuple[int, ...]) -> np.ndarray:
    """The frames `indices` of `path` as a (T, H, W, 3) uint8 array (cached: CoT and one-shot reuse videos; treat
    it as read-only)."""
    key, fut = _future(path, indices)
    with _LOCK:
        STATS["requests"] += 1
    try:
        return fut.result()[0]
    except Exception:
        with _LOCK:
            if _FUTURES.get(key) is fut:
                del _FUTURES[key]
        raise


def is_ready(path: str, indices) -> bool:
    """True when the clip is decoded (reading it will not wait)."""
    key = (os.path.abspath(path), tuple(int(i) for i in indices))
    with _LOCK:
        fut = _FUTURES.get(key)
    return fut is not None and fut.done()


def prefetch(items) -> None:
    """Start decoding (path, indices) pairs in the background; `read_frames` later picks up the result."""
    for path, indices in items:
        _future(path, indices)


def ensure_cache_size(n: int) -> None:
    """Keep at least `n` decoded clips (the runner sizes this to its batches)."""
    global _CACHE_SIZE
    with _LOCK:
        _CACHE_SIZE = max(_CACHE_SIZE, int(n))


def clear_cache() -> None:
    with _LOCK:
        _FUTURES.clear()


def reset_stats() -> None:
    with _LOCK:
        STATS.update(clips=0, seconds=0.0, requests=0, stored=0)


def encode_png(frame: np.ndarray) -> bytes:
    """PNG bytes of one RGB frame (PIL if installed, else imageio)."""
    try:
        from PIL import Image

        buf = io.BytesIO()
        Image.fromarray(frame).save(buf, format="PNG")
        return buf.getvalue()
    except ImportError:
        import imageio.v2 as iio

        return iio.imwrite("<bytes>", frame, format="PNG")


def encode_jpeg(frame: np.ndarray, quality: int = 90) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(frame).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def encode_mp4(frames: np.ndarray, fps: float) -> bytes:
    """H.264 mp4 bytes of the given frames (imageio-ffmpeg), so a server sees exactly the frames we sampled."""
    import imageio.v2 as iio

    h, w = frames.shape[1:3]
    pad_h, pad_w = h % 2, w % 2  # yuv420p needs even sizes
    if pad_h or pad_w:
        frames = np.pad(frames, ((0, 0), (0, pad_h), (0, pad_w), (0, 0)), mode="edge")
    fd, tmp = tempfile.mkstemp(suffix=".mp4")
    os.close(fd)
    try:
        writer = iio.get_writer(
            tmp,
            format="FFMPEG",
            fps=max(fps, 0.1),
            codec="libx264",
            quality=8,
            pixelformat="yuv420p",
            macro_block_size=1,
            ffmpeg_log_level="error",
        )
        for f in frames:
            writer.append_data(f)
        writer.close()
        with open(tmp, "rb") as fh:
            return fh.read()
    finally:
        os.unlink(tmp)
