"""Scores of a run: per test accuracy on positive, negative and all samples, invalid rate, bootstrap 95% intervals,
chance level; a Markdown table and a bar chart like GRASP's Figure 3.

Definitions follow GRASP's compute_accuracy.py: positive accuracy = share of "yes" on positive samples (true
statements; plausible / expected videos), negative accuracy = share of "no" on negative samples, combined =
correct / all. Invalid answers count as wrong. Open questions: accuracy over all samples, chance = 1 / number of
classes (binary: 0.5). Repeats are pooled for the point estimates. Intervals come from evaluate/uncertainty.py
(percentile bootstrap, 2000 draws, fixed seed): per test, the *trials* (a Level 2 / AVoE pair, whose twins share
one scene, or a video with all the questions asked about it) are resampled, then the samples (each with all its
repeats) within them and within their polarity (a sample without polarity is its own stratum, never left out); a
human panel's test resamples participants and videos (crossed), since one person's answers are not independent;
a suite's mean over tests resamples tests, then trials, then samples. Every row says what was resampled and how
many clusters, and a zero-width or missing interval says why. Per-repeat accuracies are listed too (the paper
averages three seeds).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

import numpy as np

from voebench.errors import UsageError
from voebench.evaluate import careful, uncertainty
from voebench.evaluate.parsing import OPEN_CHOICES, open_family
from voebench.evaluate.run import RUN, SAMPLES

N_BOOT = uncertainty.N_BOOT


def load_records(run_dir: str) -> tuple[list[dict], dict]:
    path = os.path.join(run_dir, SAMPLES)
    if not os.path.isfile(path):
        raise UsageError(f"{run_dir} is not a finished run: no {SAMPLES} (run voebench evaluate first)")
    recs = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                recs.append(json.loads(line))
    info = {}
    rp = os.path.join(run_dir, RUN)
    if os.path.isfile(rp):
        with open(rp, encoding="utf-8") as fh:
            info = json.load(fh)
    return recs, info


def _chance(kind: str, recs: list[dict]) -> float:
    if kind in ("binary", "plausibility"):
        return 0.5
    if kind == "choice":  # NEWTON-style options: 1 / number offered
        return float(np.mean([1.0 / len(r["choices"]["labels"]) for r in recs]))
    choices = recs[0].get("choices") or OPEN_CHOICES.get(open_family(recs[0]["test"]) or "", {})
    return 1.0 / len(choices) if choices else float("nan")


def _values(recs: list[dict]) -> list[tuple[float, float]]:
    """(correct, 1) per record: the pooled ratio is the accuracy (invalid answers count as wrong)."""
    return [(float(bool(r["correct"])), 1.0) for r in recs]


def _stratum(r: dict) -> str | None:
    return r.get("polarity") if r["kind"] != "open" else None


def _trial(r: dict) -> str:
    """The cluster a sample belongs to within its test: its pair (Level 2 / AVoE twins share one scene), else its
    video (Level 1's positive and negative statements, NEWTON's questions about one clip), else the sample."""
    return str(r.get("pair_id") or r.get("video_id") or r["sample_id"])


def test_interval(recs: list[dict], n_boot: int = N_BOOT, seed: int = 0) -> uncertainty.Interval:
    """The accuracy of one test's records: trials (a pair, or a video with all its questions) resampled, then
    samples (with their repeats) within polarity; a human panel's answers (records with a participant) resample
    participants and videos, crossed."""
    if recs and all(r.get("participant") is not None for r in recs):
        return uncertainty.crossed(
            [r["participant"] for r in recs],
            [r["sample_id"] for r in recs],
            _values(recs),
            names=("participants", "samples"),
            col_strata=[_stratum(r) for r in recs],
            n_boot=n_boot,
            seed=seed,
        )
    return uncertainty.nested(
        [(_trial(r), r["sample_id"]) for r in recs],
        _values(recs),
        ["trials", "samples"],
        strata=[_stratum(r) for r in recs],
        n_boot=n_boot,
        seed=seed,
    )


def suite_interval(recs: list[dict], n_boot: int = N_BOOT, seed: int = 0) -> uncertainty.Interval:
    """A suite's mean over tests of the per-test accuracy: tests resampled, then samples within tests (within
    polarity); a human panel: participants and samples crossed, samples within their test, the mean over tests."""
    if recs and all(r.get("participant") is not None for r in recs):
        return uncertainty.crossed(
            [r["participant"] for r in recs],
            [(r["test"], r["sample_id"]) for r in recs],
            _values(recs),
            names=("participants", "samples"),
            col_strata=[(r["test"], _stratum(r)) for r in recs],
            groups=[r["test"] for r in recs],
            n_boot=n_boot,
            seed=seed,
        )
    return uncertainty.nested(
        [(r["test"], _trial(r), r["sample_id"]) for r in recs],
        _values(recs),
        ["tests", "trials", "samples"],
        strata=[_stratum(r) for r in recs],
        mean_of_top=True,
        n_boot=n_boot,
        seed=seed,
    )


def summarize(records: list[dict], n_boot: int = N_BOOT, seed: int = 0) -> dict:
    scored = [r for r in records if r.get("correct") is not None]
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in scored:
        groups[(r["suite"], r["test"], r["kind"], r["strategy"])].append(r)
    rows = []
    for (suite, test, kind, strategy), recs in sorted(groups.items()):
        per_sample = {r["sample_id"] for r in recs}
        iv = test_interval(recs, n_boot, seed)
        ivs = {
            pol: test_interval([r for r in recs if r.get("polarity") == pol], n_boot, seed)
            for pol in ("positive", "negative")
            if kind != "open" and any(r.get("polarity") == pol for r in recs)
        }
        row = {
            "suite": suite,
            "test": test,
            "kind": kind,
            "strategy": strategy,
            "test_number": recs[0].get("test_number"),
            "n": len(recs),
            "n_samples": len(per_sample),
            "acc": iv.point,
            "ci95": iv.ci,
            "interval": iv.as_dict(),
            "invalid_rate": float(np.mean([not r["valid"] for r in recs])),
            "chance": _chance(kind, recs),
        }
        if kind != "open":
            pos = [r for r in recs if r["polarity"] == "positive"]
            neg = [r for r in recs if r["polarity"] == "negative"]
            row.update(
                {
                    "n_pos": len(pos),
                    "n_neg": len(neg),
                    "acc_pos": float(np.mean([r["correct"] for r in pos])) if pos else None,
                    "acc_neg": float(np.mean([r["correct"] for r in neg])) if neg else None,
                    "ci95_pos": ivs["positive"].ci if "positive" in ivs else None,
                    "ci95_neg": ivs["negative"].ci if "negative" in ivs else None,
                    "yes_rate": float(np.mean([r["parsed"] == "yes" for r in recs])),
                }
            )
        by_rep: dict[int, list[bool]] = defaultdict(list)
        for r in recs:
            by_rep[int(r["repeat"])].append(bool(r["correct"]))
        row["acc_per_repeat"] = [float(np.mean(by_rep[k])) for k in sorted(by_rep)]
        rows.append(row)
    # Figure 3 style: per suite and kind, mean of the per-test accuracies and their std over tests
    suites = []
    agg: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        agg[(row["suite"], row["kind"], row["strategy"])].append(row)
    for (suite, kind, strategy), rs in sorted(agg.items()):
        accs = [r["acc"] for r in rs]
        siv = suite_interval(
            [r for r in scored if (r["suite"], r["kind"], r["strategy"]) == (suite, kind, strategy)], n_boot, seed
        )
        suites.append(
            {
                "suite": suite,
                "kind": kind,
                "strategy": strategy,
                "n_tests": len(rs),
                "mean_acc": float(np.mean(accs)),
                "ci95": siv.ci,
                "interval": siv.as_dict(),
                "std_over_tests": float(np.std(accs)),
                "invalid_rate": float(np.mean([r["invalid_rate"] for r in rs])),
                "chance": float(np.mean([r["chance"] for r in rs])),
            }
        )
    return {
        "tests": rows,
        "suites": suites,
        "n_records": len(records),
        "n_scored": len(scored),
        "n_unscored": len(records) - len(scored),
        "bootstrap": {
            "n": n_boot,
            "seed": seed,
            "method": "percentile bootstrap over clusters (evaluate/uncertainty.py)",
            "per_test": (
                "trials (pairs or videos), then samples with their repeats within polarity "
                "(human panels: participants and samples, crossed)"
            ),
            "per_suite": (
                "tests, then trials, then samples within polarity (human panels: participants and samples, crossed)"
            ),
        },
    }


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def markdown(summary: dict, info: dict) -> str:
    lines = [f"# voebench results: {info.get('model', '?')}", ""]
    if info.get("kind") == "humans":  # a panel's "repeats" are the people who judged a video
        lines.append(f"protocol `{info.get('strategy')}`, up to {info.get('repeats')} answers per video")
    else:
        lines.append(
            f"strategy `{info.get('strategy')}`, repeats {info.get('repeats')} "
            f"(seeds {info.get('repeat_seeds')}), "
            f"frames: num_frames={info.get('num_frames')} fps={info.get('fps')}"
        )
    if summary.get("incomplete_pairs_dropped"):
        lines.append(
            f"\n**{summary['incomplete_pairs_dropped']} incomplete pair(s) dropped (--complete-pairs-only): "
            "only complete pairs are scored.**"
        )
    if summary["n_unscored"]:
        lines.append(
            f"\n**{summary['n_unscored']} of {summary['n_records']} sample-repeats have no answer yet "
            "(failed calls); run the same command again to fill them in.**"
        )
    lines += [
        "",
        "| suite | test | kind | n | acc pos | acc neg | acc all | 95% CI | invalid | chance |",
        "|---|---|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    notes: list[str] = []
    for r in summary["tests"]:
        lines.append(
            f"| {r['suite']} | {r['test']} | {r['kind']} | {r['n']} | {_pct(r.get('acc_pos'))} | "
            f"{_pct(r.get('acc_neg'))} | {_pct(r['acc'])} | {_ci(r, notes)} | "
            f"{_pct(r['invalid_rate'])} | {_pct(r['chance'])} |"
        )
    lines += [
        "",
        "| suite | kind | tests | mean acc | 95% CI | std over tests | invalid | chance |",
        "|---|---|---:|---:|---|---:|---:|---:|",
    ]
    for s in summary["suites"]:
        lines.append(
            f"| {s['suite']} | {s['kind']} | {s['n_tests']} | {_pct(s['mean_acc'])} | {_ci(s, notes)} | "
            f"{_pct(s['std_over_tests'])} | {_pct(s['invalid_rate'])} | {_pct(s['chance'])} |"
        )
    lines += _interval_lines(summary["tests"] + summary["suites"], notes)
    lines += _timing_lines(info.get("timing"))
    return "\n".join(lines) + "\n"


def _ci(row: dict, notes: list[str]) -> str:
    """'lo–hi' of a row's interval; a note (zero width, no interval, few clusters) gets a numbered mark."""
    iv = row.get("interval") or {}
    lo, hi = (row.get("ci95") or [None, None])[:2]
    text = "–" if lo is None or hi is None else f"{_pct(lo)}–{_pct(hi)}"
    if iv.get("note"):
        notes.append(f"{row['suite']} {row.get('test', '(mean over tests)')}: {iv['note']}")
        text += f" [{len(notes)}]"
    return text


