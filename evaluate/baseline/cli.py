"""``voebench train-baseline``: train and test the AVoE baselines on a rendered set.

Imports torch only when the command runs, so ``voebench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voebench.errors import UsageError
from voebench.evaluate import checks

from voebench.contract import avoe_labels as L
from voebench.evaluate.cli import check_torch_device

MODEL_CHOICES = ("ofpr", "of", "direct", "random")
#: what a baseline run folder holds: one folder per model and category (seeds inside), the tables, the clip cache
RUN_MARKS = ("table4.json", "table4.md", "*-[A-E]", "cache")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train-baseline",
        help="train/test OFPR-Net, OF-Net, a direct 3D-ResNet or a random baseline on a rendered AVoE set",
        description="Train and test an AVoE baseline per event category over several seeds; writes checkpoints, "
        "metrics and a table in the layout of the AVoE supplementary Table 4 to RUN_DIR.",
    )
    p.add_argument("data", metavar="DIR", help="rendered set (manifest.jsonl + mp4 + h5) with AVoE videos")
    p.add_argument("--model", choices=MODEL_CHOICES, default="ofpr", help="default: ofpr")
    p.add_argument(
        "--category",
        required=True,
        help="A..E, a comma list (A,C) or 'all'; A support, B occlusion, C containment, D collision, E barrier",
    )
    p.add_argument("--out", required=True, metavar="RUN_DIR", help="run directory (re-running resumes)")
    p.add_argument("--lr", type=float, help="learning rate (default: supplementary Table 3 per category)")
    p.add_argument("--batch-size", type=int, help="(default: Table 3)")
    p.add_argument("--optimizer", choices=("adam", "sgd"), help="(default: Table 3; SGD uses momentum 0.9)")
    p.add_argument("--epochs", type=int, default=30, help="default 30 as the paper")
    p.add_argument("--seed", type=int, help="one seed")
    p.add_argument("--seeds", help="several seeds: '1-10' or '1,2,3' (default 1)")
    p.add_argument(
        "--grid-search",
        action="store_true",
        help="tune lr/batch/optimizer first as the paper (random samples of its grid, chosen on "
        "validation hit rate), then train the seeds with the best",
    )
    p.add_argument("--grid-samples", type=int, default=20)
    p.add_argument("--grid-epochs", type=int, default=30)
    p.add_argument(
        "--backbone",
        default="resnet34",
        help="resnet34 (original, Hara et al. layout), resnet18, resnet10 or r3d_18_tv (torchvision)",
    )
    p.add_argument("--width", type=int, default=64, help="backbone base channels (64 as the original)")
    p.add_argument("--pretrained", metavar="FILE", help="local backbone weights (e.g. Hara's r3d34_K_200ep.pth)")
    p.add_argument(
        "--freeze-backbone",
        action="store_true",
        help="train only the heads (the original froze its Kinetics-700 backbone); backbone outputs "
        "are computed once and cached",
    )
    p.add_argument("--size", type=int, default=112, help="frame size fed to the model (112 as the paper)")
    p.add_argument("--frames", type=int, help="frames per clip (default: the videos' own count, 50 in AVoE)")
    p.add_argument(
        "--warmup-epochs",
        type=int,
        default=10,
        help="epochs training every head before only the category's relevant heads count",
    )
    p.add_argument(
        "--train-on",
        choices=("expected", "all"),
        help="training videos (default: expected only for ofpr/of as the original, all for direct)",
    )
    p.add_argument(
        "--augment",
        action="store_true",
        help="shift and brightness/contrast jitter per training clip, on the GPU (the original used none)",
    )
    p.add_argument("--limit", type=int, help="use only the first N trials of each split (smoke runs)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1 ...")
    p.add_argument("--no-amp", action="store_true", help="no bf16 autocast on CUDA")
    p.add_argument(
        "--data-on-gpu",
        choices=("auto", "yes", "no"),
        default="auto",
        help="keep the decoded uint8 clips in GPU memory (auto: when they take < 40%% of free memory)",
    )
    p.add_argument("--cache-dir", help="decoded-clip cache (default DIR/.baseline-cache, else RUN_DIR/cache)")
    p.add_argument(
        "--trees",
        choices=("auto", "sklearn", "numpy"),
        default="auto",
        help="decision-tree implementation (auto: scikit-learn if installed, else the numpy CART)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=handle)


def parse_seeds(seed: int | None, seeds: str | None) -> list[int]:
    if seed is not None and seeds:
        raise UsageError("give --seed or --seeds, not both")
    if seed is not None:
        return [seed]
    if not seeds:
        return [1]
    out: list[int] = []
    try:
        for part in seeds.split(","):
            part = part.strip()
            if "-" in part[1:]:
                a, b = part.split("-", 1) if not part.startswith("-") else (part, "")
                out += list(range(int(a), int(b) + 1))
            elif part:
                out.append(int(part))
    except ValueError:
        raise UsageError(f"--seeds {seeds!r}: use '1-10' or '1,2,3'") from None
    if not out:
        raise UsageError(f"--seeds {seeds!r} names no seed")
    return list(dict.fromkeys(out))


def parse_categories(text: str) -> list[str]:
    if text.strip().lower() == "all":
        return list(L.CATEGORIES)
    out = []
    for part in text.split(","):
        try:
            out.append(L.category_of(part.strip()))
        except ValueError:
            raise UsageError(f"--category {part.strip()!r}: use A, B, C, D, E, a comma list or 'all'") from None
    return list(dict.fromkeys(out))


def handle(args: argparse.Namespace) -> int:
    data = Path(args.data)
    if not (data / "manifest.jsonl").is_file():
        raise UsageError(f"{data}: no manifest.jsonl (render an AVoE set first)")
    categories = parse_categories(args.category)
    seeds = parse_seeds(args.seed, args.seeds)
    for name in ("epochs", "batch_size", "size", "frames", "grid_samples", "grid_epochs", "width", "limit"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1")
    if args.lr is not None and not args.lr > 0:
        raise UsageError("--lr must be > 0")
    if args.pretrained and not Path(args.pretrained).is_file():
        raise UsageError(f"--pretrained {args.pretrained}: no such file")

    try:
        import torch  # optional: the `eval` extra
    except ImportError:
        raise UsageError("train-baseline needs torch (pip install 'voebench[eval]')") from None
    # torch is optional (the `eval` extra): these import it, so they load only once it is known to be there
    from .backbone import BACKBONES
    from .data import avoe_records
    from .experiments import grid_search, run_seeds
    from .splits import load_data
    from .tables import write_tables
    from .train import TrainConfig
    from .trees import sklearn_available

    if args.backbone not in BACKBONES:
        raise UsageError(f"--backbone {args.backbone!r}: one of {', '.join(BACKBONES)}")
    check_torch_device(args.device)
    if args.trees == "sklearn" and not sklearn_available():
        raise UsageError("--trees sklearn but scikit-learn is not installed")
    if args.model == "ofpr" and not sklearn_available():
        print("note: scikit-learn not installed; the decision trees use the numpy CART fallback", file=sys.stderr)

    checks.check_out_folder(args.out, RUN_MARKS)
    for cat in categories:  # every check before anything is written (the run folder, the clip cache)
        recs = avoe_records(data, cat)
        splits = {r.split for r in recs}
        if not recs:
            raise UsageError(f"{data}: no AVoE videos of category {cat}")
        if "train" not in splits and args.model != "random":
            raise UsageError(f"{data}: category {cat} has no train split")
        if "test" not in splits:
            raise UsageError(f"{data}: category {cat} has no test split")
        if args.model != "random":
            missing = sum(1 for r in recs if r.video is None or not r.video.is_file())
            if missing:
                raise UsageError(
                    f"{data}: {missing} of {len(recs)} category-{cat} videos have no mp4 (a states-only render?)"
                )
        train_on = args.train_on or ("all" if args.model == "direct" else "expected")
        if train_on == "all" and not any(r.split == "train" and r.surprising for r in recs):
            raise UsageError(
                f"{data}: category {cat} has no surprising train videos, which --model {args.model} "
                "--train-on all needs; render with --both-conditions, or pass --train-on expected "
                "(the original's setup, where the direct model only sees expected videos)"
            )
    run_dir = Path(args.out)
    run_dir.mkdir(parents=True, exist_ok=True)
    from .data import default_cache_dir  # torch: see above

    cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir(data, run_dir / "cache")

    for cat in categories:
        print(f"[{cat}] loading and caching clips ...", file=sys.stderr)
        split_data = load_data(
            data,
            cat,
            size=args.size,
            n_frames=args.frames,
            cache_dir=cache_dir,
            progress=not args.no_progress,
            limit=args.limit,
            decode=args.model != "random",
        )
        cfg = TrainConfig(
            model=args.model,
            category=cat,
            lr=args.lr,
            batch_size=args.batch_size,
            optimizer=args.optimizer,
            epochs=args.epochs,
            backbone=args.backbone,
            width=args.width,
            pretrained=args.pretrained,
            freeze_backbone=args.freeze_backbone,
            warmup_epochs=args.warmup_epochs,
            train_on=args.train_on,
            augment=args.augment,
            device=args.device,
            amp=not args.no_amp,
            data_on_gpu=args.data_on_gpu,
            tree_backend=args.trees,
            progress=not args.no_progress,
        )
        if args.grid_search and args.model != "random":
            best = grid_search(
                cfg,
                split_data,
                run_dir,
                samples=args.grid_samples,
                epochs=args.grid_epochs,
                seed=seeds[0],
                log=lambda s: print(s, file=sys.stderr),
            )
            print(
                f"[{cat}] grid search best: lr {best['lr']} batch {best['batch_size']} {best['optimizer']} "
                f"(validation hit rate {best['validation_hit_rate']:.3f})",
                file=sys.stderr,
            )
            cfg.lr, cfg.batch_size, cfg.optimizer = best["lr"], best["batch_size"], best["optimizer"]
        run_seeds(cfg, split_data, run_dir, seeds, log=lambda s: print(s, file=sys.stderr))
        del split_data
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    text, _ = write_tables(run_dir)
    print(text)
    print(f"wrote {run_dir / 'table4.md'} and {run_dir / 'table4.json'}", file=sys.stderr)
    return 0
