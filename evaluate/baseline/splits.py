"""A dataset split as tensors (uint8 clips and label tensors), the form training and scoring work on."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from .data import AVoEDataset


@dataclass
class Split:
    """One split as tensors: uint8 clips (on CPU or the GPU) and labels, plus ids for the metrics."""

    clips: torch.Tensor
    features: torch.Tensor
    prior_rules: torch.Tensor
    posterior_rules: torch.Tensor
    surprising: torch.Tensor
    pair_ids: list
    ids: list

    def __len__(self):
        return len(self.ids)

    def subset(self, mask: torch.Tensor) -> Split:
        idx = torch.nonzero(mask, as_tuple=False)[:, 0]
        return Split(
            self.clips[idx.to(self.clips.device)],
            self.features[idx],
            self.prior_rules[idx],
            self.posterior_rules[idx],
            self.surprising[idx],
            [self.pair_ids[i] for i in idx.tolist()],
            [self.ids[i] for i in idx.tolist()],
        )


# The splits of one category by name ("train", "validation", "test"); None where a split has no videos.
Splits = dict[str, "Split | None"]


def load_split(ds: AVoEDataset, progress: bool = True, decode: bool = True) -> Split:
    clips = (
        ds.stacked(progress=progress, workers=min(8, os.cpu_count() or 1))
        if decode
        else torch.empty((len(ds), 0), dtype=torch.uint8)
    )
    return Split(clips, ds.features, ds.prior_rules, ds.posterior_rules, ds.surprising, ds.pair_ids, ds.ids)


def load_data(
    root,
    category: str,
    size: int = 112,
    n_frames: int | None = None,
    cache_dir="auto",
    progress: bool = True,
    limit: int | None = None,
    decode: bool = True,
) -> Splits:
    """train / validation / test splits of one category. ``limit`` keeps the first N trials (pairs) per split;
    ``decode=False`` reads labels only (the random baseline)."""
    out: Splits = {}
    frames = n_frames
    for split in ("train", "validation", "test"):
        ds = AVoEDataset(root, category, split, size=size, n_frames=frames, cache_dir=cache_dir)
        if limit is not None:
            keep = []
            order: dict[str, int] = {}  # pair (or video) id -> its rank in the split
            for r in ds.records:
                order.setdefault(r.pair_id or r.id, len(order))
                if order[r.pair_id or r.id] < limit:
                    keep.append(r)
            ds = AVoEDataset(root, category, split, size=size, n_frames=frames, cache_dir=cache_dir, records=keep)
        if frames is None and len(ds):
            frames = ds.n_frames
        out[split] = load_split(ds, progress, decode) if len(ds) else None
    return out
