"""What only a panel of people has, beside the accuracy table `voebench report` computes for every run:

- exclusions: participants who failed attention checks (decided at export, listed here);
- Fleiss' kappa: agreement between participants on each video's yes/no beyond chance (videos with >= 2 answers;
  the variable-raters form: each video's agreement over its own number of raters);
- majority accuracy: share of videos whose majority answer is right (GRASP took the majority of three votes; a tie
  counts half);
- split-half reliability: participants split at random into two halves, per-video accuracy in each, Pearson r over
  the videos, Spearman-Brown corrected (2r / (1 + r)); mean over SPLITS seeded splits;
- test-retest: how often a participant gave the same answer to a repeated trial (and the rating correlation);
- pair accuracy (ratings): share of (participant, pair) where the surprising video was rated more surprising
  than the expected one (AVoE's relative measure);
- per-video accuracy, flagging videos most people get wrong (a stimulus to inspect), listed by how unlikely that
  is for a video as easy as the rest of its test;
- psychometric curves, where the videos carry violation levels (a constant-stimuli study of a sweep): per test,
  pooled and per participant (curves.py).
"""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict

import numpy as np

from voebench.evaluate import uncertainty
from voebench.evaluate.humans import curves

ANSWERS = "answers.jsonl"
SPLITS = 200
#: A video is flagged when fewer than this share of its answers are right (a majority misjudges it).
FLAG_BELOW = 0.5
#: ... and it has at least this many answers.
FLAG_MIN_ANSWERS = 2


def fleiss_kappa(counts: list[dict[str, int]]) -> float | None:
    """Fleiss' kappa of per-subject category counts; subjects with fewer than 2 ratings are left out. None when
    undefined (no such subject, or every rating in one category)."""
    rows = [c for c in counts if sum(c.values()) >= 2]
    if not rows:
        return None
    cats = sorted({k for c in rows for k in c})
    total = sum(sum(c.values()) for c in rows)
    p_j = np.array([sum(c.get(k, 0) for c in rows) / total for k in cats])
    p_e = float((p_j**2).sum())
    p_i = [(sum(v * v for v in c.values()) - sum(c.values())) / (sum(c.values()) * (sum(c.values()) - 1)) for c in rows]
    if p_e >= 1.0:
        return None
    return float((np.mean(p_i) - p_e) / (1.0 - p_e))


#: Per-video accuracies are ratios k/n of a few answers; differences below this are float noise (np.std of five
#: copies of 2/9 is 2.8e-17, and the correlation of that noise once printed as a reliability), not spread.
SPREAD_EPS = 1e-9


def no_spread(x: np.ndarray) -> bool:
    """True when the values are equal up to float noise: a correlation with them is undefined."""
    return len(x) == 0 or float(np.ptp(x)) <= SPREAD_EPS


