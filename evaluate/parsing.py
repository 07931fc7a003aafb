"""Answer parsing, exactly as GRASP's ``tools/compute_accuracy.py`` does it.

Binary (Level 1 binary, Level 2 / AVoE plausibility): take the first whitespace token of the response, lower-case
it, strip all ASCII punctuation (``string.punctuation``, anywhere in the token) and compare it to ``yes`` / ``no``.
Anything else (including an empty response, which crashes the original script) is *invalid* and counts as wrong.

Open (Level 1 open questions): lower-case, split on whitespace, strip ASCII punctuation from each word, and look
for whole-word keywords of each answer class. Correct = a keyword of the true class and none of another class;
wrong = another class's keyword and none of the true class; anything else is invalid. Direction special case: if
the truth is ``left`` and the response contains "right to left" / "right to the left", the word "right" does not
count against it (mirror rule for ``right``).

Only the last turn's response is scored (the original splits on ``<SEP>`` and takes the last).
"""

from __future__ import annotations

import string
from dataclasses import dataclass

_PUNCT = str.maketrans("", "", string.punctuation)

# The keyword classes of the original script (OPEN_CHOICES). "square" is in the code but not in supplementary
# Section 7; we follow the code. Keyed by the canonical test family (see `open_family`).
OPEN_CHOICES: dict[str, dict[str, list[str]]] = {
    "direction": {
        "forward": ["forward", "forwards", "up", "upward", "upwards"],
        "backward": ["backward", "backwards", "down", "downward", "downwards"],
        "left": ["left"],
        "right": ["right"],
    },
    "shape": {
        "ball": ["ball", "sphere", "round"],
        "cube": ["cube", "box", "rectangular", "square"],
    },
    "color": {
        "red": ["red"],
        "green": ["green"],
        "blue": ["blue"],
        "black": ["black"],
    },
    "relational": {
        "left": ["left"],
        "right": ["right"],
    },
}

INVALID = "invalid"


@dataclass(frozen=True)
class Parsed:
    answer: str  # "yes"/"no"/class name, or "invalid"
    valid: bool
    correct: bool

    def as_dict(self) -> dict:
        return {"parsed": self.answer, "valid": self.valid, "correct": self.correct}


def first_token(response: str | None) -> str:
    """The first whitespace token, lower-cased, ASCII punctuation removed ('' for an empty response)."""
    words = str(response or "").split()
    if not words:
        return ""
    return words[0].lower().translate(_PUNCT)


def parse_binary(response: str | None, truth: str | None = None) -> Parsed:
    tok = first_token(response)
    if tok in ("yes", "no"):
        return Parsed(tok, True, truth is not None and tok == truth)
    return Parsed(INVALID, False, False)


def _words(response: str) -> list[str]:
    return [w.translate(_PUNCT) for w in response.lower().split()]


def parse_open(response: str | None, truth: str, choices: dict[str, list[str]], direction: bool = False) -> Parsed:
    """Keyword-class parsing. `choices` maps class -> keywords (from the manifest prompt or OPEN_CHOICES);
    `direction` turns on the "right to left" / "left to right" special case of the Directionality test."""
    text = str(response or "").lower()
    words = set(_words(text))
    if truth not in choices:
        raise ValueError(f"truth {truth!r} is not one of the classes {sorted(choices)}")
    has_true = any(k in words for k in choices[truth])
    has_wrong = False
    wrong_class = None
    for label, variants in choices.items():
        if label == truth:
            continue
        if direction:
            if label == "right" and truth == "left" and ("right to left" in text or "right to the left" in text):
                continue
            if label == "left" and truth == "right" and ("left to right" in text or "left to the right" in text):
                continue
        if any(k in words for k in variants):
            has_wrong = True
            wrong_class = label
            break
    if has_true and not has_wrong:
        return Parsed(truth, True, True)
    if has_wrong and not has_true and wrong_class is not None:
        return Parsed(wrong_class, True, False)
    return Parsed(INVALID, False, False)


def classify_open(response: str | None, choices: dict[str, list[str]], direction: bool = False) -> str:
    """The class a response names without knowing the truth (used by fake oracles and exporters): the single class
    whose keywords occur, else "invalid"."""
    hits = [c for c in choices if parse_open(response, c, choices, direction).correct]
    return hits[0] if len(hits) == 1 else INVALID


def open_family(test: str) -> str | None:
    """Map a Level 1 test name (``shape``, ``colour``, ``directionality``, ``Direction``, ``relational_position``,
    ...) to its keyword family in OPEN_CHOICES, or None."""
    t = "".join(ch for ch in test.lower() if ch.isalnum())
    if "shape" in t:
        return "shape"
    if "colo" in t:
        return "color"
    if "direction" in t:
        return "direction"
    if "relational" in t or "position" in t:
        return "relational"
    return None


def score(kind: str, response: str | None, truth: str, choices: dict | None = None, test: str = "") -> Parsed:
    """Score the final response of one sample. kind: binary | plausibility | open | choice."""
    if kind == "choice":  # NEWTON-style options (evaluate/newton/answers.py)
        from voebench.evaluate.newton.answers import parse_choice

        return parse_choice(response, truth, choices or {})
    if kind in ("binary", "plausibility"):
        return parse_binary(response, truth)
    if kind == "open":
        fam = open_family(test)
        if not choices:
            if fam is None:
                raise ValueError(f"no keyword classes for open question of test {test!r}")
            choices = OPEN_CHOICES[fam]
        return parse_open(response, truth, choices, direction=(fam == "direction"))
    raise ValueError(f"unknown prompt kind {kind!r}")
