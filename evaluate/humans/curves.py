"""Psychometric curves of a human panel (issue 24): per test, one curve pooled over the included participants and
one per participant, fitted by voebench.evaluate.psychometrics.fit.

A response is one scored answer (samples.jsonl: first showing of a video to an included participant) of a video
with a `violation_level`: the trial is the video's `pair_id` (all levels of one sweep trial share it), `noticed`
is the answer "not plausible" (yes/no: "no"; slider: a rating above the middle). Answers at the slider's middle and
invalid answers say neither and are left out (counted). Videos without a level (binary tests) make no curve.

- **Pooled**: every included participant's responses of the test together. Its fit's bootstrap resamples
  **trials** (each trial with all its levels and every participant's answers to them); participants are not
  resampled, so that interval is about this panel's pooled curve. Beside it, `crossed`: the threshold's 95%
  interval when **participants and trials** are both resampled (each draw a multiset of participants and one of
  trials, an answer weighted by both multiplicities; the curve refitted), the one to read for people in general:
  on a simulated panel whose thresholds differ (sd 0.05 around 0.3), the trials-only interval held the truth in 72
  of 100 runs, the crossed one in more (docs/humans.md, bench/humans_constant_stimuli.py).
- **Per participant**: that person's responses; the bootstrap resamples the trials they saw (`PARTICIPANT_BOOT`
  draws, no goodness-of-fit draws, to keep the report quick). A participant with fewer than `MIN_PER_LEVEL`
  answers at each of at least `MIN_LEVELS` levels is not fitted: a note says so and why.

The guess rate is the proportion noticed at level 0 (the plausible twins: a false-alarm rate), per fit.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from voebench.evaluate.psychometrics import Fit, Table, fit, level_table
from voebench.evaluate.psychometrics.responses import manifest_levels

#: Bootstrap draws of the pooled fit and its goodness-of-fit draws (psychometrics.fit's defaults).
POOLED_BOOT = 1000
POOLED_GOF = 200
#: Bootstrap draws of each participant's fit.
PARTICIPANT_BOOT = 200
#: A participant is fitted with at least this many answers at each of at least MIN_LEVELS levels.
MIN_PER_LEVEL = 3
MIN_LEVELS = 3
#: More than this share of crossed draws without a threshold (flat, no fit): the crossed interval is unbounded.
FLAT_DRAWS_MAX = 0.05
POOLED_RESAMPLED = (
    "trials (each with all its levels and every participant's answers to it); participants are not resampled"
)


def noticed(record: dict) -> bool | None:
    """True: the answer calls the video not plausible; False: plausible; None: neither (middle, invalid)."""
    parsed = record.get("parsed") if record.get("valid") else None
    return {"no": True, "yes": False}.get(str(parsed)) if parsed is not None else None


def _too_few(responses: list[tuple]) -> str | None:
    per_level: dict[float, int] = defaultdict(int)
    for _trial, level, _n in responses:
        per_level[level] += 1
    enough = sum(1 for n in per_level.values() if n >= MIN_PER_LEVEL)
    if enough >= MIN_LEVELS:
        return None
    return (
        f"too few answers to fit: {len(responses)} over {len(per_level)} level(s), {enough} level(s) with "
        f"{MIN_PER_LEVEL}+ answers (a curve needs {MIN_PER_LEVEL}+ answers at each of {MIN_LEVELS}+ levels)"
    )


def crossed(responses: list[tuple], n_boot: int, seed: int = 0) -> dict:
    """The pooled threshold's 95% percentile interval with participants and trials both resampled.
    `responses`: (participant, trial, level, noticed). Each draw refits the curve (psychometrics.fit, no inner
    bootstrap) to the counts weighted by the drawn multiplicities; a draw whose threshold (F = 0.5, the fit's
    default criterion) lies below (above) the levels tested counts as -inf (+inf); a flat draw has none. lo/hi
    None: not bounded on that side by the levels tested."""
    people = sorted({r[0] for r in responses})
    trials = sorted({r[1] for r in responses}, key=str)
    levels = np.array(sorted({r[2] for r in responses}), dtype=float)
    out: dict = {
        "lo": None,
        "hi": None,
        "draws": 0,
        "resampled": f"participants ({len(people)}) x trials ({len(trials)})",
        "note": None,
    }
    if n_boot == 0 or len(people) < 2 or len(trials) < 2 or len(levels) < 2:
        out["note"] = "needs 2+ participants, 2+ trials and 2+ levels"
        return out
    pi = {p: i for i, p in enumerate(people)}
    ti = {t: i for i, t in enumerate(trials)}
    li = {float(x): i for i, x in enumerate(levels)}
    N = np.zeros((len(people), len(trials), len(levels)))
    K = np.zeros_like(N)
    for p, t, x, hit in responses:
        N[pi[p], ti[t], li[float(x)]] += 1
        K[pi[p], ti[t], li[float(x)]] += hit
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        wp = rng.multinomial(len(people), np.full(len(people), 1 / len(people))).astype(float)
        wt = rng.multinomial(len(trials), np.full(len(trials), 1 / len(trials))).astype(float)
        nb = np.einsum("p,t,ptl->tl", wp, wt, N)
        kb = np.einsum("p,t,ptl->tl", wp, wt, K)
        f = fit(Table(levels, trials, nb, kb), n_boot=0, n_gof=0)
        if f.location is None or f.flat:
            draws.append(math.nan)
        else:
            v = f.location
            draws.append(-math.inf if v < levels[0] else math.inf if v > levels[-1] else v)
    arr = np.array(draws)
    out["draws"] = len(arr)
    nan = np.isnan(arr)
    if nan.mean() > FLAT_DRAWS_MAX:
        out["note"] = f"{int(nan.sum())} of {len(arr)} draws flat or unfitted: interval unbounded"
        return out
    lo, hi = (float(v) for v in np.quantile(arr[~nan], [0.025, 0.975], method="inverted_cdf"))
    out["lo"] = None if lo == -math.inf else (float(levels[-1]) if lo == math.inf else lo)
    out["hi"] = None if hi == math.inf else (float(levels[0]) if hi == -math.inf else hi)
    if nan.any():
        out["note"] = f"{int(nan.sum())} of {len(arr)} draws flat or unfitted (left out)"
    return out


def _with_level(r: dict, from_set: dict[str, tuple[float | None, str]]) -> dict:
    """The record with the set's level and unit where it has none."""
    level, unit = from_set.get(str(r.get("video_id")), (None, ""))
    out = dict(r)
    if out.get("violation_level") is None and level is not None:
        out["violation_level"] = level
    if not out.get("violation_unit") and unit:
        out["violation_unit"] = unit
    return out


