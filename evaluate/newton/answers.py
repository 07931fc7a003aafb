"""Parsing the answer to a choice question (NEWTON's tracks and the rendered `newton` suite).

A choice question offers labelled options: object names ("red ball", "baseball bat"), "True"/"False", or a
Likert question's short answers ("No", "Somewhat", "Yes") which are also lettered a), b), c). A response picks
option k when
1. the options are lettered and its first word is one of the letters ("b", "b)", "(b)", "B."), or else
2. exactly one option's label occurs in it as a whole phrase (case-insensitive; underscores read as spaces; a
   label found only inside a longer label's occurrence, as "cake" in "chocolate cake", does not count).
Anything else (no option named, several named) is invalid and counts as wrong, as in GRASP's parsing rules: a
model is not credited for an answer the harness would have to guess.
"""

from __future__ import annotations

import re
import string

from voebench.evaluate.parsing import INVALID, Parsed

_PUNCT = str.maketrans("", "", string.punctuation)


def _norm(text: str) -> str:
    return " ".join(str(text).replace("_", " ").lower().split())


def _spans(text: str, label: str) -> list[tuple[int, int]]:
    pat = r"(?<![a-z0-9])" + re.escape(_norm(label)) + r"(?![a-z0-9])"
    return [m.span() for m in re.finditer(pat, text)]


def pick(response: str | None, labels: list[str], letters: bool = False) -> str:
    """The label the response names, or INVALID."""
    text = _norm(response or "")
    if not text:
        return INVALID
    by_label = _by_label(text, labels)
    if letters:
        raw = text.split()[0]
        first = raw.translate(_PUNCT)
        offered = string.ascii_lowercase[: len(labels)]
        # a bare "a" opening a longer reply may be the article ("A glass breaks easily, so Yes"): a label it
        # names then wins
        article = raw == "a" and len(text.split()) > 1 and by_label != INVALID
        if len(first) == 1 and first in offered and not article:
            return labels[offered.index(first)]
    return by_label


def _by_label(text: str, labels: list[str]) -> str:
    """The one label `text` names as a whole phrase (not only inside a longer label's occurrence), or INVALID."""
    spans = {lab: _spans(text, lab) for lab in labels}
    named = []
    for lab, sp in spans.items():
        longer = [s for other, ss in spans.items() if other != lab and len(_norm(other)) > len(_norm(lab)) for s in ss]
        own = [s for s in sp if not any(a <= s[0] and s[1] <= b for a, b in longer)]
        if own:
            named.append(lab)
    return named[0] if len(named) == 1 else INVALID


def parse_choice(response: str | None, truth: str, choices: dict) -> Parsed:
    """`choices`: {"labels": [...], "letters": bool} as the question set and the manifest write them."""
    labels = list(choices["labels"])
    if truth not in labels:
        raise ValueError(f"truth {truth!r} is not one of the options {labels}")
    got = pick(response, labels, bool(choices.get("letters")))
    if got == INVALID:
        return Parsed(INVALID, False, False)
    return Parsed(got, True, got == truth)
