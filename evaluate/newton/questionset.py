"""A NEWTON question set on disk, and the evaluation samples made from it.

`voebench newton generate --out DIR` writes

    DIR/newton.json       what made the set: repository (path, sha256), filter and its counts, track, n, seed,
                          prompt variants, attributes or scenarios left out and why, question counts
    DIR/questions.jsonl   one question per line: id, track, qtype, stream, attribute, polarity, texts (one per
                          prompt variant), labels (the options' short answers), options, letters, answer,
                          position (1-based, of the answer among the options), agreement, objects

and `voebench evaluate DIR` recognises the set by newton.json and asks one sample per (question, variant), with
no video, through the same adapters, cache and logs as a rendered set (docs/newton.md).
"""

from __future__ import annotations

import json
import os
from collections import Counter

from voebench import __version__
from voebench.errors import UsageError
from voebench.evaluate.tasks import Sample, Turn

META = "newton.json"
QUESTIONS = "questions.jsonl"
FORMAT = "voebench-newton-questions"
SUITE = "newton-text"
STRATEGIES = ("zero-shot", "text")  # no video either way: both ask the question alone


def is_question_set(root: str) -> bool:
    return os.path.isfile(os.path.join(root, META))


def counts(questions: list[dict]) -> dict:
    """Per stream: questions, by polarity, by answer position (what the balance tests and newton.json show)."""
    out: dict[str, dict] = {}
    for q in questions:
        c = out.setdefault(q["stream"], {"n": 0, "polarity": Counter(), "position": Counter(), "attribute": Counter()})
        c["n"] += 1
        c["polarity"][str(q["polarity"])] += 1
        c["position"][str(q["position"])] += 1
        c["attribute"][q["attribute"]] += 1
    return {
        k: {kk: (dict(sorted(v.items())) if isinstance(v, Counter) else v) for kk, v in c.items()}
        for k, c in out.items()
    }


def write_set(out: str, questions: list[dict], info: dict) -> None:
    """Write the set atomically. A folder that holds anything but an earlier question set is refused."""
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise UsageError(f"--out {out}: exists and is not a directory")
        foreign = sorted(set(os.listdir(out)) - {META, QUESTIONS})
        if foreign:
            raise UsageError(f"--out {out}: holds files voebench newton did not write ({foreign[0]}, ...)")
        if os.path.exists(os.path.join(out, META)):
            read_meta(out)  # refuses a newton.json that is not ours
    os.makedirs(out, exist_ok=True)
    meta = {"format": FORMAT, "format_version": 1, "voebench_version": __version__, **info, "counts": counts(questions)}
    for name, text in (
        (QUESTIONS, "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)),
        (META, json.dumps(meta, indent=2, ensure_ascii=False) + "\n"),
    ):
        tmp = os.path.join(out, f".{name}.tmp-{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, os.path.join(out, name))


def read_meta(root: str) -> dict:
    path = os.path.join(root, META)
    try:
        with open(path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except (OSError, ValueError):
        raise UsageError(f"{path}: unreadable or not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise UsageError(f"{path}: not a voebench NEWTON question set")
    return meta


def read_questions(root: str) -> tuple[dict, list[dict]]:
    meta = read_meta(root)
    path = os.path.join(root, QUESTIONS)
    if not os.path.isfile(path):
        raise UsageError(f"{root}: no {QUESTIONS}")
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                q = json.loads(line)
            except ValueError:
                raise UsageError(f"{path}:{n}: not JSON") from None
            missing = [k for k in ("id", "track", "texts", "labels", "answer", "position") if k not in q]
            if missing:
                raise UsageError(f"{path}:{n}: a question lacks {', '.join(missing)}")
            out.append(q)
    return meta, out


def test_name(q: dict) -> str:
    """How the generic report groups questions: track, stream (boolean, multiple_choice, likert, scenario) and
    attribute (Track 3: the scenario)."""
    return f"track{q['track']}/{q['stream']}/{q['attribute']}"


def sample(q: dict, variant: str, strategy: str) -> Sample:
    text = q["texts"][variant]
    return Sample(
        sample_id=f"{q['id']}#{variant}",
        video_id=q["id"],
        suite=SUITE,
        test=test_name(q),
        kind="choice",
        truth=q["answer"],
        polarity=q.get("polarity"),
        strategy=strategy,
        turns=[Turn(text, None)],
        index=int(str(q["id"]).rsplit("-", 1)[-1]) if str(q["id"]).rsplit("-", 1)[-1].isdigit() else 0,
        choices={"labels": list(q["labels"]), "letters": bool(q.get("letters"))},
        question=text,
        meta={"newton": newton_meta(q, variant)},
    )


def newton_meta(q: dict, variant: str) -> dict:
    """What the NEWTON metrics group and weight by (metrics.py)."""
    return {
        "question_id": q["id"],
        "track": int(q["track"]),
        "qtype": q.get("qtype"),
        "stream": q.get("stream"),
        "attribute": q.get("attribute"),
        "polarity": q.get("polarity"),
        "position": int(q["position"]),
        "n_options": len(q["labels"]),
        "agreement": q.get("agreement"),
        "variant": variant,
        "source": q.get("source", "text"),
    }


def build_samples(root: str, strategy: str, limit: int | None = None) -> tuple[list[Sample], dict]:
    """One sample per (question, prompt variant); `limit`: at most that many questions per track/stream/attribute."""
    if strategy not in STRATEGIES:
        raise UsageError(f"--strategy {strategy}: a NEWTON question set is text only; use zero-shot")
    meta, questions = read_questions(root)
    if not questions:
        raise UsageError(f"{root}: the question set is empty")
    per: Counter = Counter()
    out: list[Sample] = []
    for q in questions:
        t = test_name(q)
        if limit is not None and per[t] >= limit:
            continue
        per[t] += 1
        out.extend(sample(q, v, strategy) for v in q["texts"])
    return out, meta