def _interval_lines(rows: list[dict], notes: list[str]) -> list[str]:
    """What the intervals resampled (with cluster counts), and the numbered notes."""
    seen: dict[str, list[str]] = {}
    for r in rows:
        iv = r.get("interval")
        if iv:
            counts = ", ".join(f"{v} {k}" for k, v in iv["clusters"].items())
            seen.setdefault(iv["resampled"], []).append(f"{r.get('test', r['suite'] + ' mean')} ({counts})")
    if not seen:
        return []
    n_boot = next(r["interval"]["n_boot"] for r in rows if r.get("interval"))
    out = ["", f"95% CI: percentile bootstrap, {n_boot} draws, fixed seed, resampling clusters:"]
    for what, where in seen.items():
        out.append(f"- {what}: " + "; ".join(where))
    out += [f"- [{i}] {n}" for i, n in enumerate(notes, 1)]
    return out


def _timing_lines(t: dict | None) -> list[str]:
    """The run's stage split (evaluate.timing) as a table, and the GPU utilisation when it was sampled."""
    if not t or not t.get("stages"):
        return []
    wall = t.get("wall_seconds") or 0.0
    out = [
        "",
        f"Time: {wall:.1f} s wall for {t.get('model_calls', 0)} model calls ({t.get('calls_per_s')} calls/s), "
        f"{t.get('num_workers', 0)} decoding worker(s), {t.get('clips_decoded', 0)} clips decoded for "
        f"{t.get('frame_reads', 0)} reads. Background stages overlap, so shares can add up to more than 100%.",
        "",
        "| stage | seconds | count | share of wall |",
        "|---|---:|---:|---:|",
    ]
    for name, st in t["stages"].items():
        out.append(f"| {name} | {st['seconds']:.2f} | {st['count']} | {_pct(st.get('share_of_wall'))} |")
    gpu = t.get("gpu_utilisation")
    if gpu:
        g, w = gpu.get("during_generate") or {}, gpu.get("whole_run") or {}
        out += [
            "",
            f"GPU utilisation ({gpu.get('source')}, every {gpu.get('interval_s')} s): "
            f"{g.get('mean_percent')}% mean, {g.get('median_percent')}% median while generating "
            f"({g.get('samples')} samples); {w.get('mean_percent')}% mean over the whole run.",
        ]
    return out


