"""The world-model side of `voebench evaluate` (--model vjepa2:... / vjepa2-random:... / motion-energy) and of
`voebench report`.

Only the standard library at module level: evaluate/cli.py adds these options to every `voebench evaluate`.
"""

from __future__ import annotations

import os
import sys

from voebench.errors import UsageError
from voebench.evaluate import checks

#: what a world-model run folder holds (surprise.jsonl grows per video; run.json is written at the end)
RUN_MARKS = ("run.json", "surprise.jsonl")


def _ints(s: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in s.split(",") if x)
    except ValueError:
        raise UsageError(f"expected comma-separated integers, got {s!r}") from None


def add_arguments(p) -> None:
    g = p.add_argument_group(
        "world models (--model vjepa2:<path-or-id> | vjepa2-random:<tiny|small|vitl> | motion-energy)"
    )
    g.add_argument("--context-lengths", default="2,4,6,8,10", help="frames the model sees per window (protocol)")
    g.add_argument("--fixed-context", type=int, default=8, help="the context length declared in advance (headline)")
    g.add_argument("--frame-step", type=int, help="subsample every N frames (default: ~5 sampled frames/s)")
    g.add_argument("--window", type=int, default=16, help="frames per window")
    g.add_argument("--stride", type=int, default=2, help="sampled frames between window starts")
    g.add_argument("--windows-per-batch", type=int, default=32, help="windows per forward pass")
    g.add_argument(
        "--protocol",
        choices=("voebench", "reference"),
        default="voebench",
        help="headline numbers: voebench's (ties one half, invisible comparisons left out) or the reference's "
        "(jepa-intuitive-physics: strict ties, best context per test, float16 autocast on CUDA); the report "
        "always shows both side by side",
    )
    g.add_argument(
        "--threshold-quantile",
        type=float,
        default=0.9,
        help="absolute accuracy: quantile of plausible surprise used as the threshold",
    )


def protocol_from_args(args):
    from voebench.evaluate.surprise.protocol import Protocol

    try:
        return Protocol(
            window=args.window,
            stride=args.stride,
            context_lengths=_ints(args.context_lengths),
            fixed_context=args.fixed_context,
            frame_step=args.frame_step,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None


def scoring_dtype(protocol: str, dtype: str, device: str) -> str:
    """The autocast dtype of a run: the reference protocol computes in float16 autocast on CUDA (its eval.py:
    `torch.cuda.amp.autocast(dtype=torch.float16)`), so `--dtype auto` becomes float16 there; elsewhere as asked."""
    if protocol != "reference" or dtype != "auto":
        return dtype
    if device == "cpu":
        return dtype
    try:
        import torch
    except ImportError:
        return dtype
    on_cuda = device.startswith("cuda") or (device == "auto" and torch.cuda.is_available())
    return "float16" if on_cuda else dtype


def cmd_evaluate_surprise(args, manifest, entries, extra: dict) -> int:
    from voebench.evaluate.surprise import report
    from voebench.evaluate.surprise.run import run_surprise

    if not 0 < args.threshold_quantile < 1:
        raise UsageError("--threshold-quantile must lie in (0, 1)")
    if args.windows_per_batch < 1:
        raise UsageError("--windows-per-batch must be at least 1")
    protocol = protocol_from_args(args)
    checks.check_out_folder(args.out, RUN_MARKS, kind="world-model")
    dtype = scoring_dtype(args.protocol, args.dtype, args.device)
    extra = {**extra, "scoring_protocol": args.protocol, "dtype_asked": args.dtype}
    info = run_surprise(
        manifest,
        entries,
        args.model,
        args.out,
        protocol,
        batch_windows=args.windows_per_batch,
        device=args.device,
        dtype=dtype,
        progress=not args.no_progress,
        extra=extra,
    )
    summary = report.write_report(args.out, quantile=args.threshold_quantile)
    tp = info.get("throughput") or {}
    print(
        f"{info['videos']} videos, {summary['pairs']} pairs scored"
        + (f" at {tp['pairs_per_s']:.2f} pairs/s" if tp else "")
        + f" -> {os.path.join(args.out, report.RESULTS)}",
        file=sys.stderr,
    )
    left = summary.get("left_out") or {}
    if left.get("comparisons"):
        print(
            f"  {left['comparisons']} comparison(s) left out: the violation cannot appear in the scored frames "
            f"({', '.join(f'{n} {r}' for r, n in left['by_reason'].items())}; see report.md)",
            file=sys.stderr,
        )
    c = summary["fixed_context"]
    if args.protocol == "reference":
        for s in summary["reference"]["suites"]:
            print(
                f"  {s['suite']:10s} reference protocol: relative acc (avg) {s['figure']:5.1f}% (mean over tests of "
                f"the best of C and Filtered), {s['mean_at_fixed']:5.1f}% at C={c}, ties wrong (chance 50%)",
                file=sys.stderr,
            )
        return 0
    for s in summary["suites"]:
        f = s["fixed"]["avg"]
        lo, hi = f["relative_ci"]
        iv = f.get("interval") or {}
        ci = f"[{100 * lo:.0f}, {100 * hi:.0f}]" if lo == lo and hi == hi else f"[no interval: {iv.get('note')}]"
        print(
            f"  {s['suite']:10s} relative acc (avg, C={c}) {100 * f['relative']:5.1f}% "
            f"{ci}  AUROC {f['auroc']:.2f}  (chance 50%)",
            file=sys.stderr,
        )
    return 0
