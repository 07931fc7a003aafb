"""Track 2 (explicit application): every distinct question the released NEWTON generator's pairings allow, and a
balanced draw of `n` of them.

**The pool** follows the pairings of NEWTON's released Track 2 generator, per attribute with H high and L low
objects (Likert 3 and 1 after the filter):

- "X is A." / "X is not A." for every object X: 2 (H + L) statements, true or false by X's extreme;
- "X is more A than Y." / "X is less A than Y." for a (high, low) pair in both orders: 4 statements per pair, two
  true and two false, over min(H x L, 1200) distinct pairs;
- "Which object is the most A?" for one high object and a set of three low ones, min(H x C(L, 3), 2500) distinct
  option sets, and "... the least A?" the other way round, min(L x C(H, 3), 2500).

The caps (1200 pairs, 2500 option sets) are the released generator's; where the pairings exceed a cap, which
ones are kept is drawn from the seed (uniformly among all pairs or option sets). So the largest set this module
writes from a repository (`maximum`) is the released generator's count from the same repository: 84,182 from
NEWTON's `confident_questions.csv` (docs/newton.md, Measured). No two questions of the pool are the same
statement, or the same option set for the same attribute and polarity.

**The draw** of `n` <= `maximum` never fails: the six cells, question type x phrasing polarity, take turns, and a
cell whose pool is spent drops out of the rotation (so the Boolean statements about one object, 5,782 of the
84,182 on NEWTON's repository, run out first). Within a cell the questions come from slots (attribute, answer
class) in a fixed cycle: the attribute changes every question, and the answer class (True/False, or the correct
position 1-4 of a multiple-choice question) every question and every round, so over any whole round each
attribute meets each answer once. The cycle continues from one cell to the next (the k-th cell starts where the
questions of the earlier cells end), so the whole track is balanced too; each cell's questions are then
shuffled. A spent slot is skipped; near the maximum the answers are as balanced as the repository allows (an
attribute with fewer high than low objects has fewer true "X is A" statements). Everything is drawn from
`random.Random` seeded by the seed: the same repository and seed give the same questions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from voebench.errors import UsageError
from voebench.evaluate.newton import templates as tp
from voebench.evaluate.newton.repository import Filtered, Pair

N_OPTIONS = 4  # a multiple-choice question offers one object and three of the opposite extreme (paper Table 1)
MAX_PAIRS = 1200  # comparison pairs per attribute (the released generator's cap)
MAX_SETS = 2500  # multiple-choice option sets per attribute and polarity (the released generator's cap)
CELLS = tuple((t, pos) for t in tp.TRACK2_TYPES for pos in (True, False))


@dataclass(frozen=True)
class Item:
    """One distinct question before it is worded: Boolean types carry the objects in statement order and the
    truth; a multiple-choice one the correct object first, then the three others, and the correct position."""

    qtype: str
    positive: bool
    attribute: str
    objects: tuple[Pair, ...]
    answer: bool | int  # True/False, or the 0-based position of objects[0] among the options


def usable_attributes(data: Filtered) -> tuple[list[str], dict[str, str]]:
    """Attributes with N_OPTIONS - 1 objects at each extreme, so that every cell can ask about them (an attribute
    asked in only some cells would tie it to a polarity), and why the others are left out."""
    usable, skipped = [], {}
    for a in data.attributes():
        hi, lo = len(data.high(a)), len(data.low(a))
        if min(hi, lo) < N_OPTIONS - 1:
            skipped[a] = f"{hi} high and {lo} low objects; Track 2 needs {N_OPTIONS - 1} of each"
        else:
            usable.append(a)
    return usable, skipped


def usable_or_refuse(data: Filtered) -> tuple[list[str], dict[str, str]]:
    """`usable_attributes`, or UsageError when there is none."""
    attrs, skipped = usable_attributes(data)
    if not attrs:
        raise UsageError(
            f"Track 2: no attribute has {N_OPTIONS - 1} high and {N_OPTIONS - 1} low objects after filtering"
        )
    return attrs, skipped


def attribute_maximum(high: int, low: int) -> int:
    """How many distinct questions the pool holds for an attribute with `high` and `low` objects."""
    return (
        2 * (high + low)
        + 4 * min(high * low, MAX_PAIRS)
        + min(high * math.comb(low, N_OPTIONS - 1), MAX_SETS)
        + min(low * math.comb(high, N_OPTIONS - 1), MAX_SETS)
    )


def maximum(data: Filtered) -> int:
    """The most Track 2 questions `data` gives (0 when no attribute is usable)."""
    attrs, _ = usable_attributes(data)
    return sum(attribute_maximum(len(data.high(a)), len(data.low(a))) for a in attrs)


def unrank_combination(rank: int, n: int, k: int) -> tuple[int, ...]:
    """The `rank`-th (0-based) k-subset of range(n) in lexicographic order, without listing the others."""
    out, start = [], 0
    for left in range(k, 0, -1):
        for x in range(start, n):
            block = math.comb(n - x - 1, left - 1)  # subsets whose next element is x
            if rank < block:
                out.append(x)
                start = x + 1
                break
            rank -= block
    return tuple(out)


def _draw(total: int, cap: int, rng: random.Random) -> list[int]:
    """min(total, cap) distinct indices of range(total), uniformly, in random order."""
    return rng.sample(range(total), min(total, cap))


def attribute_pool(attribute: str, high: list[Pair], low: list[Pair], rng: random.Random) -> dict:
    """{cell: {answer class: [Item, ...]}} for one attribute, each list in random order."""
    pool: dict = {cell: {} for cell in CELLS}
    for positive in (True, False):
        # "X is A" is true for a high X, "X is not A" for a low one
        pool[("boolean", positive)] = {
            truth: [Item("boolean", positive, attribute, (x,), truth) for x in (high if truth == positive else low)]
            for truth in (True, False)
        }
    pairs = [(high[i // len(low)], low[i % len(low)]) for i in _draw(len(high) * len(low), MAX_PAIRS, rng)]
    for positive in (True, False):
        # "H is more A than L" and "L is less A than H" are true; the other two orders false
        pool[("comparison", positive)] = {
            truth: [
                Item("comparison", positive, attribute, (h, lo) if truth == positive else (lo, h), truth)
                for h, lo in pairs
            ]
            for truth in (True, False)
        }
    for positive, one, others in ((True, high, low), (False, low, high)):
        k = N_OPTIONS - 1
        sets = math.comb(len(others), k)
        items = []
        for i in _draw(len(one) * sets, MAX_SETS, rng):
            pad = tuple(others[j] for j in unrank_combination(i % sets, len(others), k))
            items.append((one[i // sets], *pad))
        pool[("multiple_choice", positive)] = {
            p: [Item("multiple_choice", positive, attribute, objs, p) for objs in items[p::N_OPTIONS]]
            for p in range(N_OPTIONS)
        }
    for cell in CELLS:
        for items_ in pool[cell].values():
            rng.shuffle(items_)
    return pool


def shares(capacity: list[int], n: int) -> list[int]:
    """Which cell each of the `n` questions comes from: the cells take turns, a full one drops out."""
    taken = [0] * len(capacity)
    order: list[int] = []
    while len(order) < n:
        for k, cap in enumerate(capacity):
            if taken[k] < cap and len(order) < n:
                taken[k] += 1
                order.append(k)
    return order


def _cell_items(slots: dict, attrs: list[str], classes: list, start: int, count: int) -> Iterator[Item]:
    """`count` items of one cell from the slot cycle that begins at `start` (see the module docstring)."""
    g, given = start, 0
    while given < count:
        a = attrs[g % len(attrs)]
        c = classes[(g % len(attrs) + g // len(attrs)) % len(classes)]
        g += 1
        if slots[a][c]:
            given += 1
            yield slots[a][c].pop()


def draw(data: Filtered, n: int, rng: random.Random) -> tuple[list[Item], dict[str, str]]:
    """`n` distinct Track 2 questions (UsageError naming the maximum when `n` is above it)."""
    attrs, skipped = usable_or_refuse(data)
    most = maximum(data)
    if n > most:
        raise UsageError(
            f"--n {n}: this repository gives at most {most} distinct Track 2 questions; ask for at most that (--n max)"
        )
    by_attr = {a: attribute_pool(a, sorted(data.high(a), key=_key), sorted(data.low(a), key=_key), rng) for a in attrs}
    order = list(attrs)
    rng.shuffle(order)
    classes = {cell: (list(range(N_OPTIONS)) if cell[0] == "multiple_choice" else [True, False]) for cell in CELLS}
    capacity = [sum(len(x) for a in attrs for x in by_attr[a][cell].values()) for cell in CELLS]
    which = shares(capacity, n)
    per_cell = [which.count(k) for k in range(len(CELLS))]
    cells = []
    for k, cell in enumerate(CELLS):
        got = list(
            _cell_items({a: by_attr[a][cell] for a in attrs}, order, classes[cell], sum(per_cell[:k]), per_cell[k])
        )
        rng.shuffle(got)  # the cycles of the cells run in step; shuffled, the file shows no answer pattern
        cells.append(iter(got))
    return [next(cells[k]) for k in which], skipped


def _key(p: Pair) -> str:
    return p.category


def question(item: Item, adjective: str, variants: tuple[str, ...], rng: random.Random) -> dict:
    """The question as questions.jsonl holds it (without its id)."""
    if item.qtype == "multiple_choice":
        objs = list(item.objects[1:])
        rng.shuffle(objs)
        objs.insert(int(item.answer), item.objects[0])
        labels = [o.object_name for o in objs]
        answer, position = item.objects[0].object_name, int(item.answer) + 1
    else:
        objs = list(item.objects)
        labels = ["True", "False"]
        answer, position = ("True", 1) if item.answer else ("False", 2)
    names = [o.object_name for o in objs]
    return {
        "track": 2,
        "qtype": item.qtype,
        "stream": tp.STREAM[item.qtype],
        "attribute": item.attribute,
        "polarity": "positive" if item.positive else "negative",
        "texts": {v: tp.track2(item.qtype, item.positive, adjective, names, v) for v in variants},
        "labels": labels,
        "options": list(labels),
        "letters": False,
        "answer": answer,
        "position": position,
        "agreement": min(o.agreement for o in objs),
        "objects": [o.category for o in objs],
    }


def track2(
    data: Filtered, n: int, seed: int, variants: tuple[str, ...], adjective: Callable[[str], str]
) -> tuple[list[dict], dict[str, str]]:
    """`n` worded Track 2 questions with ids, and the attributes left out and why."""
    rng = random.Random(f"newton/{seed}/track2")
    attrs, _ = usable_attributes(data)
    words = {a: adjective(a) for a in attrs}  # refuse an attribute without wording before drawing anything
    items, skipped = draw(data, n, rng)
    qs = [{"id": f"t2-{i:05d}", **question(it, words[it.attribute], variants, rng)} for i, it in enumerate(items)]
    return qs, skipped
