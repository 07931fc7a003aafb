"""The careful yes/no reader (evaluate/verdict.py) and the report section that prints it beside GRASP's rule
(evaluate/careful.py): the rules on named cases, the tuning corpus (tests/data/answers/binary.jsonl) with no verdict
opposite to its reader's, and the numbers of the report section on a run of stored answers."""

from __future__ import annotations

import json
import os

import pytest

from voebench.evaluate import careful, report
from voebench.evaluate.verdict import read_verdict

ANSWERS = os.path.join(os.path.dirname(__file__), "..", "data", "answers")
CORPUS = os.path.join(ANSWERS, "binary.jsonl")
#: held-out set 1, spent: measured once (bench/results/binary-heldout-agreement.txt), then opened for fixes
SPENT = os.path.join(ANSWERS, "heldout", "binary", "binary.jsonl")
#: its answers a careful reader takes as no verdict (or the other one) that the reader still reads: each needs what
#: the video shows or which question it answers ("Yes, all objects have the same density." answers the assumption)
KNOWN_WRONG: set[str] = set()
#: held-out set 2, spent likewise (bench/results/binary-heldout2-agreement.txt); "Yes, the ball is red." answers
#: another question than "Is the ball moving to the left?", which only the question's meaning tells
SPENT2 = os.path.join(ANSWERS, "heldout", "binary2", "binary.jsonl")
KNOWN_WRONG2 = {"hbin2-226", "hbin2-227", "hbin2-231"}
#: held-out set 3, spent likewise (bench/results/binary-heldout3-agreement.txt)
SPENT3 = os.path.join(ANSWERS, "heldout", "binary3", "binary.jsonl")


@pytest.mark.parametrize(
    ("text", "plausibility", "verdict"),
    [
        ("Yes", False, "yes"),
        ("no.", False, "no"),
        ("- Yes", False, "yes"),
        ("**No**", False, "no"),
        ("The answer is no.", False, "no"),
        ("Answer: Yes", False, "yes"),
        ("Therefore, the answer is: No.", True, "no"),
        ("I think yes", False, "yes"),
        ("I don't think so.", True, "no"),
        ("Probably not.", True, "no"),
        ("Implausible.", True, "no"),
        ("It is not implausible.", True, "yes"),
        ("I don't think it's plausible.", True, "no"),
        ("No doubt, it is plausible.", True, "yes"),
        ("Yes, the ball should have fallen, so this is not plausible.", True, "no"),
        ("Yes. Wait, the ball passes through the wall, so no.", True, "no"),
        ("Is the outcome plausible? No.", True, "no"),
        ("<think>The ball stops mid-air.</think> No", True, "no"),
        ('{"answer": "yes"}', True, "yes"),
        ("Answer only with yes or no. Yes.", True, "yes"),
        ("答案：是", False, "yes"),
        ("Yes and no.", True, None),
        ("Yes/No", False, None),
        ("No, it is plausible.", True, None),
        ("The ball rolls down the ramp.", True, None),
        ("<think>The ball rolls and then", True, None),
        ("I cannot view videos.", True, None),
        ("It is hard to say yes or no.", True, None),
        ("", False, None),
        (None, False, None),
        ("There is no ball in the video.", False, None),
        ("A plausible outcome would be that the ball falls.", True, None),
        ("It is impossible to tell.", True, None),
        ("It is possible that the ball bounced.", True, None),
        ("There's no way this is plausible.", True, "no"),
        ("It can't be plausible.", True, "no"),
        ("It wouldn't be plausible.", True, None),
        ("I wouldn't say it's plausible.", True, "no"),
        ("It's not possible for a ball to stay in mid-air.", True, "no"),
        ("Nothing about the ball's path is unrealistic.", True, "yes"),
        ("Nothing supports the ball, so it is implausible.", True, "no"),
        ("No, the simulation quality is poor.", True, None),
        (
            "Question: Is this true?\nAnswer: yes\nNext, I want you to answer my next question in the same way with "
            "regards to the next video.",
            False,
            None,
        ),
        ("<think>So the answer is no.</think>", True, "no"),
        ("\\boxed{Yes}", False, "yes"),
        ("❌ No", False, "no"),
        ("Yes No Yes No", False, None),
        ("Yes, well, the cube hovers without support, which is impossible.", True, "no"),
        ("Plausible. Actually, let me look again.", True, None),
        ("Verdict: implausible. Answer: Yes.", True, None),
        ("Answer: yes\nFor this video, the answer is no.", False, "no"),
        ('{"answer": "no", "plausible": true}', True, None),
        ('{"result": {"verdict": "implausible"}}', True, "no"),
        ("Yesss", False, "yes"),
        ("- [ ] Yes\n- [x] No", False, "no"),
        ("It's impossible for me to tell without the full clip.", True, None),
        ("Yes, I can help with that! However, I'm unable to process video content.", True, None),
        ("Plausible and implausible at the same time.", True, None),
        ("Don't think so, no.", True, "no"),
        ("I wouldn't say that's true.", False, "no"),
        ("Yes, the ball is moving. Whether its trajectory is plausible, I can't say.", True, None),
        ("Hard to say, but I lean towards no.", True, "no"),
        ("Part of it is plausible, part of it isn't.", True, None),
        ("Answer: no\n\nAnswer: yes", False, "yes"),
        ("◁think▷The ball bounces.◁/think▷No", True, "no"),
    ],
)
def test_rules(text, plausibility, verdict):
    assert read_verdict(text, plausibility) == verdict


