"""results.json, report.md and curves.png of a surprise run (`voebench evaluate --model vjepa2:...`).

curves.png: for one pair per test (the first by pair id), the surprise of each window of both videos at the
pre-declared context length, placed at the window's last frame, with the violation window (first to last edited
frame) shaded and the onset marked: the two curves must coincide left of the onset.
"""

from __future__ import annotations

import json
import os

from voebench.evaluate.surprise import metrics, motion, reference, visibility
from voebench.evaluate.surprise.score import CURVES, RUN, load_curves

RESULTS = "results.json"
REPORT = "report.md"
PLOT = "curves.png"


def is_surprise_run(run_dir: str) -> bool:
    return os.path.isfile(os.path.join(run_dir, CURVES))


def _pct(x) -> str:
    return "-" if x is None or x != x else f"{100 * x:.1f}"


def _ci(ci) -> str:
    """'[lo, hi]' in percent, '-' without an interval; an interval with a note gets a numbered mark."""
    lo, hi = ci
    text = "-" if lo is None or hi is None or lo != lo else f"[{100 * lo:.0f}, {100 * hi:.0f}]"
    return text


def _ci_cell(f: dict, notes: list[str], where: str) -> str:
    text = _ci(f["relative_ci"])
    note = (f.get("interval") or {}).get("note")
    if note:
        notes.append(f"{where}: {note}")
        text += f" [{len(notes)}]"
    return text


def _resampling_lines(rows: list[dict], notes: list[str]) -> list[str]:
    """What the intervals resampled, with the cluster counts, and the numbered notes."""
    seen: dict[str, list[str]] = {}
    for r in rows:
        iv = r["fixed"]["avg"].get("interval")
        if iv:
            counts = ", ".join(f"{v} {k}" for k, v in iv["clusters"].items())
            seen.setdefault(iv["resampled"], []).append(f"{r['suite']} {r['test']} ({counts})")
    out = [""] if seen or notes else []
    if seen:
        n_boot = next(r["fixed"]["avg"]["interval"]["n_boot"] for r in rows if r["fixed"]["avg"].get("interval"))
        out.append(f"95% CI: percentile bootstrap, {n_boot} draws, fixed seed, resampling clusters:")
        out += [f"- {what}: " + "; ".join(where) for what, where in seen.items()]
    out += [f"- [{i}] {n}" for i, n in enumerate(notes, 1)]
    return out


def markdown(summary: dict, info: dict) -> str:
    fixed = summary["fixed_context"]
    model = info.get("model", {})
    lines = [
        f"# Surprise run: {model.get('name', '?')}",
        "",
        f"Protocol: {json.dumps(info.get('protocol', {}))}",
        f"Videos {summary['videos']}, pairs {summary['pairs']}"
        + (f", throughput {info['throughput']['pairs_per_s']:.2f} pairs/s" if info.get("throughput") else ""),
        "",
        "Relative accuracy (%, violated video more surprising than its twin; chance 50) with bootstrap 95% CI "
        "(a test: over its pairs; a suite's **all** row: over tests, then pairs within tests), the video's "
        "surprise being the mean (avg) or max of its windows or the mean of the windows that "
        f"contain the onset (onset), at the pre-declared context {fixed} and at each test's best context (selected "
        "on these data); "
        f"AUROC and absolute accuracy (threshold: the {summary['threshold_quantile']:.0%} quantile of the other "
        "pairs' plausible videos; chance 50) at the pre-declared context; pre-onset gap = mean |difference| of the "
        "windows that end before the onset, relative to the mean surprise (must be 0).",
        "",
        "| suite | test | pairs | rel avg | CI | rel max | CI | rel onset | CI | best C avg | rel avg @best "
        "| AUROC avg | abs avg | pre-onset gap |",
        "|---|---|---:|---:|---|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    rows = [dict(r, test=r.get("test", "**all**")) for r in summary["tests"]] + [
        dict(r, test="**all**") for r in summary["suites"]
    ]
    notes: list[str] = []
    for r in rows:
        fa, fm, fo, pre = r["fixed"]["avg"], r["fixed"]["max"], r["fixed"]["onset"], r["pre_onset"]
        gap = "-" if pre["relative"] is None else f"{100 * pre['relative']:.2f}%"
        where = f"{r['suite']} {r['test']}"
        lines.append(
            f"| {r['suite']} | {r['test']} | {r['pairs']} | {_pct(fa['relative'])} | {_ci_cell(fa, notes, where)} "
            f"| {_pct(fm['relative'])} | {_ci_cell(fm, notes, where + ' (max)')} | {_pct(fo['relative'])} "
            f"| {_ci_cell(fo, notes, where + ' (onset)')} | {r['best_context']['avg']} "
            f"| {_pct(r['best']['avg']['relative'])} | {_pct2(fa['auroc'])} | {_pct(fa['absolute'])} | {gap} |"
        )
    lines += _resampling_lines(rows, notes)
    lines += left_out_lines(summary.get("left_out"))
    lines += motion_lines(summary.get("motion_baseline"))
    lines += reference_lines(summary, summary.get("reference"))
    return "\n".join(lines) + "\n"


