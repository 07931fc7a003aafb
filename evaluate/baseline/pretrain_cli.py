"""``voebench pretrain-baseline``: make local backbone weights for ``train-baseline --pretrained --freeze-backbone``.

Imports torch only when the command runs, so ``voebench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from voebench.errors import UsageError

from voebench.evaluate.cli import check_torch_device

from .cli import parse_categories

OBJECTIVES = ("future", "clip")  # pretrain.OBJECTIVES, repeated here so --help needs no torch


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "pretrain-baseline",
        help="pretrain the baselines' 3D ResNet on expected training videos (self-supervised frame prediction)",
        description="Pretrain the baselines' 3D ResNet backbone without labels, on the expected TRAINING videos "
        "of a rendered AVoE set (never validation or test videos), by predicting low-resolution frames through "
        "the vector the heads read; a small decoder does the drawing and is dropped. Writes the backbone's "
        "weights to FILE for `voebench train-baseline DIR --pretrained FILE --freeze-backbone`, the stand-in "
        "for the original's frozen Kinetics-700 backbone (nothing is downloaded).",
    )
    p.add_argument("data", metavar="DIR", help="rendered set (manifest.jsonl + mp4) with AVoE videos")
    p.add_argument("--out", required=True, metavar="FILE", help="backbone weights to write (.pt)")
    p.add_argument("--category", default="all", help="categories whose training videos are used (default all)")
    p.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default="future",
        help="future: see the first --context frames, draw later ones (default); clip: see the whole clip, "
        "redraw it (the way the frozen backbone is used afterwards)",
    )
    p.add_argument("--context", type=int, default=25, help="frames the backbone sees with --objective future")
    p.add_argument("--target-frames", type=int, default=8, help="frames the decoder draws (default 8)")
    p.add_argument("--target-size", type=int, default=32, help="side of the drawn frames: 4 times a power of 2")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--max-seconds", type=float, help="stop after this many seconds of training (weights kept)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3, help="AdamW, cosine decay (default 1e-3)")
    p.add_argument("--backbone", default="resnet34", help="as train-baseline's (default resnet34)")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--size", type=int, default=112, help="input frame size (112 as train-baseline)")
    p.add_argument("--limit", type=int, help="only the first N training videos per category (smoke runs)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="auto", help="auto, cpu, cuda ...")
    p.add_argument("--no-amp", action="store_true", help="no bf16 autocast on CUDA")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    data = Path(args.data)
    if not (data / "manifest.jsonl").is_file():
        raise UsageError(f"{data}: no manifest.jsonl (render an AVoE set first)")
    categories = parse_categories(args.category)
    for name in ("epochs", "batch_size", "target_frames", "target_size", "width", "size", "context", "limit"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1")
    if args.target_size < 4 or args.target_size & (args.target_size - 1):
        raise UsageError(f"--target-size {args.target_size}: use 4 times a power of two (8, 16, 32, 64)")
    if not args.lr > 0:
        raise UsageError("--lr must be > 0")
    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; give a file name")
    try:
        import torch  # optional: the `eval` extra
    except ImportError:
        raise UsageError("pretrain-baseline needs torch (pip install 'voebench[eval]')") from None
    from .backbone import BACKBONES
    from .data import avoe_records, default_cache_dir
    from .pretrain import PretrainConfig, pretrain, save_backbone, training_clips

    if args.backbone not in BACKBONES:
        raise UsageError(f"--backbone {args.backbone!r}: one of {', '.join(BACKBONES)}")
    check_torch_device(args.device)
    records = [r for c in categories for r in avoe_records(data, c, "train", ("expected",))]
    if len(records) < 2:
        raise UsageError(f"{data}: fewer than 2 expected training videos in categories {','.join(categories)}")
    if any(r.video is None or not r.video.is_file() for r in records):
        raise UsageError(f"{data}: some training videos have no mp4 (a states-only render?)")
    n_frames = records[0].n_frames or None
    if args.objective == "future" and n_frames and not args.context < n_frames:
        raise UsageError(f"--context {args.context} must be below the videos' {n_frames} frames")

    print(f"decoding {len(records)} expected training videos ...", file=sys.stderr)
    clips = training_clips(data, categories, size=args.size, cache_dir=default_cache_dir(data, None), limit=args.limit)
    cfg = PretrainConfig(
        objective=args.objective,
        backbone=args.backbone,
        width=args.width,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        context=args.context,
        target_frames=args.target_frames,
        target_size=args.target_size,
        max_seconds=args.max_seconds,
        seed=args.seed,
        device=args.device,
        amp=not args.no_amp,
    )
    backbone, record = pretrain(clips, cfg, log=lambda s: print(s, file=sys.stderr))
    record["data"] = str(data)
    record["categories"] = categories
    out.parent.mkdir(parents=True, exist_ok=True)
    save_backbone(out, backbone, record)
    last = record["history"][-1]["loss"] if record["history"] else float("nan")
    print(
        json.dumps(
            {
                "out": str(out),
                "clips": record["clips"],
                "epochs_run": len(record["history"]),
                "final_loss": last,
                "mean_prediction_loss": record["baseline_loss"],
                "seconds": round(record["seconds"], 1),
            }
        )
    )
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return 0
