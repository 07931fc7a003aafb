"""Parsing the answer to a choice question (NEWTON's tracks and the rendered `newton` suite).

A choice question offers labelled options: object names ("red ball", "baseball bat"), "True"/"False", or a
Likert question's short answers ("No", "Somewhat", "Yes") which are also lettered a), b), c). Which option an
answer picks is read by `voebench.evaluate.newton.choice.read_choice` (its docstring states the reading rules:
final answers, negations, comparison foils, listed options, letters, the article "A"). An answer that picks no
option, or several without a clear final pick, is invalid and counts as wrong, as in GRASP's parsing rules: a
model is not credited for an answer the harness would have to guess. The same module is copied verbatim into an
lmms-eval export (evaluate/export/lmms_eval.py), so both score every answer alike.
"""

from __future__ import annotations

from voebench.evaluate.newton.choice import read_choice
from voebench.evaluate.parsing import INVALID, Parsed


def pick(response: str | None, labels: list[str], letters: bool = False) -> str:
    """The label the response picks, or INVALID."""
    got = read_choice(response, list(labels), letters)
    return INVALID if got is None else got


def parse_choice(response: str | None, truth: str, choices: dict) -> Parsed:
    """`choices`: {"labels": [...], "letters": bool} as the question set and the manifest write them."""
    labels = list(choices["labels"])
    if truth not in labels:
        raise ValueError(f"truth {truth!r} is not one of the options {labels}")
    got = pick(response, labels, bool(choices.get("letters")))
    if got == INVALID:
        return Parsed(INVALID, False, False)
    return Parsed(got, True, got == truth)
