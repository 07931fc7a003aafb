"""The exact scorer of collision predictions: which objects a free-text answer names, which pairs it says will
collide and which objects it says stay unscathed, against the simulated ground truth.

Objects are named by the words the predict suite itself uses: a colour (red, green, blue, yellow, purple, white)
and a shape (sphere, cube, cylinder; "ball", "box", "block", "can" accepted as synonyms). Colours are distinct
within a scene, so a colour alone ("the red one") names an object; a colour with the wrong shape ("the red
cylinder" for a red cube) names no object of the scene and counts as a wrong pair.

The answer is split into items (enumerated or bare lines, sentences, and clauses after "but", "whereas", ...
or ", missing", ", without", so a negation stays in its clause). An item with a collision word (collide, hit,
strike, crash, bump, run into, ...) and no negation pairs the first object it names with each other object it
names; an item with a negation (not, never, avoid, miss, unscathed, ...) marks the objects it names as never hit.
Every item counts: the seed asks for "multiple possible results", so hedging across many pairs costs precision.

`score_choice` reads the option letter of the two-way event questions (GRASP Level 2 / AVoE, events.py).

This module uses the standard library only: the lmms-eval export copies it into the task folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

COLORS = ("red", "green", "blue", "yellow", "purple", "white")
SHAPES = {
    "sphere": "sphere",
    "spheres": "sphere",
    "ball": "sphere",
    "balls": "sphere",
    "cube": "cube",
    "cubes": "cube",
    "box": "cube",
    "block": "cube",
    "cylinder": "cylinder",
    "cylinders": "cylinder",
    "can": "cylinder",
}
COLLIDE = re.compile(
    r"\b(collid\w*|collision\w*|hit\w*|strik\w*|struck|crash\w*|bump\w*|smash\w*|knock\w*|impact\w*|"
    r"run(?:s|ning)? into|ran into|contact\w*|touch\w*|meet\w*|intersect\w*)\b"
)
NEGATION = re.compile(
    r"\b(not|no|never|none|neither|nor|avoid\w*|miss\w*|unscathed|unhit|untouched|safe\w*|clear of|"
    r"pass(?:es|ing)? (?:by|behind|in front)|won't|wont|doesn't|don't|isn't|aren't|without)\b|n't\b"
)
# the words between a colour and its shape may not be another colour: "the red and blue spheres" names two objects
_COLOR = r"(?:" + "|".join(COLORS) + r")\b"
MENTION = re.compile(
    r"\b(" + "|".join(COLORS) + r")\b(?:\s+(?:(?!" + _COLOR + r")[a-z]+\s+){0,2}?(" + "|".join(SHAPES) + r")\b)?"
)
# items: enumerated lines, bare lines, sentences, and clauses joined by "but"/"whereas"/... before an object, so a
# negation ("A and B will not collide but C hits A") does not reach into the next clause
ITEM_SPLIT = re.compile(
    r"(?:^|\n)\s*(?:\d+[.)]|[-*\u2022])\s*|\n+|(?<=[.!?;])\s+"
    r"|,?\s+(?:but|however|whereas|while)\b,?\s+(?=(?:the\s+)?" + _COLOR + r")"
    r"|,\s*(?=(?:missing|avoiding|without|narrowly missing)\b)"
)


@dataclass
class Parsed:
    pairs: set = field(default_factory=set)  # frozensets of two object labels (or unknown names)
    hit: set = field(default_factory=set)  # objects said to be hit
    unhit: set = field(default_factory=set)  # objects said to stay unscathed
    mentioned: set = field(default_factory=set)

    def as_dict(self) -> dict:
        return {
            "pairs": sorted(sorted(p) for p in self.pairs),
            "hit": sorted(self.hit),
            "unhit": sorted(self.unhit),
            "mentioned": sorted(self.mentioned),
        }


def items(text: str) -> list[str]:
    return [s.strip() for s in ITEM_SPLIT.split(text or "") if s and s.strip()]


def mentions(item: str, labels: list[str]) -> list[str]:
    """The objects an item names, in order, as scene labels ("red cube"); a colour+shape no object of the scene
    has is kept as its own name (it can only be wrong)."""
    by_color = {label.split()[0]: label for label in labels}
    out: list[str] = []
    for m in MENTION.finditer(item.lower()):
        color, shape = m.group(1), SHAPES.get(m.group(2) or "")
        label = by_color.get(color)
        name = (
            label
            if label is not None and (shape is None or label.split()[1] == shape)
            else f"{color} {shape or 'object'}"
        )
        if name not in out:
            out.append(name)
    return out


def parse(text: str, labels: list[str]) -> Parsed:
    p = Parsed()
    for item in items(text):
        low = item.lower()
        named = mentions(low, labels)
        p.mentioned.update(named)
        if not named:
            continue
        negated = NEGATION.search(low) is not None
        if COLLIDE.search(low) and not negated:
            p.hit.update(named)
            for other in named[1:]:
                p.pairs.add(frozenset((named[0], other)))
        elif negated:
            p.unhit.update(named)
    p.unhit -= p.hit  # an object said to be hit somewhere is not also predicted unscathed
    return p


@dataclass
class Score:
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    outcome_correct: bool  # says "some collision" exactly when there is one
    strict: bool  # the collision pairs exactly right and no hit object called unscathed

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def score(text: str, labels: list[str], true_pairs: list, true_unhit: list | None = None) -> tuple[Parsed, Score]:
    """Pairs precision/recall/F1 for one answer. With no true pair and none predicted, all three are 1 (a correct
    "nothing collides"); with predictions but no true pair, precision 0 and recall 1; with true pairs and none
    predicted, precision 1 (nothing wrong said) and recall 0, so F1 = 0."""
    parsed = parse(text, labels)
    truth = {frozenset(p) for p in true_pairs}
    tp = len(parsed.pairs & truth)
    fp = len(parsed.pairs - truth)
    fn = len(truth - parsed.pairs)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    true_hit = {x for p in truth for x in p}
    strict = parsed.pairs == truth and not (parsed.unhit & true_hit)
    return parsed, Score(tp, fp, fn, precision, recall, f1, bool(parsed.pairs) == bool(truth), strict)


def aggregate(scores: list[Score]) -> dict:
    """Micro (pooled pairs) and macro (mean per answer) precision/recall/F1, outcome accuracy, strict rate."""
    n = len(scores)
    if not n:
        return {"n": 0}
    tp, fp, fn = (sum(getattr(s, k) for s in scores) for k in ("tp", "fp", "fn"))
    mp = tp / (tp + fp) if tp + fp else 1.0
    mr = tp / (tp + fn) if tp + fn else 1.0
    return {
        "n": n,
        "micro_precision": mp,
        "micro_recall": mr,
        "micro_f1": 0.0 if mp + mr == 0 else 2 * mp * mr / (mp + mr),
        "macro_precision": sum(s.precision for s in scores) / n,
        "macro_recall": sum(s.recall for s in scores) / n,
        "macro_f1": sum(s.f1 for s in scores) / n,
        "outcome_accuracy": sum(s.outcome_correct for s in scores) / n,
        "strict": sum(s.strict for s in scores) / n,
    }


#: an event question's option letter: "B.", "Answer: a", "**B**", "the answer is B", "Option A, because"
LETTER = re.compile(r"^\W*(?:answer|option)?\W*([ab])\b|\b(?:answer|option)\W*(?:is\W*)?([ab])\b", re.IGNORECASE)


#: "the answer is B" wins over a leading "a", which may be the article ("a ball rolls in, so the answer is B")
NAMED_LETTER = re.compile(r"\b(?:answer|option)\W*(?:is\W*)?([ab])\b", re.IGNORECASE)


def choice_letter(text: str) -> str | None:
    """The option (A or B) an answer to a two-way event question starts with or names; None if neither."""
    m = NAMED_LETTER.search(text or "") or LETTER.search(text or "")
    return next(g for g in m.groups() if g).upper() if m else None


def score_choice(text: str, truth: str) -> tuple[str | None, Score]:
    """An event answer scored like a pair answer: every column is 1 when the letter is right, else 0."""
    letter = choice_letter(text)
    ok = letter == truth
    v = 1.0 if ok else 0.0
    return letter, Score(int(ok), int(not ok), int(not ok), v, v, v, ok, ok)