def _summary(f: Fit) -> dict:
    """The fit as results.json keeps it (psychometrics.Fit.as_dict)."""
    return f.as_dict()


def curves(
    records: list[dict],
    pooled_boot: int | None = None,
    participant_boot: int | None = None,
    gof: int | None = None,
    seed: int = 0,
    set_root: str | None = None,
) -> dict | None:
    """The psychometric section of the humans results, or None when no scored answer has a violation level.
    `set_root` (run.json's `dataset`): where the records lack a level or a unit (studies made before the study
    kept them, or an export that does not copy the unit), they are read from the set's manifest when it is there."""
    graded = [r for r in records if r.get("violation_level") is not None]
    if set_root and (not graded or any(not r.get("violation_unit") for r in graded)):
        from_set, _unreadable = manifest_levels(set_root)
        if from_set:
            records = [_with_level(r, from_set) for r in records]
            graded = [r for r in records if r.get("violation_level") is not None]
    if not graded:
        return None
    pooled_boot = POOLED_BOOT if pooled_boot is None else pooled_boot
    participant_boot = PARTICIPANT_BOOT if participant_boot is None else participant_boot
    gof = POOLED_GOF if gof is None else gof
    by_test: dict[tuple, list[dict]] = defaultdict(list)
    for r in graded:
        by_test[(r["suite"], r["test"])].append(r)
    binary = sorted({(r["suite"], r["test"]) for r in records} - set(by_test))
    tests = []
    for (suite, test), rs in sorted(by_test.items()):
        rows = [(r.get("pair_id") or r["video_id"], float(r["violation_level"]), noticed(r)) for r in rs]
        responses = [x for x in rows if x[2] is not None]
        pooled = fit(responses, n_boot=pooled_boot, n_gof=gof, seed=seed)
        both = [(str(r.get("participant")), *x) for r, x in zip(rs, rows) if x[2] is not None]
        people: dict[str, list[tuple]] = defaultdict(list)
        for r, x in zip(rs, rows):
            if x[2] is not None:
                people[str(r.get("participant"))].append(x)
        per: list[dict] = []
        for who in sorted(people):
            mine = people[who]
            why = _too_few(mine)
            if why:
                per.append({"participant": who, "n": len(mine), "fit": None, "note": why})
                continue
            f = fit(mine, n_boot=participant_boot, n_gof=0, seed=seed)
            per.append({"participant": who, "n": len(mine), "fit": _summary(f), "note": "; ".join(f.notes) or None})
        thresholds = [p["fit"]["threshold"]["point"] for p in per if p["fit"]]
        thresholds = [t for t in thresholds if t is not None]
        spread = (
            {
                "n": len(thresholds),
                "median": float(np.median(thresholds)),
                "q25": float(np.quantile(thresholds, 0.25)),
                "q75": float(np.quantile(thresholds, 0.75)),
            }
            if thresholds
            else None
        )
        units = sorted({str(r.get("violation_unit")) for r in rs if r.get("violation_unit")})
        tests.append(
            {
                "suite": suite,
                "test": test,
                "unit": units[0] if len(units) == 1 else None,
                "answers": len(rs),
                "left_out": len(rs) - len(responses),
                "pooled": _summary(pooled),
                "pooled_resampled": POOLED_RESAMPLED,
                "crossed": crossed(both, pooled_boot, seed),
                "levels": [row.as_dict() for row in level_table(responses, pooled)] if responses else [],
                "participants": per,
                "participant_thresholds": spread,
            }
        )
    return {
        "tests": tests,
        "binary_tests": [f"{s}/{t}" for s, t in binary],
        "rule": f"Participants fitted with {MIN_PER_LEVEL}+ answers at each of {MIN_LEVELS}+ levels; "
        f"{participant_boot} bootstrap draws over their trials; pooled: {pooled_boot} draws over trials",
    }


