"""How the predict exact scorer reads free-text answers (evaluate/predict/exact.py): the labelled tuning corpus
(tests/data/answers/predict.jsonl, docs/predict.md) read as its careful reader did, with no full credit to an
answer that names a wrong pair or denies a true one; one test per kind of answer that used to be misread; the
unparsed outcome; the structured COLLISIONS line (strict reading, and end to end through `voebench predict
--prompt both`); the two-way event letters."""

from __future__ import annotations

import json
import os

import pytest
from conftest import voebench
from test_predict_eval import SCENES, predict_set  # noqa: F401  (the hand-written predict set fixture)

from voebench.evaluate.predict import exact

CORPUS = os.path.join(os.path.dirname(__file__), "..", "data", "answers", "predict.jsonl")
LABELS = ["red cube", "blue sphere", "green cylinder"]
RB = {frozenset({"red cube", "blue sphere"})}


def _pairs(xs) -> set:
    return {frozenset(x) for x in xs}


def agreement(rows: list[dict]) -> tuple[float, list[str], list[str]]:
    """Share of answers read as the reader did (same status, same pairs), the ids that differ, and the ids given
    strict (full) credit although the reader's pairs are not exactly the truth (or the reader found no
    prediction)."""
    wrong, unsafe = [], []
    for r in rows:
        parsed, sc = exact.score(r["text"], r["labels"], r["truth"])
        rd = r["reader"]
        if parsed.status != rd["status"] or parsed.pairs != _pairs(rd["pairs"]):
            wrong.append(r["id"])
        reader_right = rd["status"] != "unreadable" and _pairs(rd["pairs"]) == _pairs(r["truth"])
        if sc.strict and not reader_right:
            unsafe.append(r["id"])
    return 1 - len(wrong) / len(rows), wrong, unsafe


