"""Choice answers (NEWTON's options, the rendered `newton` suite) are read as a careful reader does, or invalid
(evaluate/newton/choice.py), and the lmms-eval export scores them with that very module, copied verbatim.

The tuning corpus tests/data/answers/choice.jsonl (schema: docs/answer-corpora.md, "choice") holds answers
written the way VLMs answer (True/False, object names, lettered Likert options, a few two-way event questions),
each with the option a careful reader takes it to pick (null: none or several). The reader must agree on >= 95%."""

from __future__ import annotations

import filecmp
import json
import pathlib
import subprocess
import sys

import pytest

from voebench.evaluate.newton.answers import parse_choice, pick
from voebench.evaluate.newton.choice import read_choice
from voebench.evaluate.parsing import INVALID

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "answers" / "choice.jsonl"


def _corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _agreement(read, rows: list[dict]) -> float:
    return sum(read(r["text"], r["labels"], r["letters"]) == r["reader"] for r in rows) / len(rows)


def test_the_corpus_follows_the_schema_and_is_varied():
    rows = _corpus()
    assert len(rows) >= 150 and len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert set(r) == {"id", "kind", "task", "labels", "letters", "text", "reader"}
        assert r["reader"] is None or r["reader"] in r["labels"]
        assert r["task"] in ("newton", "event") and (r["task"] == "newton" or r["letters"])
    kinds = {tuple(r["labels"]) for r in rows}
    assert {("True", "False"), ("No", "Somewhat", "Yes"), ("A", "B")} <= kinds
    assert any(len(k) == 2 and k[0] not in ("True", "A") for k in kinds)  # object names
    nulls = sum(r["reader"] is None for r in rows) / len(rows)
    assert 0.1 < nulls < 0.4  # a reader that always answers, or never does, fails


def test_the_reader_agrees_with_a_careful_reader_on_the_corpus():
    rows = _corpus()
    misread = [(r["id"], r["text"][:80], r["reader"], read_choice(r["text"], r["labels"], r["letters"])) for r in rows]
    misread = [m for m in misread if m[2] != m[3]]
    assert 1 - len(misread) / len(rows) >= 0.95, misread


def test_the_corpus_threshold_can_fail():
    def first_label(text, labels, letters):  # the first label named anywhere, as a naive reader would take it
        low = (text or "").lower()
        at = [(low.find(lab.lower()), lab) for lab in labels if lab.lower() in low]
        return min(at)[1] if at else None

    rows = _corpus()
    assert _agreement(lambda *a: None, rows) < 0.5
    assert _agreement(first_label, rows) < 0.8


TF = ["True", "False"]
OBJ = ["red ball", "baseball bat"]
BALLS = ["the red ball", "the green ball", "the blue ball"]
LIKERT = ["No", "Somewhat", "Yes"]