def split_half(records: list[dict], splits: int = SPLITS, seed: int = 0) -> dict:
    """Spearman-Brown corrected correlation of per-video accuracy between random halves of the participants.
    A split is used when at least 3 videos are answered in both halves and the per-video accuracies spread in
    both (no_spread: equal up to float noise is no spread). `spearman_brown` is None when no split is usable,
    and `undefined` says why."""
    people = sorted({r["participant"] for r in records})
    out: dict = {"spearman_brown": None, "splits_used": 0, "splits": splits, "seed": seed, "undefined": None}
    if len(people) < 2:
        out["undefined"] = f"{len(people)} participant(s): needs 2 or more"
        return out
    rng = np.random.default_rng(seed)
    rs = []
    skipped = {"few": 0, "flat": 0}
    for _ in range(splits):
        half = set(rng.permutation(people)[: len(people) // 2].tolist())
        a: dict[str, list[bool]] = defaultdict(list)
        b: dict[str, list[bool]] = defaultdict(list)
        for r in records:
            (a if r["participant"] in half else b)[r["video_id"]].append(bool(r["correct"]))
        both = sorted(set(a) & set(b))
        if len(both) < 3:
            skipped["few"] += 1
            continue
        x = np.array([np.mean(a[v]) for v in both])
        y = np.array([np.mean(b[v]) for v in both])
        if no_spread(x) or no_spread(y):
            skipped["flat"] += 1
            continue
        corr = float(np.clip(np.corrcoef(x, y)[0, 1], -1.0, 1.0))
        rs.append(2 * corr / (1 + corr) if corr > -1 else -1.0)
    out["splits_used"] = len(rs)
    if rs:
        out["spearman_brown"] = float(np.mean(rs))
    elif skipped["flat"] >= skipped["few"]:
        out["undefined"] = "no spread: within each half every video has the same accuracy, so no correlation"
    else:
        out["undefined"] = "fewer than 3 videos answered in both halves"
    return out


def split_half_line(sh: dict | None) -> str:
    """The report's split-half line: the value with the splits used, or why it is undefined."""
    if not sh or sh.get("spearman_brown") is None:
        why = (sh or {}).get("undefined") or "needs 2+ participants and 3+ videos answered in both halves"
        return f"- split-half reliability: – ({why})"
    return (
        f"- split-half reliability (Spearman-Brown, mean of {sh['splits_used']} of {sh['splits']} random splits): "
        f"{round(sh['spearman_brown'], 2) + 0.0:.2f}"  # + 0.0: never '-0.00'
    )


def _parsed(rec: dict) -> str | None:
    return rec.get("parsed") if rec.get("valid") else None


def retest(answers: list[dict]) -> dict | None:
    """Agreement between a repeated trial and its first showing, per (participant, trial)."""
    first = {(a["participant"], a["position"]): a for a in answers if a["phase"] == "main"}
    pairs_: list[tuple[dict, dict]] = []
    for a in answers:
        f = first.get((a["participant"], a["repeat_of"])) if a["phase"] == "repeat" else None
        if f is not None and f["answer"] is not None and a["answer"] is not None:
            pairs_.append((f, a))
    if not pairs_:
        return None
    same = [f["parsed"] == a["parsed"] for f, a in pairs_]
    iv = uncertainty.nested(
        [(a["participant"], a["position"]) for _f, a in pairs_],
        [(float(x), 1.0) for x in same],
        ["participants", "trials"],
    )
    out: dict = {"n": len(pairs_), "same_answer": float(np.mean(same)), "interval": iv.as_dict()}
    ratings = [(f["answer"], a["answer"]) for f, a in pairs_ if isinstance(f["answer"], int)]
    if len(ratings) >= 3:
        x, y = np.array(ratings, dtype=float).T
        out["rating_r"] = None if no_spread(x) or no_spread(y) else float(np.corrcoef(x, y)[0, 1])
    return out


def pair_accuracy(answers: list[dict]) -> dict | None:
    """Ratings only: share of (participant, pair) whose surprising video got the higher surprise rating."""
    ratings: dict[tuple, dict[str, int]] = defaultdict(dict)
    for a in answers:
        if a["phase"] == "main" and isinstance(a["answer"], int) and a.get("pair_id") and not a["excluded"]:
            ratings[(a["participant"], a["pair_id"])][a["truth"]] = a["answer"]
    keys = [k for k, r in ratings.items() if len(r) == 2]
    scores = [1.0 if r["no"] > r["yes"] else 0.5 if r["no"] == r["yes"] else 0.0 for r in (ratings[k] for k in keys)]
    if not scores:
        return None
    iv = uncertainty.crossed(
        [k[0] for k in keys], [k[1] for k in keys], [(x, 1.0) for x in scores], names=("participants", "pairs")
    )
    return {"n": len(scores), "acc": float(np.mean(scores)), "interval": iv.as_dict()}


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    return float(sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1)))