def corpus() -> list[dict]:
    with open(CORPUS, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_the_tuning_corpus_follows_the_schema():
    rows = corpus()
    assert len(rows) >= 250
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        rd = r["reader"]
        assert rd["status"] in exact.STATUSES
        assert (rd["status"] == "pairs") == bool(rd["pairs"]), r["id"]
        assert not {x for p in rd["pairs"] for x in p} & set(rd["unhit"]), r["id"]
        assert 2 <= len(r["labels"]) <= 6 and r["kind"] and isinstance(r["text"], str)


def test_the_exact_scorer_reads_the_tuning_corpus_as_its_reader_did():
    """>= 95% agreement (status and pairs) and no unsafe full credit (docs/predict.md states the measured rate)."""
    rate, wrong, unsafe = agreement(corpus())
    assert rate >= 0.95, f"agreement {rate:.3f}; misread: {wrong}"
    assert not unsafe, f"strict credit for answers whose reader saw a wrong or missing pair: {unsafe}"


def test_the_agreement_check_can_fail():
    """A corrupted label and a wrongly credited answer are both caught by the same check."""
    rows = [r for r in corpus() if r["reader"]["status"] == "pairs"][:20]
    flipped = [dict(r, reader={**r["reader"], "status": "none", "pairs": []}) for r in rows]
    rate, wrong, _ = agreement(flipped)
    assert rate == 0.0 and len(wrong) == len(rows)
    # the reader sees a wrong pair that the text hides from a parser only looking at the truth: strict must not hold
    row = {
        "id": "x",
        "labels": LABELS,
        "truth": [["red cube", "blue sphere"]],
        "text": "The red cube will hit the blue sphere.",
        "reader": {"status": "pairs", "pairs": [["red cube", "green cylinder"]], "unhit": []},
    }
    _, _, unsafe = agreement([row])
    assert unsafe == ["x"]


# ------------------------------------------------------------------------------------------------- each kind


def read(text: str, labels=LABELS):
    p = exact.parse(text, labels)
    return p.status, p.pairs, p.unhit


@pytest.mark.parametrize("apostrophe", ["\u2019", "'", "\u02bc", "\u2032"])
def test_negations_with_every_apostrophe(apostrophe):
    status, pairs, unhit = read(f"The red cube will hit the blue sphere. The green cylinder won{apostrophe}t be hit.")
    assert (status, pairs, unhit) == ("pairs", RB, {"green cylinder"})


@pytest.mark.parametrize(
    "text",
    [
        "The red cube cannot reach the blue sphere.",
        "The red cube is unlikely to hit the blue sphere.",
        "The red cube fails to reach the blue sphere.",
        "The red cube will nearly hit the blue sphere.",
        "The red cube will stop just before reaching the blue sphere.",
    ],
)
def test_denials_are_not_pairs(text):
    status, pairs, _ = read(text + " The green cylinder will continue unscathed.")
    assert pairs == set() and status == "none"


def test_a_negation_does_not_leak_across_and():
    text = "The red cube will not hit the blue sphere, and the green cylinder will hit the red cube."
    status, pairs, unhit = read(text)
    assert pairs == {frozenset({"green cylinder", "red cube"})} and unhit == {"blue sphere"}


def test_leaving_untouched_and_without_slowing():
    assert read("The red cube will crash into the blue sphere, leaving the green cylinder untouched.") == (
        "pairs",
        RB,
        {"green cylinder"},
    )
    assert read("The red cube keeps going without slowing down and hits the blue sphere.")[1] == RB


def test_parentheses_and_no_doubt():
    assert read("The red cube (moving right) will hit the blue sphere (the green cylinder is not touched).") == (
        "pairs",
        RB,
        {"green cylinder"},
    )
    assert read("No doubt the red cube will collide with the blue sphere.")[1] == RB


@pytest.mark.parametrize(
    "text",
    [
        "The red cube will slam into the blue sphere.",
        "The red cube will bounce off the blue sphere.",
        "The red cube will graze the blue sphere.",
        "The red cube and the blue sphere will make contact.",
        "The blue sphere will be knocked by the red cube.",
        "red cube -> blue sphere",
        "- **Red cube** \u2192 **blue sphere**",
    ],
)
def test_collision_verbs_passive_and_arrows(text):
    assert read(text)[:2] == ("pairs", RB)


def test_chains_give_every_link():
    chain = {frozenset({"red cube", "blue sphere"}), frozenset({"blue sphere", "green cylinder"})}
    assert read("The red cube hits the blue sphere, which then hits the green cylinder.")[1] == chain
    assert read("The red cube will push the blue sphere into the green cylinder.")[1] == chain


def test_alternatives_give_both_pairs():
    both = {frozenset({"red cube", "blue sphere"}), frozenset({"red cube", "green cylinder"})}
    assert read("The red cube may collide with the blue sphere; alternatively with the green cylinder.")[1] == both


def test_group_names_are_resolved_or_unreadable():
    cubes = ["green cube", "blue cube", "red sphere"]
    assert read("The two cubes will collide.", cubes)[1] == {frozenset({"green cube", "blue cube"})}
    assert read("The red and blue objects will collide.")[1] == RB
    assert read("The two cubes will collide.")[0] == "unreadable"  # one cube in the scene: no reading
    assert read("The cylinder will hit the sphere.", ["purple sphere", "yellow cylinder", "white cylinder"])[0] == (
        "unreadable"
    )


def test_questions_and_reasoning_are_not_predictions():
    assert read("Could the green cylinder hit the red cube?")[0] == "unreadable"
    assert read("The paths of the red cube and the blue sphere intersect.")[0] == "unreadable"
    assert read("The red cube is moving toward the blue sphere.")[0] == "unreadable"
    assert read("Could the green cylinder hit the red cube? No. The red cube hits the blue sphere.")[1] == RB


def test_json_tables_and_a_final_answer():
    assert read('{"collisions": [["red cube", "blue sphere"]], "unscathed": ["green cylinder"]}') == (
        "pairs",
        RB,
        {"green cylinder"},
    )
    table = "| A | B | Collide? |\n|---|---|---|\n| red cube | blue sphere | yes |\n| red cube | green cylinder | no |"
    assert read(table)[:2] == ("pairs", RB)
    cot = "The green cylinder might hit the blue sphere at first.\nFinal answer: the red cube hits the blue sphere."
    assert read(cot)[1] == RB


def test_the_others_stay_unscathed():
    assert read("1. The red cube will hit the blue sphere.\n2. The others remain unscathed.")[2] == {"green cylinder"}


def test_other_languages_punctuation():
    full_width = "1\uff0eThe red cube will hit the blue sphere\u3002\n2\uff0eThe green cylinder won\u2019t be hit\u3002"
    assert read(full_width) == (
        "pairs",
        RB,
        {"green cylinder"},
    )
    quoted = "\u00abThe red cube will hit the blue sphere\u00bb\uff0cthe green cylinder stays untouched\u3002"
    assert read(quoted)[1] == RB


def test_unreadable_answers_get_no_credit():
    for text in ["", "I'm sorry, I cannot determine that.", "The red cube hits the blue sphere. The blue sphere is "
                 "unscathed.", "No two objects will collide. The red cube hits the blue sphere."]:  # fmt: skip
        parsed, sc = exact.score(text, LABELS, [["red cube", "blue sphere"]])
        assert parsed.status == "unreadable" and sc.unparsed
        assert (sc.f1, sc.strict, sc.outcome_correct) == (0.0, False, False)
    agg = exact.aggregate([exact.score("", LABELS, [])[1], exact.score("No collision.", LABELS, [])[1]])
    assert agg["unparsed_rate"] == 0.5 and agg["strict"] == 0.5


def test_no_full_credit_for_denying_a_true_pair_among_alternatives():
    _, sc = exact.score(
        "1. The red cube will hit the blue sphere.\n2. The red cube will miss the blue sphere.",
        LABELS,
        [["red cube", "blue sphere"]],
    )
    assert not sc.strict
    _, sc = exact.score(
        "1. The red cube hits the blue sphere.\n2. The red cube passes behind the blue sphere.",
        LABELS,
        [["red cube", "blue sphere"]],
    )
    assert not sc.strict


def test_answered_questions_and_verdict_lines():
    assert read("Will the red cube hit the blue sphere? Yes.")[:2] == ("pairs", RB)
    assert read("Will the red cube hit the blue sphere? No.")[:2] == ("none", set())
    assert read("Red cube and blue sphere: yes.\nBlue sphere and green cylinder: no.")[:2] == ("pairs", RB)
    two = read("The red cube and the blue sphere will collide, as will the green cylinder and the white cylinder.",
               LABELS + ["white cylinder"])[1]  # fmt: skip
    assert two == RB | {frozenset({"green cylinder", "white cylinder"})}


def test_the_fake_models_answers_are_read_back_exactly():
    """describe_pairs (what fake:oracle / fake:random answer) read back gives its pairs, for every subset of pairs
    of a four-object scene, under both prompts."""
    import itertools

    from voebench.evaluate.predict.queries import describe_pairs, structured_line

    labels = ["yellow sphere", "white cube", "purple cylinder", "red sphere"]
    every = list(itertools.combinations(labels, 2))
    for k in range(len(every) + 1):
        for pairs in itertools.combinations(every, k):
            text = describe_pairs([list(p) for p in pairs], labels)
            assert exact.parse(text, labels).pairs == _pairs(pairs), text
            structured = text + "\n" + structured_line([list(p) for p in pairs])
            assert exact.parse(structured, labels, structured=True).pairs == _pairs(pairs)


def test_any_text_gets_a_reading_and_never_a_traceback():
    """Token soup (colours, shapes, negations, markup, JSON and table characters): a status, never an exception."""
    import random

    words = (  # noqa: SIM905 - a token soup reads better as one string
        "the red blue green yellow purple orange cube sphere cylinder ball box can hit hits collide won't not no "
        'none all others and , ; . ? : - -> | ** { } [ ] " ( ) 1. 2. \n which it they may unscathed miss between '
        "final answer: COLLISIONS: + except already will A B"
    ).split(" ")
    rng = random.Random(23)
    labels = ["red cube", "blue sphere", "green cylinder", "white cylinder"]
    for _ in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))
        for structured in (False, True):
            parsed, sc = exact.score(text, labels, [["red cube", "blue sphere"]], structured=structured)
            assert parsed.status in exact.STATUSES and sc.unparsed == (parsed.status == "unreadable")
            assert not sc.strict or parsed.pairs == RB
        assert exact.choice_letter(text) in ("A", "B", None)


