"""A rendered AVoE set packed to travel, and unpacked into the uint8 clips training reads.

A GPU machine takes at most 64 MiB of files per call. Decoded clips do not fit (one 50-frame 112 x 112 clip is
1.9 MB, the 10% subset's 3,125 videos are 5.9 GB), but the H.264 files do: a 192 x 108 AVoE video is about 5 KB.
So a pack holds, per category, one uncompressed ``.npz`` with

- ``videos``: every mp4 of the category, byte for byte, concatenated (uint8), and ``offsets`` (N + 1, int64);
- the label tensors the models read (the same encoding as ``data.AVoEDataset``): ``features`` (N, 24) float32,
  ``prior_rules`` (N, 13) and ``posterior_rules`` (N, 9) int8, ``surprising`` (N,) int8, ``split`` (N,) int8
  (index into ``SPLITS``), ``ids`` and ``pair_ids`` (unicode), ``n_frames`` (the videos' frame count).

No manifest, no HDF5 (44 KB each) travels. ``decode_pack`` decodes a pack once, in parallel threads, into one
(N, 3, T, S, S) uint8 array and keeps it as ``.npy`` in a cache folder, so later runs on the same machine memory-map
it instead of decoding; ``splits_from_pack`` cuts it into the train / validation / test ``Split``s.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import torch

from .data import AVoEDataset, avoe_records, decode_video, resize_nearest, sample_frames
from .splits import Split, Splits

SPLITS = ("train", "validation", "test")
PACK_NAME = "avoe-{category}.npz"


def pack_category(root: str | os.PathLike, category: str, out_dir: str | os.PathLike) -> Path:
    """Write ``out_dir/avoe-<category>.npz`` from the rendered set ``root`` (all splits and conditions)."""
    records = avoe_records(root, category)
    if not records:
        raise ValueError(f"{root}: no AVoE videos of category {category}")
    unknown = {r.split for r in records} - set(SPLITS)
    if unknown:
        raise ValueError(f"{root}: category {category} has videos of unknown splits {sorted(unknown)}")
    # the label encoding is AVoEDataset's (records given: nothing is decoded here)
    ds = AVoEDataset(root, category, "all", n_frames=records[0].n_frames or None, cache_dir=None, records=records)
    blobs = [r.video_path().read_bytes() for r in records]
    offsets = np.zeros(len(blobs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in blobs])
    out = Path(out_dir) / PACK_NAME.format(category=category)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.npz")
    np.savez(
        tmp,
        videos=np.frombuffer(b"".join(blobs), dtype=np.uint8),
        offsets=offsets,
        features=ds.features.numpy().astype(np.float32),
        prior_rules=ds.prior_rules.numpy().astype(np.int8),
        posterior_rules=ds.posterior_rules.numpy().astype(np.int8),
        surprising=ds.surprising.numpy().astype(np.int8),
        split=np.array([SPLITS.index(r.split) for r in records], dtype=np.int8),
        ids=np.array([r.id for r in records]),
        pair_ids=np.array([r.pair_id or "" for r in records]),
        n_frames=np.array(ds.n_frames, dtype=np.int64),
        category=np.array(category),
    )
    os.replace(tmp, out)
    return out


def read_pack(path: str | os.PathLike) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def decoded_path(path: str | os.PathLike, size: int, n_frames: int, cache_dir: str | os.PathLike) -> Path:
    """Where ``decode_pack`` keeps a pack's decoded clips: keyed by the pack file and the clip shape."""
    path = Path(path)
    st = path.stat()
    key = hashlib.sha1(f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{size}|{n_frames}".encode()).hexdigest()
    return Path(cache_dir) / f"{path.stem}-{key[:16]}.npy"


def decode_pack(
    path: str | os.PathLike,
    size: int = 112,
    n_frames: int | None = None,
    workers: int | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> np.ndarray:
    """All clips of a pack as (N, 3, T, size, size) uint8, decoded once (``workers`` threads; the decoders
    release the GIL) and memory-mapped from ``cache_dir`` when decoded before."""
    path = Path(path)
    pack = read_pack(path)
    t = int(n_frames or pack["n_frames"])
    cache_file = None
    if cache_dir is not None:
        cache_file = decoded_path(path, size, t, cache_dir)
        if cache_file.is_file():
            return np.load(cache_file, mmap_mode="r")
    videos, offsets = pack["videos"], pack["offsets"]
    n = len(offsets) - 1
    out = np.empty((n, 3, t, size, size), dtype=np.uint8)
    with tempfile.TemporaryDirectory(prefix="voebench-unpack-") as tmp:

        def one(i: int) -> None:
            # the decoders read files, so each video goes through a temporary mp4
            f = Path(tmp) / f"{i}.mp4"
            f.write_bytes(videos[offsets[i] : offsets[i + 1]].tobytes())
            frames = sample_frames(resize_nearest(decode_video(f), size), t)
            out[i] = frames.transpose(3, 0, 1, 2)
            f.unlink()

        with ThreadPoolExecutor(workers or min(16, os.cpu_count() or 1)) as ex:
            list(ex.map(one, range(n)))
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        part = cache_file.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(part, out)
        os.replace(part, cache_file)
    return out


def splits_from_pack(
    path: str | os.PathLike,
    clips: np.ndarray | None = None,
    size: int = 112,
    limit: int | None = None,
    train_limit: int | None = None,
) -> Splits:
    """The train / validation / test ``Split``s of a pack. ``clips`` is ``decode_pack``'s array; None gives
    empty clips (labels only, enough for the random baseline). ``limit`` keeps the first N trials per split,
    ``train_limit`` the first N of the training split only."""
    pack = read_pack(path)
    pair_or_id = [p or i for p, i in zip(pack["pair_ids"].tolist(), pack["ids"].tolist(), strict=True)]
    out: Splits = {}
    for code, name in enumerate(SPLITS):
        idx = np.nonzero(pack["split"] == code)[0]
        keep = limit if name != "train" or train_limit is None else min(train_limit, limit or train_limit)
        if keep is not None:
            order: dict[str, int] = {}
            for i in idx:
                order.setdefault(pair_or_id[i], len(order))
            idx = np.array([i for i in idx if order[pair_or_id[i]] < keep], dtype=np.int64)
        if len(idx) == 0:
            out[name] = None
            continue
        c = torch.from_numpy(np.ascontiguousarray(clips[idx])) if clips is not None else torch.empty((len(idx), 0))
        out[name] = Split(
            c.to(torch.uint8),
            torch.from_numpy(pack["features"][idx].astype(np.float32)),
            torch.from_numpy(pack["prior_rules"][idx].astype(np.int64)),
            torch.from_numpy(pack["posterior_rules"][idx].astype(np.int64)),
            torch.from_numpy(pack["surprising"][idx].astype(np.int64)),
            [str(pack["pair_ids"][i]) or None for i in idx.tolist()],
            [str(pack["ids"][i]) for i in idx.tolist()],
        )
    return out