def per_video(records: list[dict]) -> list[dict]:
    """Accuracy per video, and how unlikely so few right answers are if the video were as easy as the other
    videos of its test (one-sided binomial tail, `p_below_test`): with 3 votes a majority is often wrong by chance
    on a hard test, so flagged videos are listed by this value, most telling first."""
    by: dict[str, list[dict]] = defaultdict(list)
    per_test: dict[tuple, list[bool]] = defaultdict(list)
    for r in records:
        by[r["video_id"]].append(r)
        per_test[(r["suite"], r["test"])].append(bool(r["correct"]))
    out = []
    for vid, rs in by.items():
        right = sum(bool(r["correct"]) for r in rs)
        others = per_test[(rs[0]["suite"], rs[0]["test"])]
        rest = (sum(others) - right) / (len(others) - len(rs)) if len(others) > len(rs) else None
        acc = right / len(rs)
        out.append(
            {
                "video_id": vid,
                "suite": rs[0]["suite"],
                "test": rs[0]["test"],
                "truth": rs[0]["truth"],
                "n": len(rs),
                "acc": acc,
                "p_below_test": binomial_cdf(right, len(rs), rest) if rest is not None else None,
                "flagged": len(rs) >= FLAG_MIN_ANSWERS and acc < FLAG_BELOW,
            }
        )
    return sorted(
        out, key=lambda v: (v["p_below_test"] if v["p_below_test"] is not None else 1.0, v["acc"], v["video_id"])
    )