# ------------------------------------------------------------------------------------------------- structured line


def test_the_structured_line_is_read_strictly_and_wins():
    text = "I think the green cylinder is hit.\nCOLLISIONS: red cube + blue sphere"
    assert exact.parse(text, LABELS, structured=True).pairs == RB
    assert exact.parse(text, LABELS).pairs == RB  # a well-formed line wins under the seed prompt too
    assert exact.parse("Nothing.\nCOLLISIONS: none", LABELS, structured=True).status == "none"
    assert exact.parse("**COLLISIONS:** red cube + blue sphere", LABELS, structured=True).pairs == RB
    two = exact.parse("COLLISIONS: red cube + blue sphere; blue sphere + green cylinder", LABELS, structured=True)
    assert len(two.pairs) == 2
    wrong = exact.parse("COLLISIONS: red cylinder + blue sphere", LABELS, structured=True)
    assert wrong.pairs == {frozenset({"red cylinder", "blue sphere"})}  # a wrong object stays wrong


@pytest.mark.parametrize(
    "text",
    [
        "The red cube will hit the blue sphere.",  # no line
        "COLLISIONS: the red one hits the blue one",  # not "<colour> <shape> + <colour> <shape>"
        "COLLISIONS: red cube + blue sphere + green cylinder",
        "COLLISIONS:",
    ],
)
def test_a_missing_or_malformed_structured_line_is_unparsed(text):
    parsed, sc = exact.score(text, LABELS, [["red cube", "blue sphere"]], structured=True)
    assert parsed.status == "unreadable" and sc.unparsed and not sc.strict