@pytest.mark.parametrize(
    ("text", "question", "verdict"),
    [
        ("True, the ball is not green.", "The ball on the table is green. Is this true?", None),
        ("True, the ball is green.", "The ball on the table is green. Is this true?", "yes"),
        ("No, the ball is not green.", "The ball on the table is green. Is this true?", "no"),
        ("False, the ball is indeed green.", "The ball on the table is green. Is this true?", None),
        ("No, the ball is not moving.", "The ball is not moving. Is this true?", None),
        ("No, it is red.", "The ball on the table is green. Is this true?", "no"),
    ],
)
def test_a_clause_that_restates_the_statement_must_agree(text, question, verdict):
    assert read_verdict(text, False, question) == verdict


def test_a_clause_about_the_premises_answers_them_not_the_question():
    q = (
        "The video you're seeing was generated by a simulator. Given how objects behave on earth, is the final "
        "position of the ball plausible? Answer only with yes or no."
    )
    assert read_verdict("Yes, the video was generated by a simulator.", True, q) is None
    assert read_verdict("Yes, the video was generated by a simulator.", True) == "yes"  # without the question
    assert read_verdict("Yes, the ball stops where it should.", True, q) == "yes"
    assert read_verdict("Yes, the final position of the ball is plausible.", True, q) == "yes"


def test_adjectives_only_for_plausibility_questions():
    assert read_verdict("It is plausible.", plausibility=True) == "yes"
    assert read_verdict("It is plausible.", plausibility=False) is None


def _corpus(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.mark.parametrize(
    ("path", "known_wrong", "least"),
    [(CORPUS, set(), 0.95), (SPENT, KNOWN_WRONG, 0.93), (SPENT2, KNOWN_WRONG2, 0.9), (SPENT3, set(), 0.93)],
)
def test_corpora_never_read_a_verdict_the_reader_does_not(path, known_wrong, least):
    rows = _corpus(path)
    assert len(rows) >= 200
    got = {r["id"]: read_verdict(r["text"], r["qtype"] == "plausibility", r["question"]) for r in rows}
    wrong = {r["id"] for r in rows if got[r["id"]] is not None and got[r["id"]] != r["reader"]}
    assert wrong == known_wrong
    agree = sum(got[r["id"]] == r["reader"] for r in rows)
    assert agree / len(rows) >= least


def _record(i: int, test: str, truth: str, response: str | None) -> dict:
    from voebench.evaluate.parsing import parse_binary

    p = parse_binary(response, truth)
    return {
        "suite": "grasp_l2",
        "test": test,
        "kind": "plausibility",
        "strategy": "video",
        "sample_id": f"{test}-{i}#q",
        "video_id": f"{test}-{i}",
        "pair_id": f"{test}-p{i // 2}",
        "polarity": "positive" if truth == "yes" else "negative",
        "truth": truth,
        "response": response,
        "repeat": 0,
        **p.as_dict(),
    }


def test_report_section_counts(tmp_path):
    answers = [
        ("yes", "Yes"),  # both credit
        ("no", "Yes and no"),  # first word: yes (wrong); careful: unparsed
        ("yes", "Yes and no"),  # first word credits it, careful withholds: 1 withheld
        ("no", "- No"),  # first word invalid, careful credits: 1 added
        ("yes", "The answer is yes."),  # first word invalid, careful credits: 1 added
        ("no", "No."),  # both credit
    ]
    recs = [_record(i, f"t{i % 2}", truth, text) for i, (truth, text) in enumerate(answers)]
    run = tmp_path / "run"
    run.mkdir()
    (run / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    (run / "run.json").write_text(json.dumps({"model": "replay", "strategy": "video"}), encoding="utf-8")
    res = report.write_report(str(run), n_boot=200)
    (row,) = res["careful"]
    assert row["n"] == 6 and row["read_differently"] == 4
    assert row["credit_withheld"] == 1 and row["credit_added"] == 2
    assert row["first_word_invalid"] == pytest.approx(2 / 6) and row["careful_unparsed"] == pytest.approx(2 / 6)
    # per test: t0 = answers 0, 2, 4 (careful: yes, unparsed, yes -> 2/3); t1 = 1, 3, 5 (unparsed, no, no -> 2/3)
    assert row["careful_acc"] == pytest.approx(2 / 3)
    # first word: t0 yes, yes, invalid -> 2/3; t1 yes (wrong), invalid, no -> 1/3
    assert row["first_word_acc"] == pytest.approx(0.5)
    assert row["interval"]["resampled"]
    md = (run / "report.md").read_text(encoding="utf-8")
    assert "## Yes/no answers read by a careful reader" in md and "| 66.7 |" in md


def test_no_section_without_yes_no_answers_or_for_human_panels():
    assert careful.summarize([], lambda recs: report.suite_interval(recs)) is None
    rec = _record(0, "t0", "yes", "yes") | {"participant": "P001"}
    assert careful.summarize([rec], lambda recs: report.suite_interval(recs)) is None
    assert careful.markdown(None) == ""
