"""The scene objects a clause names: "<colour> <shape>" and its synonyms, a colour alone, group names
("the two cubes", "the red and blue objects"), a bare shape, "the others"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .vocabulary import _ALLC, COLOR_MENTION, NUMBER, OTHERS, OTHERS_RE, PLURALS, SHAPE_GROUP, SHAPE_ONE, SHAPES


@dataclass
class Mention:
    start: int
    end: int
    names: list  # scene labels, wrong names ("red cylinder"), or OTHERS
    ambiguous: bool = False


def _scene(labels: list[str]) -> tuple[dict, dict]:
    by_color = {lab.split()[0]: lab for lab in labels}
    by_shape: dict[str, list[str]] = {}
    for lab in labels:
        by_shape.setdefault(lab.split()[-1], []).append(lab)
    return by_color, by_shape


def find_mentions(clause: str, labels: list[str]) -> list[Mention]:
    """The objects a (normalised) clause names, in order."""
    by_color, by_shape = _scene(labels)
    found: list[Mention] = []
    taken = [False] * len(clause)

    def add(m, names, ambiguous=False):
        if any(taken[m.start() : m.end()]):
            return
        for i in range(m.start(), m.end()):
            taken[i] = True
        found.append(Mention(m.start(), m.end(), names, ambiguous))

    for m in COLOR_MENTION.finditer(clause):
        cols = re.findall(rf"\b(?:{_ALLC})\b", m.group("cols"))
        noun = m.group("noun") or ""
        shape = SHAPES.get(noun) or PLURALS.get(noun)
        names = []
        for c in cols:
            c = "gray" if c == "grey" else "gold" if c == "golden" else c
            lab = by_color.get(c)
            if len(cols) > 1 or shape is None:
                names.append(lab or f"{c} {shape or 'object'}")
            else:
                names.append(lab if lab and lab.split()[-1] == shape else f"{c} {shape}")
        add(m, names)
    for m in OTHERS_RE.finditer(clause):
        add(m, [OTHERS])
    for m in SHAPE_GROUP.finditer(clause):
        shape = PLURALS[m.group("plural")]
        group = by_shape.get(shape, [])
        num = NUMBER.get((m.group("num") or "").split()[-1] if m.group("num") else "")
        ok = len(group) >= 2 and (num is None or num == len(group))
        add(m, list(group) if ok else [f"some {shape}s"], ambiguous=not ok)
    for m in SHAPE_ONE.finditer(clause):
        shape = SHAPES[m.group("shape")]
        if shape == "cylinder" and m.group("shape") == "can" and not re.search(r"\bthe\s+$", clause[: m.start()]):
            continue  # "can" the verb
        group = by_shape.get(shape, [])
        add(m, [group[0]] if len(group) == 1 else [f"the {shape}"], ambiguous=len(group) != 1)
    return sorted(found, key=lambda x: x.start)
