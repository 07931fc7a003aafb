"""The NEWTON metrics of a run (paper Section 5.1 and its bias and prompt analyses), from samples.jsonl records
that carry `meta.newton` (question sets and the rendered `newton` suite).

- Accuracy per track, stream (likert, boolean, multiple_choice, scenario) and attribute (Track 3: scenario):
  share of answers that pick the correct option; invalid answers count as wrong; repeats are pooled.
- Agreement (Track 1): the paper weights accuracy by how far the annotators agreed, so questions the annotators
  were sure of count more and the maximum is the mean agreement, not 100%. We weight per question:
  mean over answers of correct x agreement.
- Polarity bias: accuracy on positively phrased questions ("is", "more", "the most") against negatively phrased
  ones ("is not", "less", "the least"), with Welch's t-test (scipy) on the per-answer correctness.
- Position bias: accuracy by the position of the correct option; Welch's t-test between the best and the worst
  position (as the paper compares highest and lowest scoring positions).
- Prompt variants: accuracy of each variant and of their ensemble, a majority vote over the variants' parsed
  answers per question and repeat (no strict majority = wrong).
The per-attribute, polarity and position tables use the primary variant (the first the set was made with, v1 by
default), so adding variants does not change them.

Intervals (evaluate/uncertainty.py, percentile bootstrap, fixed seed) on the stream, attribute and polarity
accuracies: trials (videos) resampled, then questions within trials, each question with all its repeats; a text
question set, where every trial is one question, resamples questions. Questions without a polarity (Track 3
scenarios) are resampled like the others, never left out.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np

from voebench.evaluate import uncertainty

INVALID = "invalid"


def _meta(r: dict) -> dict:
    """A record's NEWTON metadata; empty for a record of another kind of question."""
    return (r.get("meta") or {}).get("newton") or {}


def _acc(rs: list[dict]) -> float | None:
    return float(np.mean([bool(r["correct"]) for r in rs])) if rs else None


def _question(r: dict) -> str:
    return str(r.get("sample_id") or _meta(r).get("question_id"))


def _trial(r: dict) -> str:
    return str(r.get("video_id") or _meta(r).get("question_id"))


def accuracy_interval(rs: list[dict]) -> uncertainty.Interval:
    """Accuracy of the records (invalid = wrong) with its interval: trials, then questions within trials (each
    with its repeats); questions alone where every trial holds one question (a text question set)."""
    vals = [(float(bool(r["correct"])), 1.0) for r in rs]
    by_trial: dict[str, set] = defaultdict(set)
    for r in rs:
        by_trial[_trial(r)].add(_question(r))
    if all(len(q) == 1 for q in by_trial.values()):
        return uncertainty.nested([(_question(r),) for r in rs], vals, ["questions"])
    return uncertainty.nested([(_trial(r), _question(r)) for r in rs], vals, ["trials", "questions"])


def welch(a: list[float], b: list[float]) -> tuple[float | None, float | None]:
    """(t, p) of Welch's two-sample t-test; None where it is undefined (a group under 2, or no variance)."""
    if len(a) < 2 or len(b) < 2:
        return None, None
    if np.var(a) == 0 and np.var(b) == 0:  # no spread: the groups are equal (no test) or perfectly apart (p = 0)
        return None, (None if np.mean(a) == np.mean(b) else 0.0)
    import warnings

    from scipy import stats  # only a run with NEWTON questions needs scipy

    with warnings.catch_warnings():  # near-constant groups: scipy warns of precision loss; the result stands
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.ttest_ind(np.asarray(a, float), np.asarray(b, float), equal_var=False)
    t, p = float(res.statistic), float(res.pvalue)
    return (None if math.isnan(t) else t), (None if math.isnan(p) else p)


