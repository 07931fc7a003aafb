"""Report fuzz (issue 23): random small sets and answer mixes (valid, invalid, empty, constant, random) through every
report path: `voebench report` (evaluate/report.py: models, a human panel, NEWTON), predict (summarize and
report_md), world-model surprise reports, and `humans export` followed by `voebench report`. Every set must give a
report (no exception), and every interval must contain the point estimate the report prints and lie in [0, 1];
a zero-width or missing interval must carry its reason.

Default: FUZZ_SETS random sets per path (about 30 s in all). More: VOEBENCH_FUZZ_SETS=500 (any path), or the slow
variant (`pytest -m slow tests/evaluate/test_report_fuzz.py`, 500 per path). docs/evaluate.md records the counts.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import time
from collections import Counter

import pytest

from voebench.errors import UsageError
from voebench.evaluate import report
from voebench.evaluate.humans import export as human_export
from voebench.evaluate.newton import metrics as newton_metrics
from voebench.evaluate.predict import run as predict_run
from voebench.evaluate.surprise import metrics as surprise_metrics
from voebench.evaluate.surprise import report as surprise_report

FUZZ_SETS = {"models": 120, "newton": 80, "predict": 150, "surprise": 80, "humans": 25}
SLOW_SETS = 500
MIXES = ("valid", "invalid", "empty", "constant", "random")
#: stored answers the careful reader (evaluate/careful.py) reads again at report time
RESPONSES = ("Yes", "No.", "- Yes", "Yes and no", "", None, "The answer is no.", "Implausible.", "I can't tell.")
N_BOOT = 200  # fewer draws than a real report: the fuzz checks the paths, not the precision
EPS = 1e-9


def _count(path: str, slow: bool) -> int:
    env = os.environ.get("VOEBENCH_FUZZ_SETS")
    return int(env) if env else (SLOW_SETS if slow else FUZZ_SETS[path])


#: What the checked intervals were like, over the whole session (printed by the slow test; docs/evaluate.md).
TALLY: Counter = Counter()


def _full(i: int) -> bool:
    """Every 21st set goes through the whole write_report path (21 is prime to the 5 mixes: each mix gets it)."""
    return i % 21 == 0


def check_interval(iv: dict | None, point: float | None, proportion: bool = True, where: str = "") -> None:
    """An interval dict (uncertainty.Interval.as_dict): its point is the printed one, it contains it, it lies in
    [0, 1] for a proportion, and a missing or zero-width interval says why."""
    assert iv is not None, where
    if point is None or point != point:
        assert iv["point"] is None or iv["point"] != iv["point"], where
    else:
        assert iv["point"] == pytest.approx(point, abs=1e-12), where
    assert iv["resampled"] and isinstance(iv["clusters"], dict), where
    TALLY["intervals"] += 1
    if iv["lo"] is None or iv["hi"] is None:
        assert iv["note"], f"{where}: no interval and no reason"
        TALLY["no interval (reason given)"] += 1
        return
    if iv["note"] and "extended" in iv["note"]:
        TALLY["percentile interval extended to the point"] += 1
    assert iv["lo"] - EPS <= iv["point"] <= iv["hi"] + EPS, (where, iv)
    if proportion:
        assert iv["lo"] >= -EPS and iv["hi"] <= 1 + EPS, (where, iv)
    if iv["hi"] - iv["lo"] <= EPS:
        assert iv["note"], f"{where}: zero width without a reason: {iv}"
        TALLY["zero width (reason given)"] += 1


def _mix_correct(mix: str, rng: random.Random) -> tuple[bool, bool | None, str]:
    """(valid, correct, parsed) of one answer under an answer mix."""
    if mix == "invalid":
        return False, False, "invalid"
    if mix == "constant":
        return True, True, "yes"
    if mix == "random":
        roll = rng.random()
        if roll < 0.15:
            return False, None, "invalid"  # an unscored record (failed call)
        if roll < 0.35:
            return False, False, "invalid"
    ok = rng.random() < 0.6
    return True, ok, "yes" if ok else "no"


# ------------------------------------------------------------------------------------------------ voebench report


def model_records(rng: random.Random, mix: str, humans: bool = False) -> list[dict]:
    if mix == "empty":
        return []
    out = []
    kinds = ["binary", "plausibility", "choice", "open"] if not humans else ["plausibility"]
    for suite in range(rng.randint(1, 2)):
        for t in range(rng.randint(1, 3)):
            kind = rng.choice(kinds)
            for s in range(rng.randint(1, 4)):
                polarity = None if kind == "open" else rng.choice(["positive", "negative", None])
                for rep in range(rng.randint(1, 3)):
                    valid, correct, parsed = _mix_correct(mix, rng)
                    rec = {
                        "suite": f"suite{suite}",
                        "test": f"t{t}",
                        "kind": kind,
                        "strategy": "video",
                        "sample_id": f"s{suite}-t{t}-{s}#{kind}",
                        "video_id": f"s{suite}-t{t}-{s}",
                        "polarity": polarity,
                        "truth": "yes",
                        "response": rng.choice(RESPONSES),
                        "parsed": parsed,
                        "valid": valid,
                        "correct": correct,
                        "repeat": rep,
                        "choices": {"labels": ["a", "b", "c"]} if kind == "choice" else None,
                    }
                    if humans:
                        rec["participant"] = f"P{rng.randint(0, 3):03d}"
                    out.append(rec)
    return out


def check_summary(summary: dict) -> None:
    for r in summary["tests"]:
        where = f"{r['suite']}/{r['test']}"
        check_interval(r["interval"], r["acc"], where=where)
        assert r["ci95"] == [r["interval"]["lo"], r["interval"]["hi"]]
        lo, hi = report._yerr([r])
        assert min(lo + hi) >= 0
    for s in summary["suites"]:
        check_interval(s["interval"], s["mean_acc"], where=f"{s['suite']} mean")


def cli_report(run: str, empty: bool) -> dict | None:
    """`voebench report RUN --bootstrap N_BOOT` in-process, as a user runs it: exit 0 and results.json, or, for an
    empty set only, exit 2 with one line on stderr (nothing to score is bad input)."""
    from voebench.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["report", run, "--bootstrap", str(N_BOOT)])
    if rc == 2 and empty:
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
        TALLY["empty set refused in one line (exit 2)"] += 1
        return None
    assert rc == 0, (run, rc, err.getvalue())
    with open(os.path.join(run, "results.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _write_run(run_dir: str, records: list[dict], info: dict | None = None) -> None:
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "samples.jsonl"), "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)
    with open(os.path.join(run_dir, "run.json"), "w", encoding="utf-8") as fh:
        json.dump(info or {"model": "fuzz", "strategy": "video"}, fh)


def _report_sets(n: int, tmp_path, seed: int) -> int:
    rng = random.Random(seed)
    for i in range(n):
        mix = MIXES[i % len(MIXES)]
        humans = i % 4 == 3
        recs = model_records(rng, mix, humans)
        if _full(i):  # the whole path, with report.md and the figure (matplotlib: 1 s a figure, the slow part)
            run = str(tmp_path / f"run{i}")
            _write_run(run, recs, {"model": "fuzz", "kind": "humans" if humans else None})
            res = cli_report(run, empty=not recs)
            if res is not None:
                check_summary(res)
                for c in res.get("careful") or []:
                    check_interval(c["interval"], c["careful_acc"], where=f"careful {c['suite']}")
                    assert 0 <= c["credit_withheld"] + c["credit_added"] <= c["read_differently"] <= c["n"]
                assert os.path.isfile(os.path.join(run, "report.md"))
        else:
            s = report.summarize(recs, n_boot=N_BOOT, seed=i)
            check_summary(s)
            report.markdown(s, {"model": "fuzz"})
    return n


def test_fuzz_report(tmp_path):
    assert _report_sets(_count("models", False), tmp_path, 1) > 0


# ------------------------------------------------------------------------------------------------ NEWTON


def newton_records(rng: random.Random, mix: str) -> list[dict]:
    if mix == "empty":
        return []
    out = []
    text_set = rng.random() < 0.5  # a text question set: one question per trial
    variants = ["v1"] if rng.random() < 0.6 else ["v1", "v2"]
    for trial in range(rng.randint(1, 4)):
        for q in range(1 if text_set else rng.randint(1, 6)):
            track, stream = rng.choice([(1, "likert"), (2, "boolean"), (2, "multiple_choice"), (3, "scenario")])
            polarity = None if track == 3 else rng.choice(["positive", "negative"])
            for v in variants:
                for rep in range(rng.randint(1, 2)):
                    valid, correct, parsed = _mix_correct(mix, rng)
                    out.append(
                        {
                            "suite": "newton",
                            "test": "elasticity",
                            "kind": "choice",
                            "strategy": "video",
                            "sample_id": f"tr{trial}-q{q}#{v}",
                            "video_id": f"tr{trial}" if not text_set else f"tr{trial}-q{q}",
                            "polarity": polarity,
                            "truth": "A",
                            "parsed": "A" if correct else parsed,
                            "valid": valid,
                            "correct": correct,
                            "repeat": rep,
                            "choices": {"labels": ["A", "B", "C"]},
                            "meta": {
                                "newton": {
                                    "question_id": f"q{q}",
                                    "track": track,
                                    "stream": stream,
                                    "attribute": rng.choice(["elasticity", "softness"]),
                                    "polarity": polarity,
                                    "position": rng.randint(1, 3),
                                    "n_options": 3,
                                    "agreement": rng.choice([None, 0.8]) if track == 1 else None,
                                    "variant": v,
                                }
                            },
                        }
                    )
    return out


def _newton_sets(n: int, tmp_path, seed: int) -> int:
    rng = random.Random(seed)
    for i in range(n):
        recs = newton_records(rng, MIXES[i % len(MIXES)])
        if _full(i):  # the `voebench report` path of a rendered newton run (with its figure)
            run = str(tmp_path / f"newton{i}")
            _write_run(run, recs)
            res = cli_report(run, empty=not recs)
            if res is None:
                continue
            check_summary(res)
            s = res.get("newton")
        else:
            check_summary(report.summarize(recs, n_boot=N_BOOT))
            s = newton_metrics.summarize(recs)
        if s is None:
            assert not any(r["correct"] is not None for r in recs)
            continue
        for r in s["streams"] + s["attributes"]:
            check_interval(r["interval"], r["acc"], where=f"newton {r}")
        for r in s["polarity"]:
            for side in ("pos", "neg"):
                lo, hi = r[f"ci95_{side}"]
                assert lo is None or lo - EPS <= r[f"acc_{side}"] <= hi + EPS
        newton_metrics.markdown(s)
    return n


def test_fuzz_newton(tmp_path):
    assert _newton_sets(_count("newton", False), tmp_path, 2) > 0


# ------------------------------------------------------------------------------------------------ predict


def predict_records(rng: random.Random, mix: str) -> list[dict]:
    if mix == "empty":
        return []
    out = []
    for form in rng.sample(["video", "image"], rng.randint(1, 2)):
        for clip in range(rng.randint(1, 5)):
            for rep in range(rng.randint(1, 3)):
                rec: dict = {
                    "kind": "collision",
                    "form": form,
                    "temperature": None,
                    "sample_id": f"c{clip}",
                    "repeat": rep,
                }
                roll = rng.random()
                if mix == "random" and roll < 0.15:
                    rec["exact"] = None  # a failed call
                    out.append(rec)
                    continue
                if mix == "invalid" or (mix == "random" and roll < 0.3):
                    tp, fp, fn, unparsed = 0, 0, rng.randint(0, 2), True
                elif mix == "constant":
                    tp, fp, fn, unparsed = 1, 0, 0, False
                else:
                    tp, fp, fn, unparsed = rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 2), False
                p = tp / (tp + fp) if tp + fp else 1.0
                r = tp / (tp + fn) if tp + fn else 1.0
                f1 = 0.0 if unparsed or p + r == 0 else 2 * p * r / (p + r)
                ok = not unparsed and fp == 0 and fn == 0
                rec["exact"] = {
                    "tp": tp,
                    "fp": fp,
                    "fn": fn,
                    "precision": 0.0 if unparsed else p,
                    "recall": 0.0 if unparsed else r,
                    "f1": f1,
                    "outcome_correct": ok or rng.random() < 0.5,
                    "strict": ok,
                    "unparsed": unparsed,
                }
                if rng.random() < 0.5:
                    rec["judge_scores"] = {
                        c: rng.choice([None, 0, 1, 3, 5]) for c in ("specificity", "logical_consistency", "accuracy")
                    }
                    rec["judge_scores"]["accuracy"] = rng.choice([None, 0, 1])
                out.append(rec)
    return out


def _predict_sets(n: int, seed: int) -> int:
    rng = random.Random(seed)
    info = {"models": {"None": {"name": "fuzz"}}, "judge": None, "repeats": 3}
    for i in range(n):
        recs = predict_records(rng, MIXES[i % len(MIXES)])
        res = predict_run.summarize(recs)
        predict_run.report_md(res, info)
        for g in res["groups"]:
            if g["exact"]["n"] == 0:
                continue
            for m, iv in g["exact_ci95"].items():
                check_interval(iv, g["exact"][m], where=f"predict {m}")
    return n


def test_fuzz_predict():
    assert _predict_sets(_count("predict", False), 3) > 0


# ------------------------------------------------------------------------------------------------ world models


def surprise_records(rng: random.Random, mix: str) -> list[dict]:
    if mix == "empty":
        return []
    out = []
    for t in range(rng.randint(1, 4)):
        for p in range(rng.randint(1, 4)):
            for plausible in (True, False):
                if mix == "random" and rng.random() < 0.1:
                    continue  # a video without its twin
                if mix == "constant":
                    s = [1.0, 1.0, 1.0]
                elif mix == "invalid":
                    s = [0.0, 0.0, 0.0]
                else:
                    s = [rng.random() for _ in range(3)]
                out.append(
                    {
                        "id": f"t{t}-p{p}-{plausible}",
                        "suite": "grasp-l2",
                        "test": f"t{t}",
                        "pair_id": f"t{t}-p{p}",
                        "plausible": plausible,
                        "condition": "c",
                        "onset": 3,
                        "window_end": [2, 4, 6],
                        "surprise": {"4": s, "8": s[::-1]},
                        "n_frames": 8,
                    }
                )
    return out


def _surprise_sets(n: int, tmp_path, seed: int) -> int:
    rng = random.Random(seed)
    for i in range(n):
        recs = surprise_records(rng, MIXES[i % len(MIXES)])
        if _full(i):  # write_report: results.json, report.md and curves.png
            run = tmp_path / f"surprise{i}"
            run.mkdir()
            with open(run / "surprise.jsonl", "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in recs)
            with open(run / "run.json", "w", encoding="utf-8") as fh:
                json.dump({"model": {"name": "fuzz"}, "protocol": {"context_lengths": [4, 8], "fixed_context": 4}}, fh)
            s = cli_report(str(run), empty=not recs)
            if s is None:
                continue
        else:
            s = surprise_metrics.summarize(recs, [4, 8], 4, n_boot=N_BOOT)
            surprise_report.markdown(s, {})
        for r in s["tests"] + s["suites"]:
            for agg in surprise_metrics.AGGREGATES:
                f = r["fixed"][agg]
                check_interval(f["interval"], f["relative"], where=f"surprise {r['suite']} {r.get('test')} {agg}")
    return n


def test_fuzz_surprise(tmp_path):
    assert _surprise_sets(_count("surprise", False), tmp_path, 4) > 0


# ------------------------------------------------------------------------------------------------ humans export


def _humans_sets(n: int, tmp_path, seed: int) -> int:
    from humans_fixtures import make_plausibility_set

    from voebench.evaluate.humans import design, study
    from voebench.evaluate.humans.store import Refused, Study

    rng = random.Random(seed)
    for i in range(n):
        mix = MIXES[i % len(MIXES)]
        root = make_plausibility_set(
            str(tmp_path / f"set{i}"), {f"t{k}": rng.randint(1, 2) for k in range(rng.randint(1, 2))}, videos=True
        )  # videos: a study hashes the files it shows
        protocol = rng.choice(["grasp", "avoe"])
        people = rng.randint(1, 3)
        d = design.default_design(
            protocol,
            people,
            attention_checks=rng.randint(0, 1),
            familiarization=0,
            votes=rng.randint(1, people) if protocol == "grasp" else None,
            twins=True,  # tiny panels: a participant may judge both videos of a pair
        )
        study_dir = str(tmp_path / f"study{i}")
        study.create(root, study_dir, d).close()
        st = Study(study_dir)
        plans: dict[int, list[dict]] = {}
        for a in st.answers():
            plans.setdefault(a["participant"], []).append(a["trial"])
        for (_number, token), trials in zip(st.tokens(), plans.values()):
            if mix == "empty" or rng.random() < 0.15:
                continue  # nobody answers / this one never starts
            st.consent(token, True)
            st.instructions(token)
            stop = len(trials) if mix != "random" else rng.randint(0, len(trials))
            for t in trials[:stop]:
                if t["response"] == "watch":
                    value = "continue"
                elif t["response"] == "slider":
                    value = {"invalid": 50, "constant": 10}.get(mix, rng.choice([0, 20, 50, 80, 100]))
                else:
                    value = "yes" if mix in ("constant", "invalid") else rng.choice(["yes", "no"])
                try:
                    st.answer(token, t["position"], value, 900, None)
                except Refused:
                    break
        st.close()
        out = str(tmp_path / f"hrun{i}")
        human_export.export(study_dir, out)
        try:
            res = report.write_report(out, n_boot=N_BOOT)
        except UsageError as e:  # half a pair answered: refused in one line (the CLI's exit 2), unless asked
            assert "incomplete" in str(e) and "\n" not in str(e)
            res = report.write_report(out, n_boot=N_BOOT, complete_pairs_only=True)
        check_summary(res)
        h = res["humans"]
        check_interval(h["accuracy"], h["accuracy"]["point"], where="humans accuracy")
        for t in h["tests"]:
            check_interval(t["majority_interval"], t["majority_acc"], where="humans majority")
        if h["pair_accuracy"]:
            check_interval(h["pair_accuracy"]["interval"], h["pair_accuracy"]["acc"], where="humans pairs")
        if h["retest"]:
            check_interval(h["retest"]["interval"], h["retest"]["same_answer"], where="humans retest")
        sh = h["split_half"]
        assert sh["spearman_brown"] is not None or sh["undefined"]
    return n


def test_fuzz_humans_export(tmp_path):
    assert _humans_sets(_count("humans", False), tmp_path, 5) > 0


@pytest.mark.slow
def test_fuzz_every_path_many_sets(tmp_path):
    """SLOW_SETS random sets through every path (docs/evaluate.md has the counts of the last run)."""
    n = _count("models", True)
    TALLY.clear()
    t0 = time.monotonic()
    runs = {
        "report": _report_sets(n, tmp_path, 11),
        "newton": _newton_sets(n, tmp_path, 12),
        "predict": _predict_sets(n, 13),
        "surprise": _surprise_sets(n, tmp_path, 14),
        "humans export": _humans_sets(max(1, n // 5), tmp_path, 15),
    }
    print(f"\nfuzz: {runs} random sets, 0 exceptions, {time.monotonic() - t0:.0f} s; intervals: {dict(TALLY)}")
    assert sum(runs.values()) > 0
