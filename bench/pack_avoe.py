#!/usr/bin/env python3
"""Pack a rendered AVoE set for the GPU machine: one .npz per category (mp4 bytes + label tensors).

    python bench/pack_avoe.py renders/avoe OUT_DIR [--categories A,B,C,D,E]

See ``voebench.evaluate.baseline.pack`` for the layout. Prints each pack's size and video count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", help="rendered set (manifest.jsonl + mp4)")
    ap.add_argument("out", help="folder for avoe-<category>.npz")
    ap.add_argument("--categories", default="A,B,C,D,E")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from checkout import import_evaluate

    import_evaluate()
    from voebench.evaluate.baseline.pack import pack_category, read_pack

    total = 0
    for cat in [c.strip() for c in args.categories.split(",") if c.strip()]:
        path = pack_category(args.root, cat, args.out)
        p = read_pack(path)
        splits = {name: int((p["split"] == i).sum()) for i, name in enumerate(("train", "validation", "test"))}
        size = path.stat().st_size
        total += size
        print(f"{path}: {len(p['ids'])} videos {splits}, {size / 2**20:.1f} MiB")
    print(f"total {total / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
