"""Markdown and JSON tables of finished runs: RUN_DIR/table4.md and table4.json (supplementary Table 4 layout,
then every metric as mean ± sd over seeds)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from voebench.contract import avoe_labels as L

from .models import MODEL_TITLES
from .published import PUBLISHED_HIT_RATE
from .train import json_default

COLUMNS = [(c, f"{L.CATEGORY_NAMES[c].capitalize()} ({c})") for c in L.CATEGORIES]


def collect_results(run_dir: Path) -> dict:
    """{model: {category: {seed: metrics}}} from every finished seed under run_dir."""
    res: dict = {}
    for f in sorted(Path(run_dir).glob("*-*/seed*/metrics.json")):
        m = json.loads(f.read_text())
        res.setdefault(m["model"], {}).setdefault(m["category"], {})[int(m["seed"])] = m
    return res


def _fmt(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def write_tables(run_dir: Path) -> tuple[str, dict]:
    """table4.md / table4.json in RUN_DIR: per model, hit rate per seed and category (supplementary Table 4
    layout), its mean beside the published mean, then every metric as mean ± sd over seeds, and throughput."""
    res = collect_results(run_dir)
    lines: list[str] = []
    js: dict[str, Any] = {"models": {}}
    order = [m for m in ("ofpr", "of", "direct", "random") if m in res]
    for model in order:
        per = res[model]
        seeds = sorted({s for c in per.values() for s in c})
        lines += [
            f"**{MODEL_TITLES[model]} Hit Rate**",
            "",
            "| Seed | " + " | ".join(t for _, t in COLUMNS) + " |",
            "|---" * (len(COLUMNS) + 1) + "|",
        ]
        for s in seeds:
            lines.append(
                f"| {s} | "
                + " | ".join(_fmt(per.get(c, {}).get(s, {}).get("test", {}).get("hit_rate")) for c, _ in COLUMNS)
                + " |"
            )
        means = {}
        for c, _ in COLUMNS:
            vals = [v["test"]["hit_rate"] for v in per.get(c, {}).values() if not math.isnan(v["test"]["hit_rate"])]
            means[c] = float(np.mean(vals)) if vals else None
        lines.append("| **Mean** | " + " | ".join(_fmt(means[c]) for c, _ in COLUMNS) + " |")
        if model in PUBLISHED_HIT_RATE:
            pub = {c: float(np.mean(v)) for c, v in PUBLISHED_HIT_RATE[model].items()}
            lines.append("| Published mean (Table 4) | " + " | ".join(_fmt(pub[c]) for c, _ in COLUMNS) + " |")
        lines.append("")
        js["models"][model] = {"title": MODEL_TITLES[model], "hit_rate_mean": means, "per_category": {}}
        for c, _ in COLUMNS:
            if c not in per:
                continue
            entry: dict[str, Any] = {}
            for metric in ("hit_rate", "relative_accuracy", "absolute_accuracy", "auc"):
                vals = [v["test"][metric] for v in per[c].values()]
                entry[metric] = {
                    "per_seed": {str(s): per[c][s]["test"][metric] for s in sorted(per[c])},
                    "mean": float(np.nanmean(vals)) if not all(map(math.isnan, vals)) else None,
                    "sd": float(np.nanstd(vals)) if not all(map(math.isnan, vals)) else None,
                }
            tps = [
                v["throughput"].get("steady_clips_per_s") or v["throughput"]["clips_per_s"]
                for v in per[c].values()
                if v.get("throughput") and v["throughput"].get("clips_per_s")
            ]
            gpus = [
                v["gpu_utilisation"]["mean_percent"]
                for v in per[c].values()
                if v.get("gpu_utilisation") and v["gpu_utilisation"].get("mean_percent") is not None
            ]
            entry["clips_per_s"] = float(np.mean(tps)) if tps else None
            entry["gpu_utilisation_percent"] = float(np.mean(gpus)) if gpus else None
            entry["n_test_pairs"] = [v["test"]["n_pairs"] for v in per[c].values()][0]
            any_run = next(iter(per[c].values()))
            entry["device"] = any_run.get("gpu_name") or any_run.get("device")
            js["models"][model]["per_category"][c] = entry
    if order:
        lines += [
            "**All metrics on the test split (mean ± sd over seeds)**",
            "",
            "| Model | Category | Seeds | Hit rate | Relative acc. | Absolute acc. | AUC | Test pairs | "
            "Clips/s | GPU util. |",
            "|---" * 10 + "|",
        ]
        for model in order:
            for c, title in COLUMNS:
                e = js["models"][model]["per_category"].get(c)
                if not e:
                    continue
                ms = lambda k: f"{e[k]['mean']:.3f} ± {e[k]['sd']:.3f}" if e[k]["mean"] is not None else "-"  # noqa
                lines.append(
                    f"| {MODEL_TITLES[model]} | {title} | {len(e['hit_rate']['per_seed'])} | "
                    f"{ms('hit_rate')} | {ms('relative_accuracy')} | {ms('absolute_accuracy')} | "
                    f"{ms('auc')} | {e['n_test_pairs']} | "
                    f"{_fmt1(e['clips_per_s'])} | "
                    f"{_fmt1(e['gpu_utilisation_percent'], '%')} |"
                )
        lines.append("")
    text = "\n".join(lines) if lines else "(no finished runs)\n"
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    (Path(run_dir) / "table4.md").write_text(text)
    (Path(run_dir) / "table4.json").write_text(json.dumps(js, indent=1, default=json_default))
    return text, js


def _fmt1(x, unit=""):
    return "-" if x is None else f"{x:.1f}{unit}"


def comparison_table(run_dir: Path) -> str:
    """Markdown: per model and category, our test hit rate (mean ± sd and the range over seeds), relative accuracy
    and AUC (mean ± sd), beside the published hit rate (mean ± sd over its 10 seeds, supplementary Table 4), and
    whether the published mean lies inside our seeds' range."""
    res = collect_results(run_dir)
    head = (
        "| Model | Category | Seeds | Test pairs | Hit rate (ours) | Seed range | Published hit rate | "
        "Published inside our range | Relative acc. | AUC |"
    )
    lines = [head, "|---" * 10 + "|"]
    for model in [m for m in ("ofpr", "of", "direct", "random") if m in res]:
        for c, title in COLUMNS:
            runs = res[model].get(c)
            if not runs:
                continue
            hit, rel, auc_ = (
                np.array([r["test"][k] for r in runs.values()], dtype=float)
                for k in ("hit_rate", "relative_accuracy", "auc")
            )
            pub = PUBLISHED_HIT_RATE.get(model, {}).get(c)
            pub_txt, inside = "-", "-"
            if pub:
                pm = float(np.mean(pub))
                pub_txt = f"{pm:.2f} ± {float(np.std(pub)):.2f}"
                inside = "yes" if hit.min() - 1e-9 <= pm <= hit.max() + 1e-9 else "no"
            lines.append(
                f"| {MODEL_TITLES[model]} | {title} | {len(hit)} | {next(iter(runs.values()))['test']['n_pairs']} | "
                f"{hit.mean():.2f} ± {hit.std():.2f} | {hit.min():.2f}-{hit.max():.2f} | {pub_txt} | {inside} | "
                f"{rel.mean():.2f} ± {rel.std():.2f} | {auc_.mean():.2f} ± {auc_.std():.2f} |"
            )
    return "\n".join(lines) + "\n"
