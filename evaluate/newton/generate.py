"""Questions from a filtered repository: condition statements {attribute, polarity, padding} pick objects, the
templates (`templates.py`) word them.

A condition statement asks for one object of the given attribute and polarity (high = Likert 3, low = 1) and
`padding` objects of the opposite polarity (paper Section 3.3). Every track spreads its questions evenly over
cells (Track 1: attribute x extreme; Track 3: scenario), and inside a cell over attributes and over the correct
answer (its position among the options), each as a balanced sequence shuffled on its own, so no attribute is tied
to an answer. Track 2 (`track2.py`) draws from every question the released generator's pairings allow, with the
same balance while it lasts, and never fails below the maximum it reports. Everything is drawn from
`random.Random` seeded by the seed and the track: the same repository and seed give the same questions.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field

from voebench.errors import UsageError
from voebench.evaluate.newton import templates as tp
from voebench.evaluate.newton import track2 as t2
from voebench.evaluate.newton.repository import HIGH, LOW, Filtered, Pair

N_OPTIONS = 4  # multiple-choice and scenario questions offer four objects (paper Table 1)
NO_PAIRS = "no pair of the repository survives the filter (agreement >= 0.75, answer 1 or 3)"
MAX_TRIES = 200  # draws per question before a cell is declared too small for distinct questions


@dataclass
class Plan:
    """What a track could use and what it had to leave out (written to newton.json)."""

    questions: list[dict] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # attribute or scenario -> why


def balanced(values: list, n: int, rng: random.Random, start: int = 0) -> list:
    """`n` items cycling through `values` from the `start`-th (each used n // len or that + 1 times), in a
    shuffled order. Cells that continue one cycle (`start` = the items given out before) keep the whole track
    balanced too, not only each cell."""
    out = [values[(start + k) % len(values)] for k in range(n)]
    rng.shuffle(out)
    return out


def _adjective(attribute: str, adjectives: dict[str, str]) -> str:
    adj = adjectives.get(attribute) or tp.ADJECTIVES.get(attribute)
    if adj is None:
        raise UsageError(
            f"attribute {attribute!r} has no adjective for Track 2's templates; "
            f"pass --adjective '{attribute}=<phrase>' (e.g. 'elasticity=elastic')"
        )
    return adj


def _unique(make, seen: set, what: str):
    for _ in range(MAX_TRIES):
        q, key = make()
        if key not in seen:
            seen.add(key)
            return q
    raise UsageError(
        f"{what}: the repository has too few objects for that many distinct questions; ask for fewer (--n)"
    )


# ---------------------------------------------------------------------------------------------------------- Track 1


def track1(data: Filtered, n: int, seed: int, variants: tuple[str, ...]) -> Plan:
    """`n` of the kept pairs as the annotators' question, alternating low and high answers (so the correct
    option is the first or the last equally often while both extremes last) and, within each, round robin over
    the attributes."""
    rng = random.Random(f"newton/{seed}/track1")
    if n > len(data.pairs):
        raise UsageError(f"--n {n}: the filtered repository has only {len(data.pairs)} pairs for Track 1")
    queues = []
    for extreme in (LOW, HIGH):
        groups: dict[str, list[Pair]] = defaultdict(list)
        for p in data.pairs:
            if p.majority == extreme:
                groups[p.attribute].append(p)
        for g in groups.values():
            rng.shuffle(g)
        order: list[Pair] = []  # round robin over the attributes
        while any(groups.values()):
            for a in sorted(groups):
                if groups[a]:
                    order.append(groups[a].pop())
        queues.append(order)
    picked: list[Pair] = []
    k = 0
    while len(picked) < n:
        q = queues[k % 2] if queues[k % 2] else queues[(k + 1) % 2]
        picked.append(q.pop(0))
        k += 1
    plan = Plan()
    for i, p in enumerate(picked):
        labels = [tp.option_label(o) for o in p.options]
        if len({x.lower() for x in labels}) < len(labels):  # options without distinct short answers: letters only
            labels = [tp.LETTERS[k] for k in range(len(labels))]
        plan.questions.append(
            {
                "id": f"t1-{i:05d}",
                "track": 1,
                "qtype": "likert",
                "stream": "likert",
                "attribute": p.attribute,
                "polarity": None,
                "extreme": "high" if p.majority == HIGH else "low",
                "texts": {v: tp.track1(p.question, p.object_name, p.options, v) for v in variants},
                "labels": labels,
                "options": list(p.options),
                "letters": True,
                "answer": labels[p.majority - 1],
                "position": p.majority,
                "agreement": p.agreement,
                "objects": [p.category],
            }
        )
    return plan


# ---------------------------------------------------------------------------------------------------------- Track 2


def track2(data: Filtered, n: int, seed: int, variants: tuple[str, ...], adjectives: dict[str, str]) -> Plan:
    """The released generator's pairings, drawn balanced (`track2.py`)."""
    questions, skipped = t2.track2(data, n, seed, variants, lambda a: _adjective(a, adjectives))
    return Plan(questions=questions, skipped=skipped)


