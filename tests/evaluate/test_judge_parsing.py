"""The judge reply parser reads scores as a careful reader does, or says None (evaluate/predict/judge_reply.py).

The tuning corpus tests/data/answers/judge.jsonl (schema: docs/answer-corpora.md, "judge") holds replies
written the way GPT-4o-mini, Llama-3-Instruct and Qwen2.5-Instruct judges answer, each with what a careful reader
takes it to say. The parser must agree on >= 96% of them (all three fields equal); the unit tests below pin every
failure the issue listed (-1 read as 1, echoed prompts read as 0s, restated scales read as scores, a number in the
reasoning read as Accuracy, "[4, 5]" read as 4)."""

from __future__ import annotations

import json
import pathlib

import pytest

from voebench.evaluate.predict.judge import parse_scores, reply_valid
from voebench.evaluate.predict.judge import CRITERIA, JUDGE_PROMPT
from voebench.evaluate.predict.run import summarize

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "data" / "answers" / "judge.jsonl"
FIELDS = ("specificity", "logical_consistency", "accuracy")


def _corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _agreement(parse, rows: list[dict]) -> float:
    return sum(parse(r["text"]) == r["reader"] for r in rows) / len(rows)


def test_the_corpus_follows_the_schema_and_is_varied():
    rows = _corpus()
    assert len(rows) >= 150 and len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert set(r) == {"id", "kind", "text", "reader"} and set(r["reader"]) == set(FIELDS)
        v = r["reader"]
        assert v["accuracy"] in (0, 1, None)
        assert all(v[k] is None or 0 <= v[k] <= 5 for k in ("specificity", "logical_consistency"))
    valid = [r for r in rows if None not in r["reader"].values()]
    # both valid and invalid replies, and scores spread over the scale: a parser that ignores its input fails
    assert 0.3 < len(valid) / len(rows) < 0.9
    assert {r["reader"]["specificity"] for r in valid} >= {0, 1, 2, 3, 4, 5, 3.5}
    assert len({r["kind"] for r in rows}) >= 60


def test_the_parser_agrees_with_a_careful_reader_on_the_corpus():
    rows = _corpus()
    misread = [(r["id"], r["text"][:80], r["reader"], parse_scores(r["text"])) for r in rows]
    misread = [m for m in misread if m[2] != m[3]]
    assert 1 - len(misread) / len(rows) >= 0.96, misread


def test_the_corpus_threshold_can_fail():
    # parsers that guess (the first number after each name) or give up (all None) stay below the bar
    import re

    def first_number(text: str) -> dict:
        out = {}
        for k, (pat, top) in CRITERIA.items():
            m = re.search(f"(?:{pat})" + r"\D*?(\d+(?:\.\d+)?)", text or "", re.IGNORECASE)
            v = float(m.group(1)) if m else None
            out[k] = v if v is not None and v <= top else None
        return out

    rows = _corpus()
    assert _agreement(lambda t: dict.fromkeys(FIELDS), rows) < 0.5
    assert _agreement(first_number, rows) < 0.8


def _read(reply: str) -> tuple:
    got = parse_scores(reply)
    return tuple(got[k] for k in FIELDS)


@pytest.mark.parametrize(
    "reply, want",
    [
        # the failures
        ("Specificity: -1\nLogical Consistency: 3\nAccuracy: 1", (None, 3, 1)),
        ("Specificity: score: [-1]. Logical Consistency: score: [2]. Accuracy: score: [0].", (None, 2, 0)),
        (JUDGE_PROMPT, (None, None, None)),
        ("Specificity: score: [].\n\nLogical Consistency: score: []. Accuracy: score: [].", (None, None, None)),
        ("Specificity: Score from 0 (no specific information) to 5 (comprehensive).\nAccuracy: 0 or 1.", (None,) * 3),
        ("Specificity (1-5): 4\nLogical Consistency (1-5): 5\nAccuracy (0 or 1): 1", (4, 5, 1)),
        ("Specificity [0, 5]: 4\nLogical Consistency [0, 5]: 2\nAccuracy [0, 1]: 0", (4, 2, 0)),
        ("Specificity (0-5): 4\nLogical Consistency (0-5): 3\nAccuracy (0/1): 1", (4, 3, 1)),
        ("Specificity (0-5): 4\nLogical Consistency (0-5): 3\nAccuracy (0/1): 0", (4, 3, 0)),
        (
            "Specificity: 3\nLogical Consistency: 3\nAccuracy: The prediction names 1 object correctly. Score: 0",
            (3, 3, 0),
        ),
        ("Specificity: 3\nLogical Consistency: 3\nAccuracy: The prediction names 1 object of the pair.", (3, 3, None)),
        ("Specificity: [4, 5]\nLogical Consistency: [3]\nAccuracy: [1]", (None, 3, 1)),
        ("Specificity: 3-4\nLogical Consistency: 4 to 5\nAccuracy: 1", (None, None, 1)),
        # formats
        ('{"Specificity": 4, "Logical Consistency": 3, "Accuracy": 1}', (4, 3, 1)),
        (
            '```json\n{"specificity": {"score": 2}, "logical_consistency": {"score": 5}, '
            '"accuracy": {"score": 0}}\n```',
            (2, 5, 0),
        ),
        (
            "| Criterion | Score |\n|---|---|\n| Specificity | 4 |\n| Logical Consistency | 3 |\n| Accuracy | 1 |",
            (4, 3, 1),
        ),
        ("| Specificity | Logical Consistency | Accuracy |\n|---|---|---|\n| 5 | 2 | 0 |", (5, 2, 0)),
        ("**Specificity:** 4\n**Logical Consistency:** 3\n**Accuracy:** 1", (4, 3, 1)),
        ("Specificity: 4\nLogic: 3\nAccuracy: 1", (4, 3, 1)),
        (
            "The prediction names the pair but no time.\n\nSpecificity: 3\nLogical Consistency: 4\nAccuracy: 1",
            (3, 4, 1),
        ),
        ("Specificity: 4/5\nLogical Consistency: 3 out of 5\nAccuracy: 1/1", (4, 3, 1)),
        ("Specificity: Score: [3]\nLogical Consistency: Score: [2]\nAccuracy: Score: [0]", (3, 2, 0)),
        ("Specificity: 3.5\nLogical Consistency: 4.0\nAccuracy: 1", (3.5, 4, 1)),
        ("Specificity: 8/10\nLogical Consistency: 7\nAccuracy: 0.5", (None, None, None)),
        # several mentions: a final line wins; a conflict without one is None
        (
            "Specificity: 5\nLogical Consistency: 4\nAccuracy: 1\n\n"
            "Final scores:\nSpecificity: 4\nLogical Consistency: 4\nAccuracy: 0",
            (4, 4, 0),
        ),
        (
            "Specificity: 4\nLogical Consistency: 3\nAccuracy: 1\nSpecificity: 2\nLogical Consistency: 3\nAccuracy: 0",
            (None, 3, None),
        ),
        ("Specificity: 4. It names both objects, so Specificity: 4.\nLogical Consistency: 3\nAccuracy: 1", (4, 3, 1)),
        ("", (None, None, None)),
        ("I cannot evaluate this prediction.", (None, None, None)),
    ],
)
def test_replies_are_read_or_refused(reply, want):
    assert _read(reply) == want