def test_structured_prompt_end_to_end(predict_set, tmp_path):  # noqa: F811
    out = tmp_path / "run"
    voebench("predict", predict_set, "--model", "fake:oracle", "--forms", "video", "--prompt", "both", "--out", out)
    res = json.load(open(out / "results.json"))
    rows = {g["prompt"]: g for g in res["groups"] if g["kind"] == "collision"}
    assert set(rows) == {"seed", "structured"}
    for g in rows.values():
        assert g["n"] == len(SCENES) and g["exact"]["strict"] == 1.0 and g["exact"]["unparsed_rate"] == 0.0
    recs = [json.loads(x) for x in open(out / "samples.jsonl")]
    structured = [r for r in recs if r["prompt_variant"] == "structured"]
    assert all(r["response"].splitlines()[-1].startswith("COLLISIONS:") for r in structured)
    assert all("COLLISIONS: <colour> <shape>" in r["prompt"] for r in structured)
    report = open(out / "report.md").read()
    assert "| structured |" in report and "| seed |" in report and "unparsed" in report

    # replayed answers without the line: unparsed under the structured prompt, read as free text under the seed's
    replies = tmp_path / "replies.jsonl"
    with open(replies, "w") as fh:
        for r in recs:
            free = r["response"].split("\nCOLLISIONS")[0]
            fh.write(json.dumps({"sample_id": r["sample_id"], "response": free}) + "\n")
    out2 = tmp_path / "replayed"
    model = f"replay:{replies}"
    voebench("predict", predict_set, "--model", model, "--forms", "video", "--prompt", "both", "--out", out2)
    rows = {g["prompt"]: g for g in json.load(open(out2 / "results.json"))["groups"]}
    assert rows["structured"]["exact"]["unparsed_rate"] == 1.0 and rows["structured"]["exact"]["strict"] == 0.0
    assert rows["seed"]["exact"]["unparsed_rate"] == 0.0 and rows["seed"]["exact"]["strict"] == 1.0


def test_a_bad_prompt_flag_is_one_line_and_exit_2(predict_set, tmp_path):  # noqa: F811
    proc = voebench("predict", predict_set, "--model", "fake:oracle", "--prompt", "fancy", "--out", tmp_path / "r",
                    check=False)  # fmt: skip
    assert proc.returncode == 2 and "--prompt" in proc.stderr and not (tmp_path / "r").exists()


# ------------------------------------------------------------------------------------------------- event letters


@pytest.mark.parametrize(
    "reply, letter",
    [
        ("B. The ball rolls back.", "B"),
        ("Answer: b", "B"),
        ("The answer is B.", "B"),
        ("**B**", "B"),
        ("(B) the ball stops", "B"),
        ("Not A.", "B"),
        ("A is wrong, B.", "B"),
        ("It is not A; the ball bounces back, so B.", "B"),
        ("I choose A because the wall stops it.", "A"),
        ("A ball rolls in, so the answer is B.", "B"),
        ("A or B, hard to say.", None),
        ("Both A and B are possible.", None),
        ("Neither option fits.", None),
        ("The ball bounces back.", None),
        ("", None),
        ("The correct description is a ball bouncing back, so B.", "B"),  # "is a ball": the article
        ("It is not a bounce; B.", "B"),
    ],
)
def test_event_letters(reply, letter):
    assert exact.choice_letter(reply) == letter
    _, sc = exact.score_choice(reply, "B")
    assert sc.unparsed == (letter is None) and sc.strict == (letter == "B")