def summarize(records: list[dict]) -> dict | None:
    recs = [r for r in records if _meta(r) and r.get("correct") is not None]
    if not recs:
        return None
    variants = sorted({_meta(r)["variant"] for r in recs})
    primary = variants[0]
    main = [r for r in recs if _meta(r)["variant"] == primary]

    by_attr: dict[tuple, list[dict]] = defaultdict(list)
    by_stream: dict[tuple, list[dict]] = defaultdict(list)
    for r in main:
        m = _meta(r)
        by_attr[(m["track"], m["stream"], m["attribute"])].append(r)
        by_stream[(m["track"], m["stream"])].append(r)

    def row(key_names, key, rs):
        out = dict(zip(key_names, key))
        iv = accuracy_interval(rs)
        out.update({"n": len(rs), "acc": _acc(rs), "ci95": iv.ci, "interval": iv.as_dict()})
        out["invalid_rate"] = float(np.mean([not r["valid"] for r in rs]))
        out["chance"] = float(np.mean([1.0 / _meta(r)["n_options"] for r in rs]))
        if all(_meta(r).get("agreement") is not None for r in rs) and key[0] == 1:
            out["agreement"] = float(np.mean([bool(r["correct"]) * float(_meta(r)["agreement"]) for r in rs]))
            out["agreement_max"] = float(np.mean([float(_meta(r)["agreement"]) for r in rs]))
        return out

    attributes = [row(("track", "stream", "attribute"), k, v) for k, v in sorted(by_attr.items())]
    streams = [row(("track", "stream"), k, v) for k, v in sorted(by_stream.items())]

    polarity = []
    for (track, stream), rs in sorted(by_stream.items()):
        pos_r = [r for r in rs if _meta(r).get("polarity") == "positive"]
        neg_r = [r for r in rs if _meta(r).get("polarity") == "negative"]
        pos = [float(bool(r["correct"])) for r in pos_r]
        neg = [float(bool(r["correct"])) for r in neg_r]
        if not pos or not neg:
            continue
        t, p = welch(pos, neg)
        polarity.append(
            {
                "track": track,
                "stream": stream,
                "n_pos": len(pos),
                "n_neg": len(neg),
                "acc_pos": float(np.mean(pos)),
                "acc_neg": float(np.mean(neg)),
                "ci95_pos": accuracy_interval(pos_r).ci,
                "ci95_neg": accuracy_interval(neg_r).ci,
                "t": t,
                "p": p,
            }
        )

    position = []
    for (track, stream), rs in sorted(by_stream.items()):
        groups: dict[int, list[float]] = defaultdict(list)
        for r in rs:
            groups[int(_meta(r)["position"])].append(float(bool(r["correct"])))
        if len(groups) < 2:
            continue
        accs = {k: float(np.mean(v)) for k, v in sorted(groups.items())}
        best, worst = max(accs, key=lambda k: accs[k]), min(accs, key=lambda k: accs[k])
        t, p = welch(groups[best], groups[worst])
        position.append(
            {
                "track": track,
                "stream": stream,
                "acc_by_position": {str(k): v for k, v in accs.items()},
                "n_by_position": {str(k): len(v) for k, v in sorted(groups.items())},
                "best": best,
                "worst": worst,
                "t": t,
                "p": p,
            }
        )

    variant_rows = []
    by_var: dict[tuple, list[dict]] = defaultdict(list)
    for r in recs:
        m = _meta(r)
        by_var[(m["track"], m["stream"], m["variant"])].append(r)
    for (track, stream, v), rs in sorted(by_var.items()):
        variant_rows.append({"track": track, "stream": stream, "variant": v, "n": len(rs), "acc": _acc(rs)})
    if len(variants) > 1:
        votes: dict[tuple, list[dict]] = defaultdict(list)
        for r in recs:
            m = _meta(r)
            votes[(m["track"], m["stream"], m["question_id"], r["repeat"])].append(r)
        ens: dict[tuple, list[float]] = defaultdict(list)
        for (track, stream, _q, _rep), rs in votes.items():
            answers = Counter(r["parsed"] for r in rs if r["parsed"] != INVALID)
            top = answers.most_common(1)
            truth = rs[0]["truth"]
            won = bool(top) and top[0][1] * 2 > len(rs) and top[0][0] == truth
            ens[(track, stream)].append(float(won))
        for (track, stream), v in sorted(ens.items()):
            variant_rows.append(
                {"track": track, "stream": stream, "variant": "ensemble", "n": len(v), "acc": float(np.mean(v))}
            )
    return {
        "primary_variant": primary,
        "variants": variants,
        "attributes": attributes,
        "streams": streams,
        "polarity": polarity,
        "position": position,
        "prompt_variants": variant_rows,
    }


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _num(x, fmt: str = "{:.3g}") -> str:
    return "–" if x is None else fmt.format(x)