def _yerr(rows: list[dict]) -> tuple[list[float], list[float]]:
    """Error bar lengths (percent) below and above each row's accuracy: 0 where there is no interval, never
    negative (matplotlib refuses negative yerr)."""
    lo, hi = [], []
    for r in rows:
        a, (c0, c1) = r["acc"], (r.get("ci95") or [None, None])[:2]
        ok = a is not None and c0 is not None and c1 is not None
        lo.append(max(0.0, 100 * (a - c0)) if ok else 0.0)
        hi.append(max(0.0, 100 * (c1 - a)) if ok else 0.0)
    return lo, hi


def plot(summary: dict, path: str, title: str = "") -> str | None:
    """Per-test accuracy bars (95% CI error bars), positive / negative accuracy as markers, a red chance line per
    bar, and a final mean bar per suite with the std over tests (as GRASP Figure 3)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    panels: dict[tuple, list[dict]] = defaultdict(list)
    for r in summary["tests"]:
        panels[(r["suite"], r["kind"])].append(r)
    if not panels:
        return None
    means = {(s["suite"], s["kind"]): s for s in summary["suites"]}
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(max(6, 0.55 * max(len(v) for v in panels.values()) + 3), 3.2 * len(panels)),
        squeeze=False,
    )
    for ax, ((suite, kind), rows) in zip(axes[:, 0], sorted(panels.items())):
        labels = [r["test"] for r in rows] + ["mean"]
        acc = [100 * r["acc"] for r in rows]
        lo, hi = _yerr(rows)
        m = means[(suite, kind)]
        x = np.arange(len(labels))
        ax.bar(x[:-1], acc, yerr=[lo, hi], color="#4C72B0", capsize=3, label="all (95% CI)")
        ax.bar(
            x[-1],
            100 * m["mean_acc"],
            yerr=100 * m["std_over_tests"],
            color="#55A868",
            capsize=3,
            label="mean over tests (± std)",
        )
        if kind != "open":
            ax.scatter(
                x[:-1],
                [100 * (r["acc_pos"] if r["acc_pos"] is not None else np.nan) for r in rows],
                marker="^",
                color="k",
                zorder=3,
                s=18,
                label="positive",
            )
            ax.scatter(
                x[:-1],
                [100 * (r["acc_neg"] if r["acc_neg"] is not None else np.nan) for r in rows],
                marker="v",
                color="grey",
                zorder=3,
                s=18,
                label="negative",
            )
        for xi, r in zip(x[:-1], rows):
            ax.hlines(100 * r["chance"], xi - 0.45, xi + 0.45, color="red", lw=1.5)
        ax.hlines(100 * m["chance"], x[-1] - 0.45, x[-1] + 0.45, color="red", lw=1.5, label="chance")
        ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=8)
        ax.set_ylim(0, 105)
        ax.set_ylabel("accuracy (%)")
        ax.set_title(f"{suite} · {kind}", fontsize=10)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_comparison(runs: list[tuple[str, dict]], path: str, suite: str | None = None) -> str | None:
    """GRASP Figure 3: one bar per run (model) = mean accuracy over the tests of `suite` (default: the Level 2
    suite if present), error bar = std over tests, red line = chance."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--compare needs matplotlib (pip install 'voebench[eval]')") from None

    names, means, stds, chance = [], [], [], []
    for name, summary in runs:
        rows = summary["suites"]
        want = suite or ("grasp-l2" if any(s["suite"] == "grasp-l2" for s in rows) else None)
        sel = [s for s in rows if (want is None or s["suite"] == want) and s["kind"] != "open"]
        if not sel:
            continue
        accs = [r["acc"] for r in summary["tests"] if r["suite"] in {s["suite"] for s in sel} and r["kind"] != "open"]
        names.append(name)
        means.append(100 * float(np.mean(accs)))
        stds.append(100 * float(np.std(accs)))
        chance.append(100 * float(np.mean([s["chance"] for s in sel])))
    if not names:
        return None
    fig, ax = plt.subplots(figsize=(max(4, 1.0 * len(names) + 2), 3.5))
    x = np.arange(len(names))
    ax.bar(x, means, yerr=stds, capsize=4, color="#4C72B0")
    ax.axhline(chance[0], color="red", lw=1.5)
    ax.set_xticks(x, names, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(f"mean accuracy over {suite or 'Level 2'} tests (± std over tests)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def whole_pair_records(records: list[dict], complete_pairs_only: bool, where: str) -> tuple[list[dict], int]:
    """(the records to score, how many incomplete pairs were dropped). A pair is complete when every condition
    it was rendered in has a video among the records; scoring half a pair skews the plausible/implausible
    balance, so incomplete pairs are refused (UsageError) unless `complete_pairs_only`."""
    from voebench.contract import pairs

    videos = {}
    for r in records:
        if r.get("pair_id"):
            videos[r["video_id"]] = {
                "id": r["video_id"],
                "pair_id": r["pair_id"],
                "condition": r.get("condition"),
                "pair_conditions": r.get("pair_conditions"),
                "sweep_rank": r.get("sweep_rank"),  # a swept trial's violated videos: implausible-<rank>
            }
    bad = pairs.incomplete_pairs(videos.values())
    if bad and not complete_pairs_only:
        raise UsageError(
            f"{where}: "
            + pairs.describe(bad, pairs.count_pairs(videos.values()))
            + "; pass --complete-pairs-only to score only the complete pairs"
        )
    return [r for r in records if r.get("pair_id") not in bad], len(bad)


def write_report(run_dir: str, n_boot: int = N_BOOT, complete_pairs_only: bool = False) -> dict:
    records, info = load_records(run_dir)
    records, dropped = whole_pair_records(records, complete_pairs_only, run_dir)
    summary = summarize(records, n_boot=n_boot)
    # pairs dropped here and (with evaluate --complete-pairs-only) before the run
    dropped += int(info.get("incomplete_pairs_dropped") or 0)
    results = {"run": info, **summary, "incomplete_pairs_dropped": dropped}
    extra_md = ""
    if info.get("kind") == "humans":  # a human panel (voebench humans export): agreement, exclusions, flags
        from voebench.evaluate.humans import stats as human_stats

        results["humans"] = human_stats.summarize(run_dir, records, info)
        extra_md = human_stats.markdown(results["humans"])

    careful_rows = careful.summarize(records, lambda recs: suite_interval(recs, n_boot))
    if careful_rows is not None:
        results["careful"] = careful_rows

    from voebench.evaluate.newton import metrics as newton_metrics

    newton = newton_metrics.summarize(records)  # None unless the run asked NEWTON-style questions
    if newton is not None:
        results["newton"] = newton
    tmp = os.path.join(run_dir, "results.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=2)
    os.replace(tmp, os.path.join(run_dir, "results.json"))
    with open(os.path.join(run_dir, "report.md"), "w", encoding="utf-8") as fh:
        fh.write(markdown({**summary, "incomplete_pairs_dropped": dropped}, info) + extra_md)
        fh.write(careful.markdown(careful_rows))
        if newton is not None:
            fh.write(newton_metrics.markdown(newton))
    fig = plot(
        summary, os.path.join(run_dir, "accuracy.png"), title=f"{info.get('model', '')} · {info.get('strategy', '')}"
    )
    results["figure"] = fig
    return results
