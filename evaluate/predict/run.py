"""A predict run: ask a model every (sample, query form) at each temperature and repeat, score each answer
exactly, have a judge score it too, and report both side by side with their agreement.

A run folder holds:

    run.json          the configuration (model, judge, forms, temperatures, repeats and seeds, frames)
    cache.jsonl       model answers, keyed as evaluate/run.py keys them (model, settings incl. temperature,
                      sample, conversation with frame indices, repeat seed)
    judge_cache.jsonl judge replies, keyed the same way (the judge prompt holds the prediction and the truth)
    samples.jsonl     one record per (sample, temperature, repeat): frames, cut, prompt, answer, parsed objects
                      and pairs, exact score, judge reply, parsed judge scores
    results.json, report.md

Both caches are appended and flushed answer by answer, so a killed run resumes asking only for what is missing.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

from voebench import __version__
from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.predict import exact
from voebench.evaluate.predict.intervals import ci_text, exact_intervals
from voebench.evaluate.predict.judge import JudgeItem, cohen_kappa, judge_prompt, parse_scores, reply_valid, spearman
from voebench.evaluate.run import ResponseCache, cache_key, repeat_seeds

CACHE, JUDGE_CACHE, SAMPLES, RUN, RESULTS, REPORT = (
    "cache.jsonl",
    "judge_cache.jsonl",
    "samples.jsonl",
    "run.json",
    "results.json",
    "report.md",
)


@dataclass
class Asked:
    sample: Any  # queries.PredictSample / events.EventSample, or judge.JudgeItem for a judge call
    temperature: float | None
    repeat: int
    seed: int
    response: str | None = None
    error: str | None = None
    cached: bool = False


def _ask_all(adapter: Adapter, jobs: list[Asked], cache: ResponseCache, messages, sample_of, label: str) -> int:
    """Fill every job's response from the cache or the adapter, a batch at a time; returns model calls made."""
    settings = adapter.settings()
    keys = [cache_key(adapter.name, settings, sample_of(j).sample_id, messages(j), j.seed) for j in jobs]
    todo = []
    for j, k in zip(jobs, keys):
        rec = cache.get(k)
        if rec is not None:
            j.response, j.cached = rec["response"], True
        else:
            todo.append((j, k))
    chunk = max(1, int(getattr(adapter, "batch_size", 1)))
    for i in range(0, len(todo), chunk):
        group = todo[i : i + chunk]
        reqs = [Request(messages(j), j.seed, j.repeat, 0, 1, sample_of(j)) for j, _ in group]
        results = adapter.generate(reqs)
        if len(results) != len(reqs):
            raise RuntimeError(f"{label} adapter returned {len(results)} answers for {len(reqs)} requests")
        for (j, k), res in zip(group, results):
            if isinstance(res, BaseException):
                j.error = f"{type(res).__name__}: {res}"
                continue
            j.response = res
            cache.put(k, res, model=adapter.name, sample_id=sample_of(j).sample_id, repeat=j.repeat, turn=0)
        cache.sync()
    return len(todo)