def _est(e: dict | None) -> str:
    if not e:
        return "–"
    p = "–" if e["point"] is None else f"{e['point']:.3g}"
    lo = "<" if e["lo"] is None else f"{e['lo']:.3g}"
    hi = ">" if e["hi"] is None else f"{e['hi']:.3g}"
    return f"{p} [{lo}, {hi}]"


def _num(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def markdown(c: dict | None) -> str:
    """The report's section: per test the pooled fit, the proportion noticed per level, and one row per
    participant (their fit, or the note why there is none)."""
    if not c:
        return ""
    lines = ["", "### Psychometric curves (constant stimuli)", ""]
    lines.append(
        "Threshold: the level where the curve is halfway between the guess rate (noticed at level 0) and its "
        "ceiling, in the test's unit, with its 95% bootstrap interval ([<, x]: not bounded below by the levels "
        f"tested; [x, >]: not bounded above). {c['rule']}."
    )
    if c["binary_tests"]:
        lines += ["", "No violation levels (binary tests, no curve): " + ", ".join(c["binary_tests"]) + "."]
    for t in c["tests"]:
        f = t["pooled"]
        unit = f" ({t['unit']})" if t["unit"] else ""
        lines += [
            "",
            f"#### {t['suite']} / {t['test']}{unit}",
            "",
            f"- pooled over {len(t['participants'])} participants, {f['n_responses']} answers, {f['n_trials']} trials: "
            f"threshold {_est(f['threshold'])}, slope {_est(f['slope'])}, x75 {_est(f['x75'])}, guess "
            f"{_num(f['guess'])}, lapse {_num(f['lapse'])}, goodness of fit p {_num(f['gof_p'])}; resampled: "
            f"{t['pooled_resampled']}",
        ]
        cr = t.get("crossed") or {}
        if cr.get("draws"):
            ci = _est({"point": None, "lo": cr["lo"], "hi": cr["hi"]}).split(" ", 1)[1]
            lines.append(
                f"- pooled threshold's 95% interval with {cr['resampled']} resampled (crossed): {ci} (for people "
                "in general; the interval above holds this panel fixed)" + (f"; {cr['note']}" if cr.get("note") else "")
            )
        elif cr.get("note"):
            lines.append(f"- crossed interval (participants x trials): none ({cr['note']})")
        if t["left_out"]:
            lines.append(f"- {t['left_out']} answer(s) neither yes nor no (slider middle, invalid): left out")
        lines += [f"- note: {n}" for n in f["notes"]]
        sp = t["participant_thresholds"]
        if sp:
            lines.append(
                f"- participants' thresholds: median {sp['median']:.3g}, quartiles {sp['q25']:.3g}–{sp['q75']:.3g} "
                f"({sp['n']} with a threshold)"
            )
        if t["levels"]:
            lines += ["", "| level | trials | answers | noticed | % noticed | 95% CI | fitted % |"]
            lines.append("|---:|---:|---:|---:|---:|---|---:|")
            for r in t["levels"]:
                p = "–" if r["proportion"] is None else f"{100 * r['proportion']:.1f}"
                ci = "–" if r["lo"] is None or r["hi"] is None else f"{100 * r['lo']:.1f}–{100 * r['hi']:.1f}"
                fitted = "–" if r["fitted"] is None else f"{100 * r['fitted']:.1f}"
                lines.append(f"| {r['level']:g} | {r['trials']} | {r['n']} | {r['noticed']} | {p} | {ci} | {fitted} |")
        lines += ["", "| participant | answers | threshold [95% CI] | slope | guess | lapse | note |"]
        lines.append("|---|---:|---|---:|---:|---:|---|")
        for p in t["participants"]:
            pf = p["fit"]
            if pf is None:
                lines.append(f"| {p['participant']} | {p['n']} | – | – | – | – | {p['note']} |")
                continue
            slope = "–" if pf["slope"]["point"] is None else f"{pf['slope']['point']:.3g}"
            lines.append(
                f"| {p['participant']} | {p['n']} | {_est(pf['threshold'])} | {slope} | {_num(pf['guess'])} | "
                f"{_num(pf['lapse'])} | {p['note'] or ''} |"
            )
    return "\n".join(lines) + "\n"
