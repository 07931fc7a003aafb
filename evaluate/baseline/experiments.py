"""Experiments built from single training runs: several seeds of one configuration, and the supplementary's
random hyperparameter search. Both skip what a previous call already finished (metrics.json, grid.json)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

from .models import MODEL_TITLES
from .published import GRID
from .splits import Splits
from .train import SeedTrainer, TrainConfig


def run_seeds(cfg: TrainConfig, data: Splits, run_dir: Path, seeds: list[int], log=print) -> list[dict]:
    results = []
    for seed in seeds:
        seed_dir = Path(run_dir) / f"{cfg.model}-{cfg.category}" / f"seed{seed}"
        done = seed_dir / "metrics.json"
        if done.is_file():
            log(f"{cfg.model} {cfg.category} seed {seed}: done already ({done})")
            results.append(json.loads(done.read_text()))
            continue
        r = SeedTrainer(replace(cfg, seed=seed), data, seed_dir).train()
        t = r["test"]
        tp = r.get("throughput") or {}
        gpu = r.get("gpu_utilisation") or {}
        log(
            f"{MODEL_TITLES[cfg.model]} {cfg.category} seed {seed}: test hit rate {t['hit_rate']:.3f}, "
            f"relative acc {t['relative_accuracy']:.3f}, AUC {t['auc']:.3f}"
            + (f", {tp.get('steady_clips_per_s') or tp['clips_per_s']:.1f} clips/s" if tp.get("clips_per_s") else "")
            + (f", GPU util {gpu['mean_percent']:.0f}%" if gpu.get("mean_percent") is not None else "")
        )
        results.append(r)
    return results


def grid_search(
    cfg: TrainConfig, data: Splits, run_dir: Path, samples: int = 20, epochs: int = 30, seed: int = 0, log=print
) -> dict:
    """The supplementary's tuning: ``samples`` random (lr, batch size, optimizer) from GRID, each trained for
    ``epochs`` and scored on validation (hit rate, ties AUC). Returns the best; results in grid.json."""
    combos = [(lr, bs, o) for lr in GRID["lr"] for bs in GRID["batch_size"] for o in GRID["optimizer"]]
    rng = random.Random(seed)
    chosen = rng.sample(combos, min(samples, len(combos)))
    path = Path(run_dir) / f"{cfg.model}-{cfg.category}" / "grid.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    done = json.loads(path.read_text())["trials"] if path.is_file() else []
    have = {(t["lr"], t["batch_size"], t["optimizer"]) for t in done}
    for lr, bs, o in chosen:
        if (lr, bs, o) in have:
            continue
        c = replace(cfg, lr=lr, batch_size=bs, optimizer=o, epochs=epochs, seed=seed)
        r = SeedTrainer(c, data, None).train()
        val = r["validation"] or r["test"]
        done.append(
            {
                "lr": lr,
                "batch_size": bs,
                "optimizer": o,
                "validation_hit_rate": val["hit_rate"],
                "validation_auc": val["auc"],
            }
        )
        log(f"grid {cfg.model} {cfg.category}: lr {lr} batch {bs} {o}: val hit rate {val['hit_rate']:.3f}")
        path.write_text(json.dumps({"trials": done}, indent=1))
    key = lambda t: (_nan0(t["validation_hit_rate"]), _nan0(t["validation_auc"]))  # noqa: E731
    best = max(done, key=key)
    path.write_text(json.dumps({"trials": done, "best": best}, indent=1))
    return best


def _nan0(x):
    return -1.0 if x is None or (isinstance(x, float) and math.isnan(x)) else x