def _ci(ci) -> str:
    lo, hi = (ci or [None, None])[:2]
    return "–" if lo is None or hi is None else f"{_pct(lo)}–{_pct(hi)}"


def _ci_cell(r: dict, notes: list[str], where: str) -> str:
    text = _ci(r.get("ci95"))
    note = (r.get("interval") or {}).get("note")
    if note:
        notes.append(f"{where}: {note}")
        text += f" [{len(notes)}]"
    return text


def markdown(s: dict) -> str:
    notes: list[str] = []
    lines = ["", f"## NEWTON metrics (primary prompt variant `{s['primary_variant']}`)", ""]
    lines += [
        "| track | stream | n | acc | 95% CI | agreement (max) | invalid | chance |",
        "|---|---|---:|---:|---|---:|---:|---:|",
    ]
    for r in s["streams"]:
        agr = f"{_pct(r['agreement'])} ({_pct(r['agreement_max'])})" if "agreement" in r else "–"
        where = f"track {r['track']} {r['stream']}"
        lines.append(
            f"| {r['track']} | {r['stream']} | {r['n']} | {_pct(r['acc'])} | {_ci_cell(r, notes, where)} | "
            f"{agr} | {_pct(r['invalid_rate'])} | {_pct(r['chance'])} |"
        )
    lines += [
        "",
        "| track | stream | attribute | n | acc | 95% CI | agreement |",
        "|---|---|---|---:|---:|---|---:|",
    ]
    for r in s["attributes"]:
        where = f"track {r['track']} {r['stream']} {r['attribute']}"
        lines.append(
            f"| {r['track']} | {r['stream']} | {r['attribute']} | {r['n']} | {_pct(r['acc'])} | "
            f"{_ci_cell(r, notes, where)} | {_pct(r.get('agreement'))} |"
        )
    seen: dict[str, list[str]] = {}
    for r in s["streams"]:
        iv = r.get("interval")
        if iv:
            counts = ", ".join(f"{v} {k}" for k, v in iv["clusters"].items())
            seen.setdefault(iv["resampled"], []).append(f"track {r['track']} {r['stream']} ({counts})")
    if seen:
        lines += ["", "95% CI: percentile bootstrap, fixed seed, resampling clusters:"]
        lines += [f"- {what}: " + "; ".join(where) for what, where in seen.items()]
    lines += [f"- [{i}] {n}" for i, n in enumerate(notes, 1)]
    if s["polarity"]:
        lines += ["", "Polarity bias (Welch's t-test):", ""]
        lines += ["| track | stream | acc positive | acc negative | t | p |", "|---|---|---:|---:|---:|---:|"]
        for r in s["polarity"]:
            lines.append(
                f"| {r['track']} | {r['stream']} | {_pct(r['acc_pos'])} (n={r['n_pos']}) | "
                f"{_pct(r['acc_neg'])} (n={r['n_neg']}) | {_num(r['t'])} | {_num(r['p'])} |"
            )
    if s["position"]:
        lines += ["", "Position bias (accuracy by the correct option's position; t-test best vs worst):", ""]
        lines += ["| track | stream | accuracy by position | t | p |", "|---|---|---|---:|---:|"]
        for r in s["position"]:
            accs = ", ".join(f"{k}: {_pct(v)}" for k, v in r["acc_by_position"].items())
            lines.append(f"| {r['track']} | {r['stream']} | {accs} | {_num(r['t'])} | {_num(r['p'])} |")
    if len(s["variants"]) > 1:
        lines += ["", "Prompt variants and their majority-vote ensemble:", ""]
        lines += ["| track | stream | variant | n | acc |", "|---|---|---|---:|---:|"]
        for r in s["prompt_variants"]:
            lines.append(f"| {r['track']} | {r['stream']} | {r['variant']} | {r['n']} | {_pct(r['acc'])} |")
    return "\n".join(lines) + "\n"
