"""``voebench train-world-model``: train a small V-JEPA 2 on a rendered set's plausible videos (evaluate/surprise/
train.py) and save a folder that ``voebench evaluate --model vjepa2:FOLDER`` scores.

The command only checks input, picks the videos and saves atomically; the training itself is train.py's
`train_world_model`. Imports torch only when the command runs, so ``voebench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

from voebench.errors import UsageError
from voebench.evaluate.cli import check_torch_device

SIZES = ("tiny", "small", "small-128")
#: A folder holding this file was written by this command (or train.py) and may be replaced by a new run.
TRAIN_LOG = "train.json"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train-world-model",
        help="train a small V-JEPA 2 world model on a rendered set's plausible videos",
        description="Train a small V-JEPA 2 (video joint-embedding predictive architecture) from random weights on "
        "the plausible (`plausible` / `expected`) videos of TRAIN_DIR only: from the first C frames of a "
        "random window the predictor predicts the latents of the rest, against an EMA target encoder "
        "(docs/world-models.md). Violating videos are never used. The saved FOLDER is scored by "
        "`voebench evaluate TEST_DIR --model vjepa2:FOLDER`; pass the same --window/--context-lengths/"
        "--frame-step there. Give every test set you will score with --test-set: a training set that "
        "shares a trial seed with one is refused (render it with another --seed).",
    )
    p.add_argument("data", metavar="TRAIN_DIR", help="rendered set (manifest.jsonl + mp4) to train on")
    p.add_argument("--out", required=True, metavar="FOLDER", help="where the model is saved (written atomically)")
    p.add_argument(
        "--test-set",
        action="append",
        default=[],
        metavar="DIR",
        help="a set the model will be tested on; refused if it shares a trial seed (repeatable)",
    )
    p.add_argument(
        "--size",
        choices=SIZES,
        default="small",
        help="model preset: tiny (0.11M parameters, smoke runs) or small (3.6M, default)",
    )
    p.add_argument("--steps", type=int, default=1000, help="optimiser steps (default 1000)")
    p.add_argument("--batch-size", type=int, default=64, help="windows per step (default 64)")
    p.add_argument("--lr", type=float, default=5e-4, help="peak learning rate, warm-up then cosine (default 5e-4)")
    p.add_argument("--seed", type=int, default=0, help="weights and window sampling (default 0)")
    p.add_argument("--max-seconds", type=float, help="stop early after this much training time")
    p.add_argument(
        "--state",
        metavar="FILE",
        help="resumable training: continue from FILE where it exists, and write the state there when the "
        "command stops (at --stop-at or --max-seconds; the model as it is then goes to --out)",
    )
    p.add_argument("--stop-at", type=int, metavar="STEP", help="stop at this step (with --state: resume later)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1 ...")
    g = p.add_argument_group("protocol (pass the same values to `voebench evaluate`)")
    g.add_argument("--window", type=int, default=16, help="frames per window (default 16)")
    g.add_argument("--context-lengths", default="2,4,6,8,10", help="context lengths drawn per step")
    g.add_argument("--frame-step", type=int, help="subsample every N frames (default: ~5 sampled frames/s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=handle)


def _protocol(args):
    from voebench.evaluate.surprise.cli import _ints
    from voebench.evaluate.surprise.protocol import Protocol

    contexts = _ints(args.context_lengths)
    if not contexts:
        raise UsageError("--context-lengths names no length")
    try:  # the fixed context only matters when scoring; any listed length satisfies the protocol's check
        return Protocol(
            window=args.window, context_lengths=contexts, fixed_context=contexts[-1], frame_step=args.frame_step
        )
    except ValueError as e:
        raise UsageError(str(e)) from None


def check_out(out: str) -> None:
    """Refuse an --out that holds anything this command did not write (it would be replaced)."""
    if not os.path.exists(out):
        return
    if not os.path.isdir(out):
        raise UsageError(f"--out {out}: exists and is not a directory")
    if os.listdir(out) and not os.path.isfile(os.path.join(out, TRAIN_LOG)):
        raise UsageError(f"--out {out}: a non-empty folder voebench did not write (no {TRAIN_LOG}); pick another")


def handle(args: argparse.Namespace) -> int:
    for name in ("steps", "batch_size"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1")
    if not args.lr > 0:
        raise UsageError("--lr must be > 0")
    if args.max_seconds is not None and not args.max_seconds > 0:
        raise UsageError("--max-seconds must be > 0")
    if args.stop_at is not None and not 0 < args.stop_at <= args.steps:
        raise UsageError(f"--stop-at must lie in 1..--steps ({args.steps})")
    protocol = _protocol(args)
    out = os.path.abspath(args.out)
    check_out(out)
    try:
        import torch  # noqa: F401  (optional: the `eval` extra; checked before anything else)
        import transformers  # noqa: F401
    except ImportError:
        raise UsageError("train-world-model needs torch and transformers (pip install 'voebench[eval]')") from None
    from voebench.evaluate.surprise import train  # imports torch
    from voebench.evaluate.surprise.vjepa2 import PRESETS
    from voebench.evaluate.tasks import load_manifest

    tubelet = int(PRESETS[args.size].get("tubelet_size", 2))
    bad = [c for c in (protocol.window, *protocol.context_lengths) if c % tubelet]
    if bad:
        raise UsageError(f"--window and --context-lengths must be multiples of the tubelet size {tubelet}: {bad}")
    check_torch_device(args.device)
    if args.state and os.path.isfile(args.state):
        try:
            train.check_state(args.state, args.steps, args.seed)
        except ValueError as e:
            raise UsageError(f"--state {e}") from None

    manifest = load_manifest(args.data)  # UsageError if it is not a rendered set
    entries = train.plausible_entries(manifest.entries)
    if not entries:
        raise UsageError(f"{args.data}: no plausible video with an mp4 to train on (a states-only render?)")
    for test_dir in args.test_set:
        try:
            train.check_disjoint(entries, load_manifest(test_dir).entries)
        except ValueError as e:
            raise UsageError(f"--test-set {test_dir}: {e}") from None

    videos = train.load_videos(manifest, entries, protocol)
    if not videos:
        raise UsageError(
            f"{args.data}: none of the {len(entries)} plausible videos is as long as one window "
            f"({protocol.window} sampled frames); lower --window or --frame-step"
        )
    print(
        f"training a {args.size} V-JEPA 2 on {len(videos)} plausible videos of {args.data} "
        f"({args.steps} steps, batch {args.batch_size})",
        file=sys.stderr,
    )

    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.", suffix=".tmp", dir=parent)
    bar = None
    try:
        if not args.no_progress:
            from tqdm import tqdm

            bar = tqdm(total=args.steps, unit="step", file=sys.stderr)
        info = train.train_world_model(
            videos,
            tmp,
            protocol,
            preset=args.size,
            steps=args.steps,
            batch=args.batch_size,
            lr=args.lr,
            device=args.device,
            seed=args.seed,
            max_seconds=args.max_seconds,
            state=args.state,
            stop_at=args.stop_at,
            on_step=_bar_update(bar) if bar is not None else None,
        )
        if bar is not None:
            bar.close()
        _record(tmp, info, args, protocol, len(entries))
        _replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    print(
        f"{info['steps']} steps in {info['seconds']:.1f} s, final loss {info['log'][-1]['loss']:.4f} -> {out}\n"
        f"score it: voebench evaluate TEST_DIR --model vjepa2:{out}{_evaluate_options(protocol)}",
        file=sys.stderr,
    )
    return 0


def _evaluate_options(protocol) -> str:
    """The `voebench evaluate` options that reproduce the training windows (only those off evaluate's defaults)."""
    from voebench.evaluate.surprise.protocol import Protocol

    default = Protocol()
    opts = ""
    if protocol.window != default.window:
        opts += f" --window {protocol.window}"
    if protocol.context_lengths != default.context_lengths:
        opts += f" --context-lengths {','.join(map(str, protocol.context_lengths))}"
        if default.fixed_context not in protocol.context_lengths:  # evaluate's headline context must be listed
            opts += f" --fixed-context {protocol.context_lengths[-1]}"
    if protocol.frame_step:
        opts += f" --frame-step {protocol.frame_step}"
    return opts


def _bar_update(bar):
    def update(step: int, loss) -> None:
        if step % 50 == 0 or step + 1 == bar.total:  # reading the loss syncs the device: every 50th step only
            bar.set_postfix(loss=f"{float(loss):.4f}", refresh=False)
        bar.update(1)
        if step + 1 == bar.total:  # close before the model is saved (transformers draws its own bar)
            bar.close()

    return update


def _record(folder: str, info: dict, args, protocol, n_plausible: int) -> None:
    """Add what the command knows and train.py does not (data, protocol, test sets) to train.json."""
    path = os.path.join(folder, TRAIN_LOG)
    with open(path, encoding="utf-8") as fh:
        log = json.load(fh)
    log.update(
        {
            "written_by": "voebench train-world-model",
            "train_set": os.path.abspath(args.data),
            "plausible_entries": n_plausible,
            "test_sets_checked": [os.path.abspath(d) for d in args.test_set],
            "protocol": protocol.record(),
            "seed": args.seed,
        }
    )
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(log, fh, indent=1)


def _replace(tmp: str, out: str) -> None:
    """Rename the finished folder into place; an earlier model there (checked by check_out) goes only after."""
    if os.path.exists(out):
        old = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.", suffix=".old", dir=os.path.dirname(out))
        os.rmdir(old)
        os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp, out)
