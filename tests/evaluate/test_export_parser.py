"""The lmms-eval export scores answers as voebench does: evaluate/export/lmms_eval_utils.py (copied verbatim into
an exported task, so it cannot import voebench) must agree with evaluate/parsing.py on every answer, tricky ones
above all. A change to one parser that is not made to the other fails here."""

import importlib.util
import json
import pathlib

import pytest

from voebench.evaluate.parsing import INVALID, OPEN_CHOICES, score

UTILS = pathlib.Path(__file__).resolve().parents[2] / "evaluate" / "export" / "lmms_eval_utils.py"


@pytest.fixture(scope="module")
def exported():
    spec = importlib.util.spec_from_file_location("exported_lmms_eval_utils", UTILS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Binary answers: only the first whitespace token counts, lower-cased, with ASCII punctuation removed anywhere in it.
BINARY = [
    "Yes",
    "yes.",
    "YES!",
    "  no",
    "No, it is not.",
    "Yes-",
    '"Yes"',
    "(no)",
    "y",
    "Nope",
    "noo",
    "yes/no",
    "Yes\nNo",
    "no\tyes",
    "Maybe yes",
    "",
    None,
    "   ",
    "Yes’",
    "Ｙｅｓ",
    "¿yes?",
    "N.O.",
    "ye-s",
    "Yes.No",
    "I think yes",
    "NO!!!",
    "Non",
    "*yes*",
    "`no`",
    "yes\u00a0indeed",
]

# Open answers: (test, truth, response). Whole words only; a true and a wrong keyword together is invalid; the
# Directionality test lets "right to left" name left (and the mirror for right).
OPEN = [
    ("shape", "ball", "It is a ball."),
    ("shape", "ball", "A sphere, not a cube"),
    ("shape", "ball", "round box"),
    ("shape", "ball", "The shape is square"),
    ("shape", "ball", "BALL!"),
    ("shape", "ball", "balls"),
    ("shape", "ball", "a cube-like ball"),
    ("shape", "cube", "ball? cube?"),
    ("shape", "cube", ""),
    ("shape", "cube", None),
    ("shape", "cube", "Rectangular."),
    ("color", "red", "Red."),
    ("color", "red", "reddish"),
    ("color", "red", "red and blue"),
    ("color", "black", "It's black-and-white"),
    ("color", "green", "The ball is GREEN, not blue."),
    ("directionality", "left", "It moves from right to left"),
    ("directionality", "left", "from the right to the left"),
    ("directionality", "left", "it moved right"),
    ("directionality", "left", "forward and left"),
    ("directionality", "left", "Left."),
    ("directionality", "right", "left to right"),
    ("directionality", "right", "Left To Right."),
    ("directionality", "right", "right to left"),
    ("directionality", "forward", "upwards!"),
    ("directionality", "forward", "UP"),
    ("directionality", "forward", "down"),
    ("directionality", "backward", "backwards, then forwards"),
    ("relational_position", "left", "left"),
    ("relational_position", "left", "right to left"),
    ("relational_position", "right", "On the right."),
    ("relational_position", "right", "It is on the left of the right cube"),
]


@pytest.mark.parametrize("response", BINARY)
@pytest.mark.parametrize("truth", ["yes", "no"])
def test_binary_answers_agree(exported, response, truth):
    ours = score("plausibility", response, truth)
    doc = {"kind": "plausibility", "answer": truth, "choices": "", "direction": False}
    theirs = exported.process_results(doc, [response])
    assert theirs == {"grasp_acc": float(ours.correct), "grasp_invalid": float(not ours.valid)}
    parsed = exported._parse_binary(response)
    assert (parsed if parsed is not None else INVALID) == ours.answer


@pytest.mark.parametrize("test,truth,response", OPEN)
def test_open_answers_agree(exported, test, truth, response):
    family = {"shape": "shape", "color": "color", "directionality": "direction", "relational_position": "relational"}[
        test
    ]
    choices = OPEN_CHOICES[family]
    ours = score("open", response, truth, choices, test=test)
    # the export writes the keyword classes as a JSON string; lmms-eval may also hand them back decoded
    for doc_choices in (json.dumps(choices), choices):
        doc = {"kind": "open", "answer": truth, "choices": doc_choices, "direction": family == "direction"}
        theirs = exported.process_results(doc, [response])
        assert theirs == {"grasp_acc": float(ours.correct), "grasp_invalid": float(not ours.valid)}
    parsed = exported._parse_open(response, truth, choices, family == "direction")
    assert (parsed if parsed is not None else INVALID) == ours.answer


def test_the_table_covers_every_outcome():
    # a table where every answer is valid (or every one invalid) would let a parser that ignores its input pass
    outcomes = {(p.valid, p.correct) for p in (score("plausibility", r, "yes") for r in BINARY)}
    outcomes |= {(p.valid, p.correct) for p in (score("open", r, t, test=test) for test, t, r in OPEN)}
    assert outcomes == {(True, True), (True, False), (False, False)}
