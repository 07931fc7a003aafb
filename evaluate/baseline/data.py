"""Rendered AVoE videos as tensors: manifest + mp4 + HDF5 -> clips (3, T, S, S) in [0, 1] and encoded labels.

Each video is decoded once, resized (nearest neighbour, as the original's ``F.interpolate`` default) and stored as
a uint8 ``.npy`` in a cache folder; later epochs, seeds and runs read the cache. ``stacked()`` returns the whole
split as one uint8 tensor, which the trainer can keep on the GPU so decoding never starves it.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import torch
from torch.utils.data import Dataset
from tqdm import tqdm

from voebench.contract import avoe_labels as L
from voebench.contract.hdf5 import LABELS_ATTRS
from voebench.contract.manifest import read_manifest as read_strict


@dataclass
class VideoRecord:
    id: str
    category: str
    split: str
    condition: str
    pair_id: str | None
    video: Path | None  # None for a states-only render
    states: Path
    n_frames: int
    labels: dict[str, Any]

    @property
    def surprising(self) -> int:
        return int(self.condition == "surprising")

    def video_path(self) -> Path:
        """The rendered video; a states-only render has none, and the baseline cannot learn from it."""
        if self.video is None:
            raise FileNotFoundError(f"{self.id}: no video (a states-only render); render the set with videos")
        return self.video


def read_manifest(root: str | os.PathLike) -> list[dict]:
    """The manifest of a rendered set, read strictly (voebench.contract: a corrupt line raises naming it)."""
    path = Path(root) / "manifest.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no manifest.jsonl in {root}")
    return read_strict(str(path), truncated="error")


def _labels_from_h5(path: Path) -> dict | None:
    with h5py.File(path, "r") as h:
        if "labels" not in h:
            return None
        a = h["labels"].attrs
        return {k: json.loads(a[k]) for k in LABELS_ATTRS if k in a}


def avoe_records(
    root: str | os.PathLike,
    category: str | None = None,
    split: str | None = None,
    conditions=("expected", "surprising"),
) -> list[VideoRecord]:
    """The AVoE videos of a rendered set, filtered by category / split / condition, in manifest order."""
    root = Path(root)
    out = []
    for e in read_manifest(root):
        if e.get("suite") != "avoe":
            continue
        try:
            cat = L.category_of(e.get("test", ""))
        except ValueError:
            continue
        if category is not None and cat != category:
            continue
        if split is not None and e.get("split") != split:
            continue
        if e.get("condition") not in conditions:
            continue
        labels = e.get("labels") or _labels_from_h5(root / e["states"])
        if not labels:
            raise ValueError(f"{e['id']}: no labels in the manifest or the HDF5")
        out.append(
            VideoRecord(
                id=e["id"],
                category=cat,
                split=e.get("split", ""),
                condition=e["condition"],
                pair_id=e.get("pair_id"),
                video=root / e["video"] if e.get("video") else None,
                states=root / e["states"],
                n_frames=int(e.get("n_frames", 0)),
                labels=labels,
            )
        )
    return out


def decode_video(path: str | os.PathLike) -> np.ndarray:
    """All frames of a video as (T, H, W, 3) uint8 RGB: PyAV, else OpenCV, else imageio-ffmpeg (GPU machines
    often have only one of them)."""
    try:
        import av  # decoders are optional: whichever is installed
    except ImportError:
        return _decode_without_av(path)
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        stream.thread_type = "AUTO"
        return np.stack([f.to_ndarray(format="rgb24") for f in c.decode(stream)])


def _decode_without_av(path) -> np.ndarray:
    try:
        import cv2  # optional decoder
    except ImportError:
        import imageio.v2 as iio  # the fallback decoder

        with iio.get_reader(str(path), "ffmpeg") as r:
            return np.stack([np.asarray(f) for f in r])
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, bgr = cap.read()
        if not ok:
            break
        frames.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    cap.release()
    if not frames:
        raise ValueError(f"{path}: no frames decoded")
    return np.stack(frames)


def resize_nearest(frames: np.ndarray, size: int) -> np.ndarray:
    """(T, H, W, C) -> (T, size, size, C) with PyTorch's 'nearest' rule: source index floor(dst * in / out)."""
    t, h, w, _ = frames.shape
    if h == size and w == size:
        return frames
    ys = np.minimum((np.arange(size) * (h / size)).astype(np.int64), h - 1)
    xs = np.minimum((np.arange(size) * (w / size)).astype(np.int64), w - 1)
    return frames[:, ys][:, :, xs]


def sample_frames(frames: np.ndarray, n: int) -> np.ndarray:
    """Exactly ``n`` frames: uniform temporal sampling (repeats frames if the video is shorter)."""
    t = len(frames)
    if t == n:
        return frames
    idx = np.minimum((np.arange(n) * (t / n)).astype(np.int64), t - 1)
    return frames[idx]