@pytest.mark.parametrize(
    "labels, letters, text, want",
    [
        # negations of True/False and of objects
        (TF, False, "Not true.", "False"),
        (TF, False, "That isn’t true.", "False"),
        (TF, False, "not false", "True"),
        (TF, False, "True, not false.", "True"),
        (TF, False, "This is untrue.", "False"),
        (OBJ, False, "It is not the red ball, it's the bat.", "baseball bat"),
        (OBJ, False, "not the red ball, the bat", "baseball bat"),
        (OBJ, False, "Not the red ball.", "baseball bat"),  # one of two denied: the other
        (BALLS, False, "Not the red ball.", None),  # one of three denied: no pick
        (OBJ, False, "Neither the red ball nor the baseball bat.", None),
        (OBJ, False, "The baseball bat is heavier than the red ball.", "baseball bat"),
        # letters
        (LIKERT, True, "The answer is c", "Yes"),
        (LIKERT, True, "Answer: c", "Yes"),
        (LIKERT, True, "(c)", "Yes"),
        (LIKERT, True, "**C**", "Yes"),
        (LIKERT, True, "c) Yes", "Yes"),
        (LIKERT, True, "Option C", "Yes"),
        (LIKERT, True, "A", "No"),
        (LIKERT, True, "A glass cup breaks easily, so Yes.", "Yes"),  # the article, not option a
        (LIKERT, True, "A bit.", None),
        (LIKERT, True, "d", None),  # not offered
        (TF, False, "a", None),  # letters only where the options are lettered
        # several options named
        (OBJ, False, "red ball or baseball bat", None),
        (OBJ, False, "Between the bat and the ball, the bat.", "baseball bat"),
        (OBJ, False, "Between the red ball and the baseball bat, the baseball bat is heavier.", "baseball bat"),
        (LIKERT, True, "b or c", None),
        (LIKERT, True, "Yes, somewhat.", None),
        # reasoning, then a final answer
        (LIKERT, True, "Let's think. Steel is rigid and does not bend back.\nAnswer: a", "No"),
        (TF, False, "Rubber is elastic and wood is not. Therefore the statement is true.", "True"),
        (
            OBJ,
            False,
            "The red ball is rubber, the bat is wood; wood is harder, so the answer is the baseball bat.",
            "baseball bat",
        ),
        (LIKERT, True, "Final answer: \\boxed{C}", "Yes"),
        (LIKERT, True, '{"answer": "b"}', "Somewhat"),
        (LIKERT, True, "Réponse : c", "Yes"),
        (LIKERT, True, "i think it's c", "Yes"),
        (BALLS, False, "- the red ball\n- the green ball\n- the blue ball", None),  # a bare list picks none
        (BALLS, False, "The green ball bounces higher than the red ball and the blue ball.", "the green ball"),
        (TF, False, "", None),
        (TF, False, None, None),
    ],
)
def test_answers_are_read_or_refused(labels, letters, text, want):
    assert read_choice(text, labels, letters) == want
    assert pick(text, labels, letters) == (INVALID if want is None else want)


def test_parse_choice_scores_the_pick():
    choices = {"labels": TF, "letters": False}
    assert parse_choice("Not true.", "False", choices).as_dict() == {"parsed": "False", "valid": True, "correct": True}
    assert parse_choice("Not true.", "True", choices).as_dict() == {"parsed": "False", "valid": True, "correct": False}
    assert parse_choice("True or false", "True", choices).as_dict() == {
        "parsed": INVALID,
        "valid": False,
        "correct": False,
    }
    with pytest.raises(ValueError):
        parse_choice("True", "Maybe", choices)


# ------------------------------------------------------------------------------------------------ the lmms-eval copy

REPLIES = [  # replies of every reading kind, one per repeat
    "{truth}",
    "Not {other}.",
    "It is not {truth}, it's {other}.",
    "Let me think about it. The answer is {truth}.",
    "{truth} or {other}",
    "Answer: {truth}",
    "",
    "Between {truth} and {other}, {other}.",
]


