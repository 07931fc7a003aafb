"""The decoded-frame store: a clip decoded once is kept on disk and read back by every later run (issue 28).

A clip is the frames `indices` of one video, decoded to (T, H, W, 3) uint8. Its key is the sha256 of the video's
bytes (content-addressed: a re-rendered video with another content gets another key, a copied or moved set keeps
its keys) and of the indices (another sampling is another clip), so a stored clip is never stale. The store is
shared by models, repeats, strategies and runs: the same videos are decoded once, not once per model.

Files are `.npy` (numpy's own format, read memory-mapped), written to a temporary name in the same folder and
renamed into place: a run killed mid-write leaves only a temporary file (ignored, and removed when older than an
hour), and two runs filling the store at once both write the same bytes, the last rename winning. A stored file
that does not read back as the clip it should be (wrong shape, cut short by a full disk) is a miss, decoded again
and replaced.

Where: `--frame-store DIR`, else `$VOEBENCH_FRAME_STORE`, else `~/.cache/voebench/frames`; `--frame-store off`
decodes every run afresh. `voebench evaluate` records the store's hits and misses in run.json.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time

import numpy as np
import contextlib

OFF = "off"
STALE_TMP_SECONDS = 3600.0
_HASHES: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256, per process
_LOCK = threading.Lock()
STATS = {"hits": 0, "misses": 0, "written": 0}


def default_dir() -> str:
    env = os.environ.get("VOEBENCH_FRAME_STORE")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "voebench", "frames")


def video_hash(path: str) -> str:
    """sha256 of the file's bytes, computed once per (path, size, mtime) in this process."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    with _LOCK:
        got = _HASHES.get(key)
    if got is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        got = h.hexdigest()
        with _LOCK:
            _HASHES[key] = got
    return got


def clip_key(path: str, indices: tuple[int, ...]) -> str:
    sampling = ",".join(map(str, indices))
    return hashlib.sha256(f"{video_hash(path)}|frames={sampling}".encode()).hexdigest()


class FrameStore:
    """Clips on disk under `root/<2 hex>/<key>.npy`."""

    def __init__(self, root: str):
        self.root = root

    def _path(self, key: str) -> str:
        return os.path.join(self.root, key[:2], key + ".npy")

    def get(self, path: str, indices: tuple[int, ...]) -> np.ndarray | None:
        """The stored clip, memory-mapped read-only, or None (not stored, or unreadable)."""
        file = self._path(clip_key(path, indices))
        try:
            arr = np.load(file, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError):  # absent, or not a whole .npy file
            self._count("misses")
            return None
        if arr.dtype != np.uint8 or arr.ndim != 4 or arr.shape[0] != len(indices) or arr.shape[-1] != 3:
            self._count("misses")
            return None
        self._count("hits")
        return arr

    def put(self, path: str, indices: tuple[int, ...], frames: np.ndarray) -> None:
        """Store a clip (atomically; a failure to write, e.g. a read-only or full disk, only costs the store)."""
        file = self._path(clip_key(path, indices))
        tmp = f"{file}.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            os.makedirs(os.path.dirname(file), exist_ok=True)
            with open(tmp, "wb") as f:
                np.save(f, np.ascontiguousarray(frames, dtype=np.uint8), allow_pickle=False)
            os.replace(tmp, file)
            self._count("written")
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(tmp)

    def sweep_stale(self) -> int:
        """Remove temporary files older than STALE_TMP_SECONDS (left by killed runs); returns how many."""
        n, now = 0, time.time()
        if not os.path.isdir(self.root):
            return 0
        for sub in os.listdir(self.root):
            folder = os.path.join(self.root, sub)
            if not os.path.isdir(folder):
                continue
            for name in os.listdir(folder):
                p = os.path.join(folder, name)
                try:
                    if ".tmp-" in name and now - os.path.getmtime(p) > STALE_TMP_SECONDS:
                        os.remove(p)
                        n += 1
                except OSError:
                    pass
        return n

    @staticmethod
    def _count(what: str) -> None:
        with _LOCK:
            STATS[what] += 1


def open_store(where: str | None) -> FrameStore | None:
    """The store for `--frame-store` (None: the default place; "off": no store)."""
    if where == OFF:
        return None
    return FrameStore(where or default_dir())