# The two spent held-out sets (measured once, then opened for fixes: docs/answer-corpora.md) are
# regression corpora now. Excluded by id: labels the schema's clarified "status" rule or the tuning corpus contradict.
_ANSWERS = os.path.dirname(CORPUS)
HELDOUT_DIRS = [os.path.join(_ANSWERS, "heldout"), os.path.join(_ANSWERS, "heldout", "second")]
HELDOUT_DISPUTES = {
    # labelled "unreadable", but every prediction is a denial or an object staying unscathed: "none" by the schema
    "h2-predict-049": "only 'continues unscathed' predictions: none",
    "h2-predict-067": "'won't collide' (full-width apostrophe) is a denial: none",
    "h2-predict-077": "'neither A nor B will hit C' denies both pairs: none",
    "h2-predict-085": "'passes behind' is a miss and 'stays put' unscathed: none",
    "h2-predict-179": "'will continue unscathed' repeated: none",
    "ho-predict-052": "'might not hit' is a hedged denial (like 'unlikely to hit'): none",
    # the same text with the same labels is tuning answer hand-478, labelled unreadable (a comma lists objects)
    "ho-predict-202": "'red cube, blue sphere' contradicts hand-478",
}


def heldout_rows() -> list[dict]:
    rows = []
    for d in HELDOUT_DIRS:
        with open(os.path.join(d, "predict.jsonl"), encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return [r for r in rows if r["id"] not in HELDOUT_DISPUTES]


def test_the_exact_scorer_reads_the_spent_heldout_sets_as_their_readers_did():
    """The two former held-out sets: >= 95% agreement and no unsafe full credit."""
    rows = heldout_rows()
    assert len(rows) >= 400
    rate, wrong, unsafe = agreement(rows)
    assert rate >= 0.95, f"agreement {rate:.3f}; misread: {wrong}"
    assert not unsafe, f"strict credit for answers whose reader saw a wrong or missing pair: {unsafe}"


@pytest.mark.parametrize(
    "text, status, pairs",
    [
        (
            "Not the blue sphere but the green cylinder will hit the red cube.",
            "pairs",
            [("green cylinder", "red cube")],
        ),
        ("The red cube won't hit the blue sphere but the green cylinder.", "pairs", [("red cube", "green cylinder")]),
        ("The red cube (not the blue sphere) will hit the green cylinder.", "pairs", [("red cube", "green cylinder")]),
        (
            "The red cube fails to reach the blue sphere, but the blue sphere slams into the green cylinder.",
            "pairs",
            [("blue sphere", "green cylinder")],
        ),
        (
            "After bouncing off the blue sphere, the red cube will hit the green cylinder.",
            "pairs",
            [("red cube", "blue sphere"), ("red cube", "green cylinder")],
        ),
        (
            "The red cube will hit the blue sphere, and so will the green cylinder.",
            "pairs",
            [("red cube", "blue sphere"), ("green cylinder", "blue sphere")],
        ),
        (
            "The red cube will bounce off the blue sphere and roll toward the green cylinder.",
            "pairs",
            [("red cube", "blue sphere")],
        ),
        ("In the video, the red cube was knocked over by the blue sphere.", "unreadable", []),
        ("Targets on a collision course: red cube, blue sphere, green cylinder.", "unreadable", []),
        ("red cube → right, blue sphere → no collision, green cylinder → unscathed", "none", []),
        ('{"red cube-blue sphere": "no", "red cube-green cylinder": "no"}', "none", []),
        (
            "Le cube rouge va percuter la sphère bleue ! Le cylindre vert restera intact.",
            "pairs",
            [("red cube", "blue sphere")],
        ),
        ("红色立方体将与蓝色球体相撞。绿色圆柱体将不会受到碰撞。", "pairs", [("red cube", "blue sphere")]),
        ("red cube & blue sphere", "pairs", [("red cube", "blue sphere")]),
        ("red cube, blue sphere", "unreadable", []),
    ],
)
def test_rules_from_the_spent_heldout_sets(text, status, pairs):
    parsed = exact.parse(text, LABELS)
    assert (parsed.status, parsed.pairs) == (status, _pairs(pairs)), parsed.reason