def test_the_export_copies_the_reader_and_scores_as_the_report_does(tmp_path):
    """`voebench export lmms-eval` writes evaluate/newton/choice.py verbatim next to utils.py, and the exported hooks,
    run without voebench importable (python -I -S), give every reply the score `voebench evaluate` gives it; the
    report's accuracy per test is their mean."""
    from test_export_parser import make_newton_set

    from voebench.cli import main

    dataset = make_newton_set(tmp_path / "set")
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", dataset, "--out", str(out), "--name", "voe_newton"]) == 0
    assert filecmp.cmp(out / "newton_choice.py", ROOT / "evaluate" / "newton" / "choice.py", shallow=False)
    assert filecmp.cmp(out / "voebench_verdict.py", ROOT / "evaluate" / "verdict.py", shallow=False)
    assert "def _spans" not in (out / "utils.py").read_text()  # no hand-made second copy of the rules
    docs = [json.loads(line) for line in (out / "data.jsonl").read_text().splitlines()]

    per_doc = {}
    for d in docs:
        labels = json.loads(d["choices"])["labels"]
        other = next(lab for lab in labels if lab != d["answer"])
        per_doc[d["id"]] = [r.format(truth=d["answer"], other=other) for r in REPLIES]
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": sid, "repeat": k, "response": text}) + "\n"
            for sid, texts in per_doc.items()
            for k, text in enumerate(texts)
        )
    )
    run = tmp_path / "run"
    argv = ["evaluate", dataset, "--model", f"replay:{replies}", "--out", str(run), "--repeats", str(len(REPLIES))]
    assert main([*argv, "--no-progress"]) == 0
    assert main(["report", str(run)]) == 0
    records = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]

    # the exported hooks in a bare interpreter: no voebench on the path, only the task folder
    code = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import utils\n"
        "assert 'voebench' not in sys.modules\n"
        "for line in sys.stdin:\n"
        "    doc, reply = json.loads(line)\n"
        "    print(json.dumps(utils.process_results(doc, [reply])))\n"
    )
    doc_by_id = {d["id"]: d for d in docs}
    stdin = "".join(
        json.dumps([doc_by_id[r["sample_id"]], per_doc[r["sample_id"]][r["repeat"]]]) + "\n" for r in records
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(out)], input=stdin, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    theirs = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(theirs) == len(records)
    by_test: dict[str, list[float]] = {}
    for rec, got in zip(records, theirs):
        acc, invalid = float(rec["correct"]), float(not rec["valid"])
        pooled = {"grasp_acc": acc, "grasp_invalid": invalid}
        assert got == {**pooled, "grasp_acc_choice": acc, "grasp_invalid_choice": invalid}, rec
        by_test.setdefault(doc_by_id[rec["sample_id"]]["test"], []).append(got["grasp_acc"])
    assert {float(r["correct"]) for r in records} == {0.0, 1.0} and any(not r["valid"] for r in records)

    results = json.loads((run / "results.json").read_text())
    rows = [r for r in results["tests"] if r["suite"] == "newton"]
    assert {r["test"] for r in rows} == set(by_test)
    for row in rows:
        assert row["acc"] == pytest.approx(sum(by_test[row["test"]]) / len(by_test[row["test"]]))


#: the two spent held-out sets (measured once, then opened for fixes) are regression corpora now
HELDOUT = [CORPUS.parent / "heldout" / "choice.jsonl", CORPUS.parent / "heldout" / "second" / "choice.jsonl"]
HELDOUT_DISPUTES: dict[str, str] = {}  # none left: 'c) Low' with c) = High is now invalid, as both labellers read it


def test_the_readers_agree_with_the_readers_of_the_spent_heldout_sets():
    """NEWTON questions through `read_choice`, two-way event questions through `exact.choice_letter`."""
    from voebench.evaluate.predict.exact import choice_letter

    rows = [json.loads(line) for p in HELDOUT for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r["id"] not in HELDOUT_DISPUTES]
    assert len(rows) >= 150
    got = [
        choice_letter(r["text"]) if r["task"] == "event" else read_choice(r["text"], r["labels"], r["letters"])
        for r in rows
    ]
    misread = [(r["id"], r["text"][:80], r["reader"], g) for r, g in zip(rows, got) if g != r["reader"]]
    assert 1 - len(misread) / len(rows) >= 0.95, misread
    assert not [m for m in misread if m[3] is not None], misread  # a wrong pick, not just an unread answer


@pytest.mark.parametrize("text", ["c) Low", "a) Yes", "(c) Moderate"])
def test_a_letter_and_a_word_naming_different_options_pick_neither(text):
    """Both independent labellers of held-out sets 2 and 3 read "c) Low" (c = High) as no pick: either could be
    meant. Read after set 3's one measurement."""
    labels = ["Low", "Moderate", "High"] if "Low" in text or "Moderate" in text else ["No", "Somewhat", "Yes"]
    assert read_choice(text, labels, True) is None
    assert read_choice(text.split(")")[0] + ") " + labels[ord(text.strip("(")[0]) - 97], labels, True) is not None