def load_clip(path: Path, size: int, n_frames: int, cache_dir: Path | None) -> np.ndarray:
    """(3, T, size, size) uint8, from the cache when there."""
    cache_file = None
    if cache_dir is not None:
        st = path.stat()
        key = hashlib.sha1(f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{size}|{n_frames}".encode()).hexdigest()
        cache_file = cache_dir / f"{key[:20]}.npy"
        if cache_file.is_file():
            try:
                return np.load(cache_file)
            except (ValueError, OSError):
                pass
    frames = sample_frames(resize_nearest(decode_video(path), size), n_frames)
    clip = np.ascontiguousarray(frames.transpose(3, 0, 1, 2))
    if cache_file is not None and cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, clip)
        os.replace(tmp, cache_file)
    return clip


def default_cache_dir(root: Path, fallback: Path | None) -> Path | None:
    """``<root>/.baseline-cache`` when the data folder is writable, else ``fallback``."""
    cand = Path(root) / ".baseline-cache"
    try:
        cand.mkdir(exist_ok=True)
        probe = cand / f".probe{os.getpid()}"
        probe.touch()
        probe.unlink()
        return cand
    except OSError:
        return fallback


class AVoEDataset(Dataset):
    """One category and split of a rendered AVoE set.

    ``dataset[i]`` is a dict: ``clip`` float (3, T, size, size) in [0, 1] (uint8 with ``as_uint8=True``),
    ``features`` (24,) float (labels.feature_vector: scalars, -1 if irrelevant, and class indices),
    ``prior_rules`` (13,) and ``posterior_rules`` (9,) long (False 0, True 1, irrelevant 2), ``surprising`` 0/1,
    ``pair_id`` and ``id`` strings. ``n_frames`` defaults to the first video's frame count.
    """

    def __init__(
        self,
        root,
        category: str,
        split: str,
        size: int = 112,
        n_frames: int | None = None,
        cache_dir: str | os.PathLike | None = "auto",
        conditions=("expected", "surprising"),
        as_uint8: bool = False,
        records: list[VideoRecord] | None = None,
    ):
        self.root = Path(root)
        self.category = L.category_of(category)
        self.split = split
        self.size = size
        self.records = records if records is not None else avoe_records(self.root, self.category, split, conditions)
        if n_frames is None:
            n_frames = self.records[0].n_frames if self.records and self.records[0].n_frames else None
            if n_frames is None and self.records:
                n_frames = len(decode_video(self.records[0].video_path()))
        self.n_frames = int(n_frames or 0)
        self.cache_dir = (
            default_cache_dir(self.root, None) if cache_dir == "auto" else (Path(cache_dir) if cache_dir else None)
        )
        self.as_uint8 = as_uint8
        self.features = torch.tensor(
            [L.feature_vector(r.labels["features"]) for r in self.records], dtype=torch.float32
        ).reshape(-1, len(L.MODEL_FEATURES))
        self.prior_rules = torch.tensor(
            [L.rule_vector(r.labels["prior_rules"], "prior") for r in self.records], dtype=torch.long
        ).reshape(-1, len(L.PRIOR_RULES))
        self.posterior_rules = torch.tensor(
            [L.rule_vector(r.labels["posterior_rules"], "posterior") for r in self.records], dtype=torch.long
        ).reshape(-1, len(L.POSTERIOR_RULES))
        self.surprising = torch.tensor([r.surprising for r in self.records], dtype=torch.long)
        self._clips: torch.Tensor | None = None

    def __len__(self) -> int:
        return len(self.records)

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.records]

    @property
    def pair_ids(self) -> list[str | None]:
        return [r.pair_id for r in self.records]

    def clip_uint8(self, i: int) -> torch.Tensor:
        if self._clips is not None:
            return self._clips[i]
        return torch.from_numpy(load_clip(self.records[i].video_path(), self.size, self.n_frames, self.cache_dir))

    def __getitem__(self, i: int) -> dict[str, Any]:
        clip = self.clip_uint8(i)
        return {
            "clip": clip if self.as_uint8 else clip.float().div_(255.0),
            "features": self.features[i],
            "prior_rules": self.prior_rules[i],
            "posterior_rules": self.posterior_rules[i],
            "surprising": self.surprising[i],
            "pair_id": self.records[i].pair_id or "",
            "id": self.records[i].id,
        }

    def stacked(self, progress: bool = False, workers: int = 0) -> torch.Tensor:
        """All clips as one uint8 tensor (N, 3, T, S, S), decoding (in ``workers`` threads) what is not cached.
        Kept, so later calls and ``__getitem__`` use it."""
        if self._clips is None:
            n = len(self)
            out = torch.empty((n, 3, self.n_frames, self.size, self.size), dtype=torch.uint8)
            it = range(n)
            bar = None
            if progress:
                bar = tqdm(total=n, desc=f"decode {self.category}/{self.split}", unit="clip", leave=False)

            def one(i):
                out[i] = self.clip_uint8(i)
                if bar is not None:
                    bar.update(1)

            if workers and workers > 1:
                with ThreadPoolExecutor(workers) as ex:
                    list(ex.map(one, it))
            else:
                for i in it:
                    one(i)
            if bar is not None:
                bar.close()
            self._clips = out
        return self._clips
