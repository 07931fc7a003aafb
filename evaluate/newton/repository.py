"""An object-attribute repository in NEWTON's published format, and the paper's filter.

A repository is a CSV file with a header naming (at least) the columns of NEWTON's release:

    attribute, category, type, question, option_1, option_2, option_3, result_majority, agreement

One row is one object-attribute pair annotated on a 3-point Likert scale: `category` is the object (e.g.
`baseball_bat`), `question` the annotators' question (with `<MASK>` where the object goes, or already filled in),
`option_1..3` the answers from the low to the high end of the scale, `result_majority` the majority answer (1, 2
or 3, or the text of one of the options) and `agreement` the share of annotators who chose it (a fraction in
[0, 1], or a percentage in (1, 100]). `type` is kept as given.

Filtering (paper Section 3.2): a pair is kept when its agreement is at least 0.75 (three of four annotators) and
its majority answer is an extreme of the scale (1 = low, 3 = high); middle answers are ambiguous and dropped.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field

from voebench.errors import UsageError

COLUMNS = (
    "attribute",
    "category",
    "type",
    "question",
    "option_1",
    "option_2",
    "option_3",
    "result_majority",
    "agreement",
)
MIN_AGREEMENT = 0.75
EXTREMES = (1, 3)  # Likert answers that survive the filter: 1 = low, 3 = high
HIGH, LOW = 3, 1


@dataclass(frozen=True)
class Pair:
    """One annotated object-attribute pair."""

    attribute: str  # normalised: lower case, single spaces ("surface smoothness")
    category: str  # the object as written in the file ("baseball_bat")
    type: str
    question: str
    options: tuple[str, str, str]
    majority: int  # 1, 2 or 3
    agreement: float  # fraction in [0, 1]
    line: int  # where it is in the file (for messages)

    @property
    def object_name(self) -> str:
        """The object as a question says it: underscores become spaces."""
        return " ".join(self.category.replace("_", " ").split())


@dataclass
class Repository:
    path: str
    sha256: str
    pairs: list[Pair]
    duplicates: int = 0  # rows repeating an (attribute, category) already read; the first is kept


@dataclass
class Filtered:
    pairs: list[Pair]
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> count
    _index: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    def high(self, attribute: str) -> list[Pair]:
        return [p for p in self.pairs if p.attribute == attribute and p.majority == HIGH]

    def low(self, attribute: str) -> list[Pair]:
        return [p for p in self.pairs if p.attribute == attribute and p.majority == LOW]

    def attributes(self) -> list[str]:
        return sorted({p.attribute for p in self.pairs})

    def value(self, attribute: str, category: str) -> int | None:
        """The kept Likert extreme of one object for one attribute, or None when the pair was not kept."""
        if len(self._index) != len(self.pairs):
            self._index = {(p.attribute, p.category): p.majority for p in self.pairs}
        return self._index.get((attribute, category))


def normalise_attribute(name: str) -> str:
    return " ".join(name.replace("_", " ").lower().split())


def _majority(raw: str, options: tuple[str, str, str], where: str) -> int:
    s = raw.strip()
    try:
        v = float(s)
    except ValueError:
        for k, opt in enumerate(options, 1):
            if s and s.lower() == opt.strip().lower():
                return k
        raise UsageError(f"{where}: result_majority {raw!r} is neither 1, 2, 3 nor the text of an option") from None
    if v not in (1.0, 2.0, 3.0):
        raise UsageError(f"{where}: result_majority {raw!r} must be 1, 2 or 3")
    return int(v)


def _agreement(raw: str, where: str) -> float:
    try:
        v = float(raw.strip().rstrip("%"))
    except ValueError:
        raise UsageError(f"{where}: agreement {raw!r} is not a number") from None
    if not 0.0 <= v <= 100.0 or v != v:
        raise UsageError(f"{where}: agreement {raw!r} must be a fraction in [0, 1] or a percentage in (1, 100]")
    return v / 100.0 if v > 1.0 else v


def read_repository(path: str) -> Repository:
    """Every row of the CSV at `path` (UsageError naming file and line for a missing column or a bad value)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise UsageError(f"--repository {path}: unreadable ({e.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"--repository {path}: not UTF-8 text") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise UsageError(
            f"--repository {path}: no column {', '.join(missing)} (NEWTON's columns: {', '.join(COLUMNS)})"
        )
    reader.fieldnames = header
    pairs: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    duplicates = 0
    for n, row in enumerate(reader, 2):
        where = f"{path}:{n}"
        if any(row.get(c) is None for c in COLUMNS):
            raise UsageError(f"{where}: the row has fewer fields than the header")
        attribute = normalise_attribute(row["attribute"])
        category = row["category"].strip()
        if not attribute or not category:
            raise UsageError(f"{where}: empty attribute or category")
        options = (row["option_1"].strip(), row["option_2"].strip(), row["option_3"].strip())
        pair = Pair(
            attribute=attribute,
            category=category,
            type=row["type"].strip(),
            question=row["question"].strip(),
            options=options,
            majority=_majority(row["result_majority"], options, where),
            agreement=_agreement(row["agreement"], where),
            line=n,
        )
        if (attribute, category) in seen:
            duplicates += 1
            continue
        seen.add((attribute, category))
        pairs.append(pair)
    if not pairs:
        raise UsageError(f"--repository {path}: no rows")
    return Repository(path, hashlib.sha256(data).hexdigest(), pairs, duplicates)


def filter_pairs(pairs: list[Pair], min_agreement: float = MIN_AGREEMENT) -> Filtered:
    """The pairs the paper keeps: agreement >= `min_agreement` and an extreme majority answer (1 or 3)."""
    kept, dropped = [], {"low_agreement": 0, "middle_answer": 0}
    for p in pairs:
        if p.agreement < min_agreement:
            dropped["low_agreement"] += 1
        elif p.majority not in EXTREMES:
            dropped["middle_answer"] += 1
        else:
            kept.append(p)
    return Filtered(kept, dropped)
