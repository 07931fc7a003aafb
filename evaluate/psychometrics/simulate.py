"""Simulated scorers of a graded set, written in the shape the real commands write, for the psychometric report's
tests and demo (bench/psychometric_report_demo.py): a world model's surprise run and a human panel's export.

- `write_surprise_run`: surprise.jsonl + run.json as `voebench evaluate --model vjepa2:...` writes them. Each video's
  surprise per window is a trial baseline plus Gaussian noise (sd 1), plus `gain * level` in the windows that end
  at or after the onset. With the window mean ("avg", what the report compares), the violated video is the more
  surprising with probability `p_relative(level, gain)` = Phi(gain * level * k / n / sqrt(2 / n)), n windows of
  which k end after the onset. `gain=0` is a world model that sees nothing (a coin).
- `write_human_panel`: samples.jsonl, answers.jsonl and run.json as `voebench humans export` writes them. Each
  participant answers every video of the graded tests once, noticing with probability psi(level) of a logistic
  curve whose threshold is drawn per participant (`threshold` +- `spread`, normal), with the given slope, guess
  and lapse. `with_levels=False` leaves the records' `violation_level` out (a study whose entries did not keep it):
  the report then reads the levels from the set.

- `write_graded_set`: a manifest-only set (no videos: score it with `--strategy text`, whose question is about
  the written description) of swept trials as the generator's sweeps lay them out (docs/psychometrics.md): per
  trial the plausible video at level 0 and one violated video per nonzero level, one pair_id, `sweep_rank` and
  `pair_conditions` `implausible-<rank>`; plus tests without levels, which the report skips.

Everything is drawn from numpy generators seeded by `seed`: the same call writes the same bytes.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np

from voebench.evaluate.psychometrics.function import psi

WINDOW_ENDS = (3, 7, 11, 15, 19, 23)
ONSET = 10


QUESTION = "Is the trajectory of the ball plausible? Answer only with yes or no."


def write_graded_set(
    root: str,
    graded: dict[str, str],
    levels: list[float],
    trials: int = 16,
    binary: tuple[str, ...] = (),
    suite: str = "grasp-l2",
) -> list[dict]:
    """Write the set (manifest.jsonl, dataset.json) of `graded` tests (test -> unit) swept over `levels` (0
    first) and `binary` tests (plain pairs without levels) into `root`; returns its entries."""
    from voebench.contract import dataset as ds
    from voebench.contract import manifest as mf

    nonzero = [float(x) for x in levels if x > 0]
    entries = []
    tests = [(t, u) for t, u in graded.items()] + [(t, None) for t in binary]
    for number, (test, unit) in enumerate(tests, 1):
        ranks = list(range(1, len(nonzero) + 1)) if unit is not None else [None]
        conds = ["plausible"] + ([f"implausible-{k}" for k in ranks] if unit is not None else ["implausible"])
        for i in range(trials):
            for rank in [0, *ranks]:
                cond = "plausible" if rank == 0 else "implausible"
                stem = f"{i:05d}-{cond}" + (f"-{rank}" if rank else "")
                e: dict = {
                    "id": f"{suite}/{test}/{stem}",
                    "suite": suite,
                    "test": test,
                    "index": i,
                    "condition": cond,
                    "pair_id": f"{suite}/{test}/{i:05d}",
                    "pair_conditions": conds,
                    "seed": i,
                    "video": None,
                    "states": f"{suite}/{test}/{stem}.h5",
                    "n_frames": 24,
                    "fps": 8.0,
                    "width": 64,
                    "height": 48,
                    "test_number": number,
                    "description": f"A ball moves across a table ({test}, {stem}).",
                    "violation": None,
                    "params": {"sampled": {}, "config": {}},
                    "prompts": [{"kind": "plausibility", "text": QUESTION, "answer": "yes" if rank == 0 else "no"}],
                }
                if unit is not None:
                    e.update(
                        violation_level=0.0 if rank == 0 else nonzero[rank - 1],
                        violation_unit=unit,
                        sweep_levels=[0.0, *nonzero],
                    )
                    if rank:
                        e["sweep_rank"] = rank
                entries.append(e)
    os.makedirs(root, exist_ok=True)
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    ds.write_dataset(os.path.join(root, ds.NAME), ds.new_dataset("simulated"))
    return entries


def _graded(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e.get("pair_id") and e.get("violation_level") is not None]


def _write_jsonl(path: str, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")


def write_surprise_run(
    root: str,
    entries: list[dict],
    out: str,
    gain: float = 4.0,
    seed: int = 0,
    name: str = "simulated world model",
    context: int = 8,
) -> str:
    """A surprise run of the paired videos of `entries` (a set at `root`) into `out`; returns `out`."""
    rng = np.random.default_rng(seed)
    os.makedirs(out, exist_ok=True)
    base: dict[str, float] = {}
    rows = []
    for e in entries:
        if not e.get("pair_id"):
            continue
        b = base.setdefault(e["pair_id"], float(rng.normal(10.0, 1.0)))
        level = float(e.get("violation_level") or 0.0)
        s = [b + float(rng.normal()) + (gain * level if end >= ONSET else 0.0) for end in WINDOW_ENDS]
        rows.append(
            {
                "id": e["id"],
                "suite": e["suite"],
                "test": e["test"],
                "pair_id": e["pair_id"],
                "condition": e["condition"],
                "plausible": e["condition"] in ("plausible", "expected"),
                "violation_level": e.get("violation_level"),
                "onset": ONSET,
                "violation_window": [ONSET, ONSET + 4],
                "hidden": False,
                "n_frames": 24,
                "fps": 8.0,
                "frame_step": 1,
                "sampled_frames": 24,
                "window": 4,
                "window_end": list(WINDOW_ENDS),
                "surprise": {str(context): s},
            }
        )
    _write_jsonl(os.path.join(out, "surprise.jsonl"), rows)
    info = {
        "model_spec": "simulated",
        "model": {"name": name},
        "protocol": {"context_lengths": [context], "fixed_context": context},
        "dataset": os.path.abspath(root),
    }
    with open(os.path.join(out, "run.json"), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=1)
    return out


def write_human_panel(
    root: str,
    entries: list[dict],
    out: str,
    participants: int = 8,
    threshold: float = 0.3,
    spread: float = 0.05,
    slope: float = 15.0,
    guess: float = 0.05,
    lapse: float = 0.02,
    seed: int = 0,
    with_levels: bool = True,
) -> str:
    """A human panel's export of the graded videos of `entries` (a set at `root`) into `out`; returns `out`."""
    rng = np.random.default_rng(seed)
    os.makedirs(out, exist_ok=True)
    samples, answers, people = [], [], []
    votes: dict[str, int] = {}
    for p in range(participants):
        who = f"P{p + 1:03d}"
        thr = float(rng.normal(threshold, spread))
        people.append(
            {
                "participant": who,
                "seed": p,
                "consent": True,
                "finished": True,
                "answered": 0,
                "trials": 0,
                "attention_checks": 0,
                "attention_failed": 0,
                "excluded": None,
            }
        )
        for pos, e in enumerate(_graded(entries)):
            level = float(e["violation_level"])
            noticed = bool(rng.random() < float(psi(level, thr, slope, guess, lapse)))
            parsed = "no" if noticed else "yes"
            truth = "yes" if e["condition"] in ("plausible", "expected") else "no"
            vote = votes.get(e["id"], 0)
            votes[e["id"]] = vote + 1
            rec = {
                "sample_id": f"{e['id']}#plausibility",
                "video_id": e["id"],
                "suite": e["suite"],
                "test": e["test"],
                "kind": "plausibility",
                "truth": truth,
                "polarity": "positive" if truth == "yes" else "negative",
                "strategy": "human-grasp",
                "condition": e["condition"],
                "index": e.get("index", 0),
                "pair_id": e["pair_id"],
                "pair_conditions": e.get("pair_conditions"),
                "sweep_rank": e.get("sweep_rank"),
                "test_number": e.get("test_number"),
                "question": "",
                "repeat": vote,
                "seed": p,
                "model": "humans",
                "participant": who,
                "response": parsed,
                "responses": [parsed],
                "rating": None,
                "rt_ms": 1000,
                "parsed": parsed,
                "valid": True,
                "correct": parsed == truth,
            }
            if with_levels:
                rec["violation_level"] = level
            samples.append(rec)
            answers.append(
                {
                    "participant": who,
                    "position": pos,
                    "phase": "main",
                    "response": "yesno",
                    "video_id": e["id"],
                    "suite": e["suite"],
                    "test": e["test"],
                    "condition": e["condition"],
                    "pair_id": e["pair_id"],
                    "truth": truth,
                    "answer": parsed,
                    "parsed": parsed,
                    "valid": True,
                    "correct": parsed == truth,
                    "video_error": None,
                    "repeat_of": None,
                    "excluded": False,
                    **({"violation_level": level} if with_levels else {}),
                }
            )
    _write_jsonl(os.path.join(out, "samples.jsonl"), samples)
    _write_jsonl(os.path.join(out, "answers.jsonl"), answers)
    info = {
        "model": "humans",
        "kind": "humans",
        "strategy": "human-grasp",
        "repeats": participants,
        "dataset": os.path.abspath(root),
        "incomplete_pairs_dropped": 0,
        "humans": {
            "protocol": "grasp",
            "design": {
                "protocol": "grasp",
                "simulated": True,
                "threshold": threshold,
                "spread": spread,
                "slope": slope,
            },
            "participants": people,
            "exclusion_rule": "none (simulated)",
        },
    }
    with open(os.path.join(out, "run.json"), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=1)
    return out


def p_relative(level: float, gain: float) -> float:
    """P(the violated video's mean surprise over its windows exceeds its twin's) in `write_surprise_run`'s model:
    the difference of the means is normal with mean gain * level * k / n and variance 2 / n."""
    n, k = len(WINDOW_ENDS), sum(end >= ONSET for end in WINDOW_ENDS)
    z = gain * level * k / n / math.sqrt(2.0 / n)
    return 0.5 * math.erfc(-z / math.sqrt(2.0))
