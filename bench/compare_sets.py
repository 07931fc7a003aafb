"""Compare two rendered folders: every .mp4 byte for byte, every .h5 dataset by dataset and attribute by attribute.

    .venv/bin/python bench/compare_sets.py BEFORE AFTER

Prints how many files are byte-identical and, for the others, which HDF5 attributes or datasets differ (a code
fingerprint differs whenever the code does; a dataset that differs means the output changed)."""

from __future__ import annotations

import filecmp
import os
import sys

import h5py
import numpy as np


def h5_differences(pa: str, pb: str) -> list[str]:
    diffs: list[str] = []

    def walk(g, h, path: str) -> None:
        for k in sorted(set(g.attrs) | set(h.attrs)):
            if k not in g.attrs or k not in h.attrs:
                diffs.append(f"{path}@{k} (one side only)")
            elif not np.array_equal(np.asarray(g.attrs[k]), np.asarray(h.attrs[k])):
                diffs.append(f"{path}@{k}")
        for k in sorted(set(g) | set(h)):
            if k not in g or k not in h:
                diffs.append(f"{path}/{k} (one side only)")
            elif isinstance(g[k], h5py.Group):
                walk(g[k], h[k], f"{path}/{k}")
            elif not np.array_equal(g[k][()], h[k][()]):
                diffs.append(f"{path}/{k}")

    with h5py.File(pa, "r") as x, h5py.File(pb, "r") as y:
        walk(x, y, "")
    return diffs


def main(a: str, b: str) -> int:
    files = sorted(
        os.path.relpath(os.path.join(root, f), a)
        for root, _, names in os.walk(a)
        for f in names
        if f.endswith((".mp4", ".h5"))
    )
    kinds: dict[str, list[str]] = {}
    for f in files:
        pa, pb = os.path.join(a, f), os.path.join(b, f)
        if not os.path.exists(pb):
            kinds.setdefault("missing", []).append(f)
        elif not filecmp.cmp(pa, pb, shallow=False):
            what = "mp4 bytes" if f.endswith(".mp4") else ", ".join(h5_differences(pa, pb)) or "bytes only"
            kinds.setdefault(what, []).append(f)
    same = len(files) - sum(len(v) for v in kinds.values())
    print(f"{len(files)} files compared, {same} byte-identical")
    for what, names in kinds.items():
        print(f"{len(names)} files differ in: {what}  (e.g. {names[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