def run_predict(
    samples: list,
    models: dict,
    judge: Adapter | None,
    out_dir: str,
    repeats: int = 1,
    seed: int = 0,
    system_prompt: str | None = None,
    extra: dict | None = None,
) -> dict:
    """`models`: temperature (or None) -> adapter. Returns the results (also written to results.json)."""
    os.makedirs(out_dir, exist_ok=True)
    started = time.time()
    seeds = repeat_seeds(seed, repeats)
    asked = [Asked(s, t, r, seeds[r]) for t in models for r in range(repeats) for s in samples]

    def messages(j: Asked) -> list[dict]:
        msgs = [{"role": "system", "text": system_prompt}] if system_prompt else []
        return msgs + [j.sample.message()]

    calls = {}
    cache = ResponseCache(os.path.join(out_dir, CACHE))
    try:
        for t, adapter in models.items():
            calls[str(t)] = _ask_all(
                adapter, [j for j in asked if j.temperature == t], cache, messages, lambda j: j.sample, "model"
            )
    finally:
        cache.close()

    judged: list[Asked] = []
    items: dict[int, JudgeItem] = {}
    if judge is not None:
        for j in asked:
            if j.response is None:
                continue
            key = f"{j.sample.sample_id}@T={j.temperature}#r{j.repeat}"
            items[id(j)] = JudgeItem(
                key,
                j.sample,
                j.response,
                judge_prompt(j.response, j.sample.answer, j.sample.attributes),
                sample_id=key,
            )
            judged.append(Asked(items[id(j)], None, j.repeat, j.seed))
        jcache = ResponseCache(os.path.join(out_dir, JUDGE_CACHE))
        try:
            calls["judge"] = _ask_all(
                judge,
                judged,
                jcache,
                lambda a: [{"role": "user", "text": a.sample.prompt}],
                lambda a: a.sample,
                "judge",
            )
        finally:
            jcache.close()
    judge_reply = {a.sample.key: a for a in judged}

    records = []
    for j in asked:
        s = j.sample
        rec = {
            **s.record(),
            "temperature": j.temperature,
            "repeat": j.repeat,
            "seed": j.seed,
            "model": models[j.temperature].name,
            "response": j.response,
            "cached": j.cached,
            "error": j.error,
        }
        if j.response is not None:
            parsed, sc = s.score(j.response)
            rec["parsed"], rec["exact"] = parsed, sc.as_dict()
            a = judge_reply.get(f"{s.sample_id}@T={j.temperature}#r{j.repeat}")
            if a is not None:
                rec["judge"] = judge.name if judge is not None else None
                rec["judge_response"] = a.response
                rec["judge_error"] = a.error
                rec["judge_scores"] = parse_scores(a.response) if a.response is not None else None
        records.append(rec)
    with open(os.path.join(out_dir, SAMPLES), "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")

    results = summarize(records)
    info = {
        "voebench_version": __version__,
        "models": {str(t): {"name": m.name, "settings": m.settings()} for t, m in models.items()},
        "judge": None if judge is None else {"name": judge.name, "settings": judge.settings()},
        "repeats": repeats,
        "seed": seed,
        "repeat_seeds": seeds,
        "system_prompt": system_prompt,
        "n_samples": len(samples),
        "calls_this_run": calls,
        "started": started,
        "finished": time.time(),
        **(extra or {}),
    }
    with open(os.path.join(out_dir, RUN), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=2)
    with open(os.path.join(out_dir, RESULTS), "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=2)
    with open(os.path.join(out_dir, REPORT), "w", encoding="utf-8") as fh:
        fh.write(report_md(results, info))
    return results


def summarize(records: list[dict]) -> dict:
    """Per (query form, temperature): exact metrics, mean judge scores, judge-vs-exact agreement."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault((r["kind"], r["form"], r.get("prompt_variant", "seed"), r["temperature"]), []).append(r)
    out = []
    for (kind, form, prompt, temp), recs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], kv[0][3] is None, kv[0][3] or 0)
    ):
        answered = [r for r in recs if r.get("exact") is not None]
        scores = [exact.Score(**r["exact"]) for r in answered]
        row = {"kind": kind, "form": form, "prompt": prompt, "temperature": temp, "n": len(recs)}
        row["failed"] = len(recs) - len(answered)
        row["exact"] = exact.aggregate(scores)
        row["exact_ci95"] = exact_intervals(answered)  # clips resampled with their repeats (predict/intervals.py)
        js = [r for r in answered if r.get("judge_scores")]
        if js:
            judge_row: dict = {"n": len(js)}
            for crit in ("specificity", "logical_consistency", "accuracy"):
                vals = [r["judge_scores"][crit] for r in js if r["judge_scores"][crit] is not None]
                judge_row[crit] = sum(vals) / len(vals) if vals else None
                judge_row[f"{crit}_invalid"] = 1 - len(vals) / len(js)
            full = [r for r in js if reply_valid(r["judge_scores"])]
            judge_row["invalid"] = 1 - len(full) / len(js)  # replies without all three scores
            total = [sum(r["judge_scores"].values()) for r in full]
            judge_row["agreement"] = {
                "n": len(full),
                "spearman_total_vs_f1": spearman(total, [r["exact"]["f1"] for r in full]),
                "kappa_accuracy_vs_strict": cohen_kappa(
                    [int(r["judge_scores"]["accuracy"]) for r in full], [int(r["exact"]["strict"]) for r in full]
                ),
                "raw_agreement_accuracy_vs_strict": (
                    sum(int(r["judge_scores"]["accuracy"]) == int(r["exact"]["strict"]) for r in full) / len(full)
                    if full
                    else None
                ),
            }
            row["judge"] = judge_row
        out.append(row)
    return {"groups": out}


def _f(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _ci_lines(groups: list[dict]) -> list[str]:
    """95% intervals of the exact columns per group, what they resampled, and their notes (* in the table)."""
    rows, notes = [], []
    for g in groups:
        ci = g.get("exact_ci95") or {}
        if not ci:
            continue
        form = f"{g['form']}{'' if g.get('prompt', 'seed') == 'seed' else ' (structured)'}"
        rows.append(
            f"| {g['kind']} | {form} "
            f"| {g['temperature']} | {next(iter(ci.values()))['clusters'].get('clips', 0)} | "
            + " | ".join(ci_text(ci.get(m)) for m in ("micro_f1", "macro_f1", "outcome_accuracy", "strict"))
            + " |"
        )
        notes += [f"{g['kind']} {form} T={g['temperature']} {m}: {v['note']}" for m, v in ci.items() if v["note"]]
    if not rows:
        return []
    iv = next(iter(next(g["exact_ci95"] for g in groups if g.get("exact_ci95")).values()))
    return [
        "",
        f"95% CI: percentile bootstrap, {iv.get('n_boot')} draws, fixed seed, resampling {iv.get('resampled')} "
        "(each clip with all its repeats).",
        "",
        "| questions | form | T | clips | micro F1 | macro F1 | outcome acc | strict |",
        "|---|---|---|---:|---|---|---|---|",
        *rows,
        *([""] + [f"- * {n}" for n in notes] if notes else []),
    ]


def report_md(results: dict, info: dict) -> str:
    lines = [
        "# Predictive reasoning: exact score and judge",
        "",
        f"Models: {', '.join(m['name'] + ' (T=' + t + ')' for t, m in info['models'].items())}; "
        f"judge: {info['judge']['name'] if info['judge'] else 'none'}; repeats: {info['repeats']}.",
        "",
        "| questions | form | prompt | T | n | unparsed | micro F1 | macro F1 | outcome acc | strict | judge spec "
        "| judge logic | judge acc | judge invalid | Spearman(total, F1) | kappa(acc, strict) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in results["groups"]:
        e, j = g["exact"], g.get("judge") or {}
        ag = j.get("agreement") or {}
        lines.append(
            f"| {g['kind']} | {g['form']} | {g.get('prompt', 'seed')} | {g['temperature']} | {g['n']} "
            f"| {_f(e.get('unparsed_rate'))} | {_f(e.get('micro_f1'))} "
            f"| {_f(e.get('macro_f1'))} "
            f"| {_f(e.get('outcome_accuracy'))} | {_f(e.get('strict'))} | {_f(j.get('specificity'))} "
            f"| {_f(j.get('logical_consistency'))} | {_f(j.get('accuracy'))} | {_f(j.get('invalid'))} "
            f"| {_f(ag.get('spearman_total_vs_f1'))} | {_f(ag.get('kappa_accuracy_vs_strict'))} |"
        )
    lines += _ci_lines(results["groups"])
    lines += [
        "",
        "Exact: pairs precision/recall/F1 against the simulated collisions (micro: pooled pairs; macro: mean per "
        "answer), outcome accuracy (collision or none), strict (pairs exactly right, no hit object called "
        "unscathed). Unparsed: answers the exact scorer cannot read (a refusal, only questions, a contradiction, "
        "a missing or malformed COLLISIONS line under the structured prompt); they stay in every column as 0 / "
        "wrong. Judge invalid: replies without all three scores (per criterion in results.json). Prompt: `seed` "
        "(the seed's wording) or `structured` (the same, ending with one COLLISIONS line read strictly). "
        "A model that never predicts a collision scores macro F1 = outcome accuracy = strict = the share "
        "of no-collision clips (0.5 in a balanced set) and micro F1 = 0 (docs/predict.md). Event questions (GRASP "
        "Level 2 / AVoE cut before the event): a two-way choice, every exact column is its accuracy (chance 0.5).",
        "",
    ]
    return "\n".join(lines)