def maximum(data: Filtered, track: int) -> int | None:
    """The most questions `track` gives from `data` (what `--n max` asks for), or UsageError saying why it gives
    none; None where there is no fixed maximum (Track 3 draws its option sets at random)."""
    if not data.pairs:
        raise UsageError(NO_PAIRS)
    if track == 1:
        return len(data.pairs)
    if track == 2:
        t2.usable_or_refuse(data)
        return t2.maximum(data)
    return None


# ---------------------------------------------------------------------------------------------------------- Track 3


def scenario_candidates(data: Filtered, sc: tp.Scenario) -> tuple[list[str], list[str]]:
    """(objects with every attribute of the scenario at the wanted extreme, objects at the opposite extreme of
    every one of them). Objects unannotated (or filtered out) for one of the attributes are in neither: their
    value is unknown, so they could be the right answer as well."""
    want = {a: (HIGH if level == "high" else LOW) for a, level in sc.attributes}
    objects = sorted({p.category for p in data.pairs})
    right, wrong = [], []
    for o in objects:
        vals = {a: data.value(a, o) for a in want}
        if all(vals[a] == want[a] for a in want):
            right.append(o)
        elif all(vals[a] is not None and vals[a] != want[a] for a in want):
            wrong.append(o)
    return right, wrong


def track3(data: Filtered, n: int, seed: int, variants: tuple[str, ...]) -> Plan:
    rng = random.Random(f"newton/{seed}/track3")
    plan = Plan()
    usable = []
    for sc in tp.SCENARIOS:
        right, wrong = scenario_candidates(data, sc)
        if not right or len(wrong) < N_OPTIONS - 1:
            plan.skipped[f"scenario {sc.number}"] = (
                f"{len(right)} fitting and {len(wrong)} opposite objects; needs 1 and {N_OPTIONS - 1}"
            )
        else:
            usable.append((sc, right, wrong))
    if not usable:
        raise UsageError("Track 3: no scenario has a fitting object and three opposite ones in the filtered repository")
    count = [len(range(k, n, len(usable))) for k in range(len(usable))]
    positions = {k: balanced(list(range(N_OPTIONS)), count[k], rng, sum(count[:k])) for k in range(len(usable))}
    names = {p.category: p.object_name for p in data.pairs}
    seen: set = set()
    for i in range(n):
        k = i % len(usable)
        sc, right, wrong = usable[k]
        target = positions[k][i // len(usable)]

        def make(sc=sc, right=right, wrong=wrong, target=target):
            one = rng.choice(right)
            objs = rng.sample(wrong, N_OPTIONS - 1)
            objs.insert(target, one)
            labels = [names[o] for o in objs]
            q = {
                "track": 3,
                "qtype": "scenario",
                "stream": "scenario",
                "attribute": f"scenario {sc.number}",
                "attributes": dict(sc.attributes),
                "polarity": None,
                "texts": {v: tp.track3(sc, labels, v) for v in variants},
                "labels": labels,
                "options": list(labels),
                "letters": False,
                "answer": names[one],
                "position": target + 1,
                "agreement": None,
                "objects": objs,
            }
            return q, (sc.number, tuple(objs))

        q = _unique(make, seen, f"Track 3 (scenario {sc.number})")
        plan.questions.append({"id": f"t3-{i:05d}", **q})
    return plan


def generate(
    data: Filtered,
    track: int,
    n: int,
    seed: int,
    variants: tuple[str, ...] = ("v1",),
    adjectives: dict[str, str] | None = None,
) -> Plan:
    if n < 1:
        raise UsageError("--n must be at least 1")
    if not data.pairs:
        raise UsageError(NO_PAIRS)
    if track == 1:
        return track1(data, n, seed, variants)
    if track == 2:
        return track2(data, n, seed, variants, adjectives or {})
    if track == 3:
        return track3(data, n, seed, variants)
    raise UsageError(f"--track {track}: choose 1, 2 or 3")
