#!/usr/bin/env python3
"""Full AVoE baseline training per category on CUDA; prints the supplementary-Table-4 layout and clips/s.

    python bench/train_baseline_gpu.py DIR [--models ofpr,of] [--categories all] [--seeds 1-3] [--epochs 30]
    python bench/train_baseline_gpu.py --synthetic 150 [...]     # no rendered set: a synthetic one (see below)

DIR is a rendered set with AVoE videos (manifest.jsonl + mp4 + h5). Needs torch, numpy, h5py and a video decoder
(PyAV, OpenCV or imageio-ffmpeg); scikit-learn is used for the decision trees when installed, else the numpy CART
in ``trees.py`` (said on stderr). Runs from a checkout without ``pip install`` (Python >= 3.10, no bpy, no
internet): it maps ``voebench.evaluate`` onto the checkout's ``evaluate/`` folder itself.

``--synthetic N`` writes N trials per split-weighted category (train N, validation N/5, test N/5; each an expected
and a surprising video, 50 frames of 112x112) with ``voebench.evaluate.baseline.synthetic`` first: toy labels,
useful for throughput and GPU-utilisation numbers and as a sanity check that the models learn, not for hit
rates to put beside the paper's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def micro_benchmark(backbone: str, batches: list[int], frames: int = 50, size: int = 112, steps: int = 10) -> None:
    """Clips/s of one training step of the backbone (+ a linear head) on random clips, channels-last or not."""
    import torch

    from voebench.evaluate.baseline.backbone import build_backbone

    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    for channels_last in (True, False):
        net = build_backbone(backbone).to(dev)
        fmt = torch.channels_last_3d if channels_last else torch.contiguous_format
        net = net.to(memory_format=fmt)
        opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
        for bs in batches:
            x = torch.rand(bs, 3, frames, size, size, device=dev).contiguous(memory_format=fmt)
            for i in range(steps + 3):
                if i == 3:
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = net(x).float().square().mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            print(
                f"micro {backbone} batch {bs:>3} channels_last={channels_last}: {steps * bs / dt:7.1f} clips/s "
                f"(train step, bf16), peak mem {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB",
                flush=True,
            )
        del net, opt
        torch.cuda.empty_cache()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?", help="rendered set with AVoE videos")
    ap.add_argument("--synthetic", type=int, metavar="N", help="write and use a synthetic set with N train trials")
    ap.add_argument("--synthetic-dir", default="/tmp/voebench-synthetic-avoe")
    ap.add_argument("--models", default="ofpr,of", help="comma list of ofpr, of, direct, random")
    ap.add_argument("--categories", default="all")
    ap.add_argument("--seeds", default="1-3")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--backbone", default="resnet34")
    ap.add_argument("--out", default="runs/baseline-gpu")
    ap.add_argument("--extra", default="", help="more train-baseline flags, e.g. '--freeze-backbone --limit 50'")
    ap.add_argument(
        "--micro",
        metavar="BATCHES",
        help="first time the backbone alone (forward + backward, bf16) at these batch sizes, e.g. 8,16,32",
    )
    args = ap.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from checkout import import_evaluate

    import_evaluate()
    import torch

    from voebench.evaluate.baseline import cli as bcli
    from voebench.evaluate.baseline.trees import sklearn_available
    from voebench.errors import UsageError

    if not torch.cuda.is_available():
        print("warning: CUDA is not available; this runs on the CPU and will be slow", file=sys.stderr)
    print(
        f"torch {torch.__version__}, CUDA {torch.cuda.is_available()}"
        + (f" ({torch.cuda.get_device_name(0)})" if torch.cuda.is_available() else "")
        + f", decision trees: {'scikit-learn' if sklearn_available() else 'numpy CART fallback (no sklearn)'}",
        file=sys.stderr,
    )

    if args.micro:
        micro_benchmark(args.backbone, [int(b) for b in args.micro.split(",")])
        if not (args.data or args.synthetic):
            return 0

    data = args.data
    if args.synthetic:
        from voebench.evaluate.baseline.synthetic import write_synthetic_avoe

        t0 = time.perf_counter()
        n = args.synthetic
        cats = "ABCDE" if args.categories == "all" else args.categories.replace(",", "")
        if not (Path(args.synthetic_dir) / "manifest.jsonl").is_file():
            write_synthetic_avoe(
                args.synthetic_dir,
                categories=tuple(cats),
                trials={"train": n, "validation": max(2, n // 5), "test": max(2, n // 5)},
                n_frames=50,
                size=112,
                seed=0,
            )
        print(f"synthetic set in {args.synthetic_dir} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        data = args.synthetic_dir
    if not data:
        ap.error("give DIR or --synthetic N")

    parser = argparse.ArgumentParser(prog="voebench")
    sub = parser.add_subparsers()
    bcli.register(sub)
    out = Path(args.out)
    t_all = time.perf_counter()
    for model in [m.strip() for m in args.models.split(",") if m.strip()]:
        argv = [
            "train-baseline",
            str(data),
            "--model",
            model,
            "--category",
            args.categories,
            "--seeds",
            args.seeds,
            "--epochs",
            str(args.epochs),
            "--backbone",
            args.backbone,
            "--out",
            str(out),
        ] + args.extra.split()
        ns = parser.parse_args(argv)
        try:
            ns.func(ns)
        except UsageError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    table = json.loads((out / "table4.json").read_text())
    print("\nThroughput (training clips fed per second; GPU utilisation sampled each second while training):")
    for _model, m in table["models"].items():
        for cat, e in m["per_category"].items():
            cps = e.get("clips_per_s")
            gpu = e.get("gpu_utilisation_percent")
            print(
                f"  {m['title']:<18} {cat}: {cps:.1f} clips/s" if cps else f"  {m['title']:<18} {cat}: -",
                f"GPU {gpu:.0f}%" if gpu is not None else "",
                f"[{e.get('device')}]",
            )
    print(f"total {time.perf_counter() - t_all:.0f} s; results in {out}/table4.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