def test_scores_are_ints_unless_half_points():
    got = parse_scores("Specificity: 4.0\nLogical Consistency: 2.5\nAccuracy: 1.0")
    assert got == {"specificity": 4, "logical_consistency": 2.5, "accuracy": 1}
    assert isinstance(got["specificity"], int) and isinstance(got["accuracy"], int)


def test_reply_valid_needs_all_three_scores():
    assert reply_valid({"specificity": 0, "logical_consistency": 0, "accuracy": 0})
    assert not reply_valid({"specificity": 4, "logical_consistency": None, "accuracy": 1})
    assert not reply_valid({}) and not reply_valid(None)


def test_predict_summary_counts_malformed_replies_invalid():
    from voebench.evaluate.predict.exact import Score

    right = Score(tp=1, fp=0, fn=0, precision=1.0, recall=1.0, f1=1.0, outcome_correct=True, strict=True).as_dict()
    replies = [
        "Specificity: 4\nLogical Consistency: 3\nAccuracy: 1",
        "Specificity: [4, 5]\nLogical Consistency: 3\nAccuracy: 1",  # a conflict
        JUDGE_PROMPT,  # an echo
        "Specificity: -1\nLogical Consistency: 2\nAccuracy: 0",
    ]
    records = [
        {
            "kind": "collision",
            "form": "image",
            "temperature": 0.0,
            "sample_id": f"clip{k}",
            "exact": right,
            "judge_scores": parse_scores(text),
        }
        for k, text in enumerate(replies)
    ]
    judge = summarize(records)["groups"][0]["judge"]
    assert judge["invalid"] == pytest.approx(0.75)  # only the first reply gives all three scores
    assert judge["agreement"]["n"] == 1
    assert judge["specificity_invalid"] == pytest.approx(0.75) and judge["accuracy_invalid"] == pytest.approx(0.25)


#: the two spent held-out sets (measured once, then opened for fixes) are regression corpora now
HELDOUT = [CORPUS.parent / "heldout" / "judge.jsonl", CORPUS.parent / "heldout" / "second" / "judge.jsonl"]


def test_the_parser_agrees_with_the_readers_of_the_spent_heldout_sets():
    rows = [json.loads(line) for p in HELDOUT for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 150
    misread = [(r["id"], r["text"][:80], r["reader"], parse_scores(r["text"])) for r in rows]
    misread = [m for m in misread if m[2] != m[3]]
    assert 1 - len(misread) / len(rows) >= 0.96, misread
    # never three valid scores where the reader finds one missing or invalid
    assert not [m for m in misread if None in m[2].values() and None not in m[3].values()], misread


def test_a_nested_list_of_different_scores_is_no_score():
    """Held-out set 3 (h3-j-084, read after its one measurement): "[[4], [3]]" gives two scores, not the first."""
    got = parse_scores(
        "Specificity: score: [[4], [3]]. Logical Consistency: score: [[3], [3]]. Accuracy: score: [[1], [0]]."
    )
    assert got["specificity"] is None and got["accuracy"] is None and not reply_valid(got)
    ok = parse_scores("Specificity: [4] (detailed)\nLogical Consistency: (3, since 2 objects move)\nAccuracy: 1")
    assert ok == {"specificity": 4, "logical_consistency": 3, "accuracy": 1}  # a reason's number is not a list