def _num(x, digits: int = 1) -> str:
    return "-" if x is None or x != x else f"{x:.{digits}f}"


def reference_lines(summary: dict, ref: dict | None) -> list[str]:
    """Both protocols side by side, per test and per suite (reference.py): voebench's relative accuracy (ties one
    half, invisible comparisons left out) and the reference's (strict ties, every comparison), at the pre-declared
    context, and the reference's figure value (best of the context lengths and Filtered, chosen on these data)."""
    if not ref or not ref["tests"]:
        return []
    fixed = ref["fixed_context"]
    ours = {(t["suite"], t["test"]): t for t in summary["tests"]}
    ours_suite = {s["suite"]: s for s in summary["suites"]}
    out = [
        "",
        "Both protocols (%; reference = facebookresearch/jepa-intuitive-physics's `compute_metrics`: a tie counts "
        f"wrong, every comparison scored; `reference/<suite>/{reference.CSV_NAME}` holds its rows). voebench = "
        f"this report's protocol (ties one half, comparisons it cannot see left out). C={fixed} is pre-declared; "
        "*figure* is the reference figures' number, the best of the context lengths and the Filtered row (selected "
        "on these data, optimistic). Absolute accuracy (max) is undefined by the reference below 10 pairs (-).",
        "",
        f"| suite | test | pairs | voebench rel avg C={fixed} | reference rel avg C={fixed} | reference figure [row] "
        "| Filtered | AUPRC avg | AUROC avg | abs (max) | best abs (max, oracle) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in ref["tests"]:
        at = next(r for r in t["rows"] if r["row"] == fixed)
        filt = next(r for r in t["rows"] if r["row"] == reference.FILTERED)
        mine = ours.get((t["suite"], t["test"]))
        out.append(
            f"| {t['suite']} | {t['test']} | {t['pairs']} | {_pct(mine['fixed']['avg']['relative']) if mine else '-'} "
            f"| {_num(at[reference.KEY_METRIC])} | {_num(t['figure']['value'])} [{t['figure']['row']}] "
            f"| {_num(filt[reference.KEY_METRIC])} | {_num(at['AUPRC (avg)'], 2)} | {_num(at['AUROC (avg)'], 2)} "
            f"| {_num(at['Absolute Accuracy (max)'])} | {_num(at['Best Absolute Accuracy (max)'])} |"
        )
    out += [
        "",
        "| suite | voebench rel avg, pooled [95% CI] | reference rel avg pooled, strict [95% CI] "
        f"| reference mean over tests C={fixed} | reference Filtered | reference figure (mean of per-test best) |",
        "|---|---|---|---:|---:|---:|",
    ]
    for s in ref["suites"]:
        mine = ours_suite.get(s["suite"])
        lo, hi = s["pooled_strict_fixed_ci"]
        ci = "-" if lo is None or hi is None else f"[{lo:.0f}, {hi:.0f}]"
        mine_txt = (
            f"{_pct(mine['fixed']['avg']['relative'])} {_ci(mine['fixed']['avg']['relative_ci'])}" if mine else "-"
        )
        out.append(
            f"| {s['suite']} | {mine_txt} | {_num(s['pooled_strict_fixed'])} {ci} | {_num(s['mean_at_fixed'])} "
            f"| {_num(s['filtered'])} | {_num(s['figure'])} |"
        )
    return out


def motion_baseline(records: list[dict], context: int) -> dict:
    """Per test and per suite: the model's and the motion-energy baseline's relative accuracy (avg, `context`) on
    the scored comparisons, and how often their verdicts agree (motion.py)."""
    kept, _left = visibility.split(metrics.comparisons(records))
    by_test: dict[tuple[str, str], list] = {}
    by_suite: dict[tuple[str, str], list] = {}
    for p, v in kept:
        by_test.setdefault((p["suite"], p["test"]), []).append((p, v))
        by_suite.setdefault((p["suite"], "**all**"), []).append((p, v))
    return {
        "context": context,
        "aggregate": "avg",
        "tests": motion.per_test(by_test, context) + motion.per_test(by_suite, context),
    }


def motion_lines(base: dict | None) -> list[str]:
    """One line per test: model vs motion-energy relative accuracy and their agreement."""
    if not base or not base["tests"]:
        return []
    out = [
        "",
        f"Motion-energy baseline (no model: the frame-difference energy of the frames to predict; avg, C="
        f"{base['context']}, the same comparisons). A model whose verdicts mostly agree with it may be measuring "
        "motion, not expectation:",
        "",
        "| suite | test | comparisons | model rel avg | motion rel avg | same verdict |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in base["tests"]:
        out.append(
            f"| {r['suite']} | {r['test']} | {r['comparisons']} | {_pct(r['model'])} | {_pct(r['motion'])} "
            f"| {_pct(r['agreement'])} |"
        )
    return out


def left_out_lines(left: dict | None) -> list[str]:
    """The comparisons left out because their violation cannot appear in the scored frames (visibility.py)."""
    if not left:
        return []
    out = []
    flagged = left.get("scored_but_flagged") or []
    if flagged:
        out += [
            "",
            f"Flagged, scored: {len(flagged)} comparison(s) whose edit falls between sampled frames but whose sampled "
            "frames differ afterwards (the edit's effect persists): the model sees the result, not the edit.",
        ]
    if not left["comparisons"]:
        return out
    out += [
        "",
        f"Left out: {left['comparisons']} comparison(s) of {left['pairs']} pair(s) whose violation cannot appear "
        "in the frames the model sees (not scored, not counted as ties; results.json `left_out.items` lists each):",
    ]
    for row in left["by_test"]:
        reasons = ", ".join(f"{row[r]} {r}" for r in visibility.REASONS if row.get(r))
        out.append(f"- {row['suite']} {row['test']}: {reasons}")
    return out


def _pct2(x) -> str:
    return "-" if x is None or x != x else f"{x:.2f}"


def plot_curves(records: list[dict], context: int, path: str, max_panels: int = 16) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    pairs = metrics.complete_pairs(records)
    first: dict[tuple[str, str], tuple[dict, dict]] = {}
    for _pid, (p, v) in pairs.items():
        first.setdefault((p["suite"], p["test"]), (p, v))
    if not first:
        return None
    keys = sorted(first)[:max_panels]
    cols = min(4, len(keys))
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.6 * rows), squeeze=False)
    for ax, key in zip(axes.flat, keys):
        p, v = first[key]
        for rec, color in ((p, "tab:blue"), (v, "tab:red")):
            ax.plot(rec["window_end"], rec["surprise"][str(context)], color=color, lw=1.4, label=rec["condition"])
        win = v.get("violation_window")
        if win:
            ax.axvspan(win[0], win[1] + 1, color="tab:red", alpha=0.15, lw=0)
            ax.axvline(win[0], color="tab:red", ls=":", lw=1)
        ax.set_xlim(0, max(p.get("n_frames") or 0, p["window_end"][-1]))
        ax.set_title(f"{key[1]}" + (" (violation hidden)" if v.get("hidden") else ""), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("last frame of the window", fontsize=7)
        ax.legend(fontsize=6, loc="upper left")
    for ax in list(axes.flat)[len(keys) :]:
        ax.axis("off")
    fig.suptitle(f"surprise per window, context {context} (shaded: violation window)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(run_dir: str, n_boot: int = metrics.N_BOOT, quantile: float = 0.9) -> dict:
    info: dict = {}
    rp = os.path.join(run_dir, RUN)
    if os.path.isfile(rp):
        with open(rp, encoding="utf-8") as fh:
            info = json.load(fh)
    proto = info.get("protocol", {})
    records = load_curves(run_dir)
    contexts = proto.get("context_lengths") or sorted(int(c) for c in records[0]["surprise"])
    fixed = proto.get("fixed_context") or contexts[len(contexts) // 2]
    summary = metrics.summarize(records, contexts, fixed, n_boot=n_boot, quantile=quantile)
    summary["motion_baseline"] = motion_baseline(records, fixed)
    summary["reference"] = reference.summarize(records, contexts, fixed, n_boot=n_boot)
    reference.write_csvs(run_dir, summary["reference"])
    summary["run"] = {k: info.get(k) for k in ("model", "protocol", "throughput", "dataset", "model_spec")}
    with open(os.path.join(run_dir, RESULTS), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=1)
    with open(os.path.join(run_dir, REPORT), "w", encoding="utf-8") as fh:
        fh.write(markdown(summary, info))
    plot_curves(records, fixed, os.path.join(run_dir, PLOT))
    return summary
