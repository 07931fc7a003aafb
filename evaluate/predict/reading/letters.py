"""The option letter (A or B) of an answer to a two-way event question (GRASP Level 2 / AVoE, events.py)."""

from __future__ import annotations

import re

from .layout import _CHARS, normalize
from .scores import Score


_LETTER = r"(?:(?<![\w'])([AB])(?![\w'])|(?<![\w'])([ab])(?=\s*[).:\]]|\s*$))"
CHOICE_EXPLICIT = re.compile(
    r"\b(?:the\s+)?(?:correct\s+|right\s+|best\s+|final\s+)?(?:answer|option|choice|description)\s*"
    r"(?:is|would\s+be|:|=|-)?\s*(?:option\s+)?[(\[]?\s*([ab])\b(?![\w'])|\b(?:i\s+(?:choose|pick|select|go\s+with)|"
    r"pick|choose|select|go\s+with)\s+(?:option\s+)?[(\[]?([ab])\b(?![\w'])|"
    r"\b(?:so|therefore|thus|hence|i\s+think|i\s+believe|i'd\s+say)\s*,?\s*(?:option\s+)?[(\[]?([ab])\b(?![\w'])",
    re.IGNORECASE,
)
#: "The first one." / "the second description": the option by its place
CHOICE_ORDINAL = re.compile(
    r"^\W*(?:the\s+)?(first|second|former|latter)(?:\s+(?:one|option|description|choice|scenario|outcome|answer))?"
    r"\W*$",
    re.IGNORECASE,
)
#: a revision: "A. Wait - looking again ... B." -- the letter after the last one decides
CHOICE_REVISION = re.compile(r"\b(?:wait|actually|on\s+second\s+thought|correction|no,\s+sorry|scratch\s+that)\b", re.I)
CHOICE_NEGATED = re.compile(
    r"\b(?:not|rather\s+than|instead\s+of|unlike|rule\s+out|ruling\s+out|eliminate|than)\s+(?:option\s+)?[(\[]?"
    r"\s*([ab])\b(?![\w'])|(?<![\w'])(?:option\s+)?([ab])[)\]]?\s+(?:is|seems|would\s+be|appears)\s+"
    r"(?:not|wrong|incorrect|false|implausible|unlikely|impossible|ruled\s+out)|(?<![\w'])(?:option\s+)?([ab])[)\]]?"
    r"\s+(?:isn't|is\s+not|doesn't|does\s+not|can't|cannot|won't|will\s+not)\b|"
    r"\b(?:although|though|even\s+though|while|whereas)\s+(?:option\s+)?[(\[]?([ab])\b(?![\w'])",  # a concession
    re.IGNORECASE,
)
CHOICE_LEAD = re.compile(
    r"^\W*(?:option\s+)?[(\[]?([AB])(?:[)\].:,]|\s*$|\s+(?:-|is\b|because\b))|^\W*[(\[]?([ab])[)\].:]"
)
CHOICE_NONE = re.compile(r"\b(?:neither|both\s+(?:a\s+and\s+b|options|are))\b", re.IGNORECASE)


def _article(raw: str, m: re.Match | int) -> bool:
    """An "a" followed by a word is the article ("the answer is a bounce", "A ball will fall"), not option A; a
    capital "A" before a verb or conjunction ("A is right", "A because ...") is the option."""
    end = m if isinstance(m, int) else m.end()
    if raw[end - 1] == "a":
        return re.match(r"\s+[a-z]", raw[end:]) is not None
    nxt = re.match(r"\s+([a-z]+)", raw[end:])
    return raw[end - 1] == "A" and nxt is not None and nxt.group(1) not in _LETTER_VERBS


_LETTER_VERBS = {
    "is", "isn't", "seems", "would", "will", "could", "might", "may", "was", "because", "since", "as", "and", "or",
    "nor", "but", "then", "vs", "versus", "looks", "appears", "fits", "matches", "happens", "wins", "sounds", "it",
}  # fmt: skip


def choice_letter(text: str) -> str | None:
    """The option (A or B) an answer to a two-way event question picks; None when it picks neither or both.
    Negated letters ("Not A", "A is wrong") are dropped; "The answer is B" / "Answer: b" / "I choose B" win; then
    the letter the answer starts with ("B.", "**B**", "(B)"); then the only letter it names; "Not A." alone picks
    B."""
    t = normalize(text) if text else ""
    raw = re.sub(r"\*\*|__", "", "".join(_CHARS.get(c, c) for c in (text or ""))).strip()
    if not t or CHOICE_NONE.search(t):
        return None
    revisions = list(CHOICE_REVISION.finditer(raw))
    if revisions:
        revised = choice_letter(raw[revisions[-1].end() :])
        if revised:
            return revised
    ordinal = CHOICE_ORDINAL.match(raw)
    if ordinal:
        return "A" if ordinal.group(1).lower() in ("first", "former") else "B"
    negated = {x.upper() for m in CHOICE_NEGATED.finditer(raw) for x in m.groups() if x and not _article(raw, m)}
    explicit = {
        x.upper() for m in CHOICE_EXPLICIT.finditer(raw) for x in m.groups() if x and not _article(raw, m)
    } - negated
    if explicit:
        return explicit.pop() if len(explicit) == 1 else None
    lead = CHOICE_LEAD.match(raw)
    if lead:
        letter = next(g for g in lead.groups() if g).upper()
        if letter not in negated:
            return letter
    named = {(m.group(1) or m.group(2)).upper() for m in re.finditer(_LETTER, raw) if not _article(raw, m)} - negated
    if len(named) == 1:
        return named.pop()
    if not named and len(negated) == 1:
        return ({"A", "B"} - negated).pop()
    return None


def score_choice(text: str, truth: str) -> tuple[str | None, Score]:
    """An event answer scored like a pair answer: every column is 1 when the letter is right, else 0; an answer
    with no readable letter is unparsed."""
    letter = choice_letter(text)
    ok = letter == truth
    v = 1.0 if ok else 0.0
    return letter, Score(int(ok), int(not ok), int(not ok), v, v, v, ok, ok, letter is None)