def majority(records: list[dict]) -> dict[tuple, dict]:
    """Per (suite, test): share of videos whose majority answer is right (a tie counts half)."""
    votes: dict[tuple, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        votes[(r["suite"], r["test"])][r["video_id"]].append(bool(r["correct"]))
    out = {}
    for key, videos in sorted(votes.items()):
        s = [1.0 if sum(v) * 2 > len(v) else 0.5 if sum(v) * 2 == len(v) else 0.0 for v in videos.values()]
        iv = uncertainty.nested([(v,) for v in videos], [(x, 1.0) for x in s], ["videos"])
        out[key] = {"videos": len(s), "majority_acc": float(np.mean(s)), "majority_interval": iv.as_dict()}
    return out


def read_answers(run_dir: str) -> list[dict]:
    path = os.path.join(run_dir, ANSWERS)
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def summarize(run_dir: str, records: list[dict], info: dict) -> dict:
    """The humans section of results.json; `records` are the scored answers (samples.jsonl)."""
    scored = [r for r in records if r.get("correct") is not None]
    answers = read_answers(run_dir)
    people = info.get("humans", {}).get("participants", [])
    tests = []
    maj = majority(scored)
    for (suite, test), m in maj.items():
        rs = [r for r in scored if r["suite"] == suite and r["test"] == test]
        counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for r in rs:
            if _parsed(r):
                counts[r["video_id"]][r["parsed"]] += 1
        tests.append(
            {"suite": suite, "test": test, **m, "fleiss_kappa": fleiss_kappa([dict(c) for c in counts.values()])}
        )
    counts_all: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in scored:
        if _parsed(r):
            counts_all[r["video_id"]][r["parsed"]] += 1
    videos = per_video(scored)
    overall = uncertainty.crossed(
        [r.get("participant") or f"vote {r.get('repeat')}" for r in scored],
        [r["video_id"] for r in scored],
        [(float(bool(r["correct"])), 1.0) for r in scored],
        names=("participants", "videos"),
        col_strata=[r.get("polarity") for r in scored],
    )
    checks = [a for a in answers if a["phase"] == "attention" and a["answer"] is not None]
    return {
        "participants": len(people),
        "consented": sum(1 for p in people if p.get("consent")),
        "finished": sum(1 for p in people if p.get("finished")),
        "excluded": [p for p in people if p.get("excluded")],
        "exclusion_rule": info.get("humans", {}).get("exclusion_rule"),
        "included": sum(1 for p in people if p.get("consent") and not p.get("excluded")),
        "attention_pass_rate": float(np.mean([a["correct"] for a in checks])) if checks else None,
        "fleiss_kappa": fleiss_kappa([dict(c) for c in counts_all.values()]),
        "accuracy": overall.as_dict(),
        "split_half": split_half(scored),
        "retest": retest([a for a in answers if not a["excluded"]]),
        "pair_accuracy": pair_accuracy(answers),
        "tests": tests,
        "videos": videos,
        "flagged": [v for v in videos if v["flagged"]],
        "flag_rule": f"accuracy < {FLAG_BELOW} with at least {FLAG_MIN_ANSWERS} answers",
        "psychometric": curves.curves(scored, set_root=info.get("dataset")),
    }


def _f(x, pct: bool = False) -> str:
    if x is None:
        return "–"
    return f"{100 * x:.1f}" if pct else f"{x:.2f}"


def _ci_text(iv: dict | None) -> str:
    """', 95% CI lo–hi (resampled ...)' of an interval dict, with its note; '' without one."""
    if not iv:
        return ""
    counts = ", ".join(f"{v} {k}" for k, v in iv["clusters"].items())
    ci = "no interval" if iv["lo"] is None else f"95% CI {_f(iv['lo'], True)}–{_f(iv['hi'], True)}"
    return f", {ci} (resampled {iv['resampled']}: {counts})" + (f"; {iv['note']}" if iv.get("note") else "")


def _accuracy_line(iv: dict | None) -> str:
    if not iv or iv.get("point") is None:
        return "- accuracy (all scored answers): – (no scored answers)"
    return f"- accuracy (all scored answers): {_f(iv['point'], True)}%" + _ci_text(iv)


def markdown(h: dict) -> str:
    sh = h["split_half"]
    rt = h["retest"]
    lines = [
        "",
        "## Human panel",
        "",
        f"{h['participants']} participants, {h['consented']} consented, {h['finished']} finished, "
        f"{len(h['excluded'])} excluded ({h['exclusion_rule']}), {h['included']} included. "
        f"Attention checks passed: {_f(h['attention_pass_rate'], True)}%.",
        "",
        _accuracy_line(h.get("accuracy")),
        f"- Fleiss' kappa (all videos): {_f(h['fleiss_kappa'])}",
        split_half_line(sh),
        f"- test-retest: same answer on {_f(rt['same_answer'], True)}% of {rt['n']} repeated trials"
        + _ci_text(rt.get("interval"))
        + (f", rating r = {_f(rt.get('rating_r'))}" if "rating_r" in rt else "")
        if rt
        else "- test-retest: – (no repeated trials)",
    ]
    if h["pair_accuracy"]:
        pa = h["pair_accuracy"]
        lines.append(
            f"- pair accuracy (surprising rated above expected): {_f(pa['acc'], True)}% of {pa['n']} pairs"
            + _ci_text(pa.get("interval"))
        )
    if h["excluded"]:
        lines.append("- excluded: " + ", ".join(f"{p['participant']} ({p['excluded']})" for p in h["excluded"]))
    lines += [
        "",
        "| suite | test | videos | majority acc | 95% CI (videos) | Fleiss' kappa |",
        "|---|---|---:|---:|---|---:|",
    ]
    for t in h["tests"]:
        iv = t.get("majority_interval") or {}
        ci = "–" if iv.get("lo") is None else f"{_f(iv['lo'], True)}–{_f(iv['hi'], True)}"
        ci += f" ({iv['note']})" if iv.get("note") else ""
        lines.append(
            f"| {t['suite']} | {t['test']} | {t['videos']} | {_f(t['majority_acc'], True)} | {ci} "
            f"| {_f(t['fleiss_kappa'])} |"
        )
    lines += ["", f"### Videos people misjudge ({h['flag_rule']}): {len(h['flagged'])}", ""]
    if h["flagged"]:
        lines += ["| video | truth | answers | accuracy | p (as easy as its test) |", "|---|---|---:|---:|---:|"]
        for v in h["flagged"][:50]:
            p = "–" if v["p_below_test"] is None else f"{v['p_below_test']:.3f}"
            lines.append(f"| {v['video_id']} | {v['truth']} | {v['n']} | {_f(v['acc'], True)} | {p} |")
        if len(h["flagged"]) > 50:
            lines.append(f"\n({len(h['flagged']) - 50} more in results.json, `humans.flagged`)")
    return "\n".join(lines) + "\n" + curves.markdown(h.get("psychometric"))
