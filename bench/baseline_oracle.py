#!/usr/bin/env python3
"""OFPR-Net's reasoning stage with perfect and with noisy perception, per category (CPU, labels only).

    python bench/baseline_oracle.py PACK_DIR [--scales 0,0.1,0.25,0.5] [--flips 0,0.1] [--seeds 1-3]

PACK_DIR holds avoe-<category>.npz (bench/pack_avoe.py). For each category the decision trees are fitted as
OFPR-Net fits them and fed the test videos' ground-truth features, then the same with Gaussian noise on the scalar
features (scale x the feature's spread) and random class flips: the hit rate a perfect / imperfect object-file
stage would reach (``voebench.evaluate.baseline.oracle``). Prints a markdown table (mean over seeds of the noise).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("packs")
    ap.add_argument("--categories", default="A,B,C,D,E")
    ap.add_argument("--scales", default="0,0.1,0.25,0.5")
    ap.add_argument("--flips", default="0,0.1")
    ap.add_argument("--seeds", default="1-3")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from checkout import import_evaluate

    import_evaluate()
    import numpy as np

    from voebench.evaluate.baseline.oracle import constant_metrics, oracle_metrics
    from voebench.evaluate.baseline.pack import PACK_NAME, splits_from_pack
    from voebench.evaluate.baseline.published import PUBLISHED_HIT_RATE

    a, b = args.seeds.split("-") if "-" in args.seeds else (args.seeds, args.seeds)
    seeds = range(int(a), int(b) + 1)
    cats = [c.strip() for c in args.categories.split(",")]
    combos = [(float(s), float(f)) for f in args.flips.split(",") for s in args.scales.split(",")]
    print("| perception | " + " | ".join(cats) + " |")
    print("|---" * (len(cats) + 1) + "|")
    data = {c: splits_from_pack(Path(args.packs) / PACK_NAME.format(category=c)) for c in cats}
    for scale, flip in combos:
        cells = []
        for c in cats:
            noise_seeds = seeds if scale or flip else [1]  # ground truth has no randomness
            hits = [oracle_metrics(data[c], scale, flip, seed)["hit_rate"] for seed in noise_seeds]
            cells.append(f"{np.mean(hits):.2f}")
        name = "ground truth" if scale == 0 and flip == 0 else f"noise {scale:g} sd, flips {flip:g}"
        print(f"| {name} | " + " | ".join(cells) + " |")
    const = [f"{constant_metrics(data[c])['hit_rate']:.2f}" for c in cats]
    print("| constant prediction (train majority) | " + " | ".join(const) + " |")
    pub = [f"{np.mean(PUBLISHED_HIT_RATE['ofpr'][c]):.2f}" for c in cats]
    print("| published OFPR-Net | " + " | ".join(pub) + " |")
    n = [str(data[c]["test"].surprising.sum().item()) for c in cats]
    print("| test pairs | " + " | ".join(n) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
