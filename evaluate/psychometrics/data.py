"""Responses in, per-trial count tables out.

A response is one answer of one scorer to one video: the trial the video belongs to (its matched twins share the
trial), the video's violation level (0 = the plausible twin; the unit is the test's own, see
docs/psychometrics.md), and whether the answer noticed the violation (for a yes/no plausibility question: answered
"implausible"; for relative accuracy: judged the right video of a pair). Repeats of one video (seeds, several
participants) are several responses with the same trial and level.

The trial is the unit the bootstrap resamples: the levels of one trial share everything before the onset, so
their answers are not independent of each other.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from voebench.errors import UsageError

#: Keys a mapping row may use for each field, first match wins.
TRIAL_KEYS = ("trial", "trial_id", "pair_id")
LEVEL_KEYS = ("level", "violation_level")
NOTICED_KEYS = ("noticed", "correct")


@dataclass(frozen=True)
class Response:
    trial: Hashable
    level: float
    noticed: bool


@dataclass(frozen=True)
class Table:
    """Counts by trial (rows) and level (columns): `n` responses and `k` of them noticed."""

    levels: np.ndarray  # (L,) sorted distinct levels
    trials: list  # (T,) trial ids, in first-seen order
    n: np.ndarray  # (T, L)
    k: np.ndarray  # (T, L)

    @property
    def totals(self) -> tuple[np.ndarray, np.ndarray]:
        """(N, K) per level, summed over trials."""
        return self.n.sum(0), self.k.sum(0)


def _pick(row: Mapping, keys: tuple[str, ...], what: str, i: int) -> object:
    for key in keys:
        if key in row:
            return row[key]
    raise UsageError(f"response {i}: no {what} (one of the keys {', '.join(keys)})")


def as_response(row: object, i: int = 0) -> Response:
    """A Response from a Response, a (trial, level, noticed) tuple or a mapping (keys above). Refuses a level that
    is not a finite number and a `noticed` that is not a bool or 0/1."""
    level: object
    noticed: object
    if isinstance(row, Response):
        trial, level, noticed = row.trial, row.level, row.noticed
    elif isinstance(row, Mapping):
        trial = _pick(row, TRIAL_KEYS, "trial", i)
        level = _pick(row, LEVEL_KEYS, "level", i)
        noticed = _pick(row, NOTICED_KEYS, "noticed flag", i)
    elif isinstance(row, (tuple, list)) and len(row) == 3:
        trial, level, noticed = row
    else:
        raise UsageError(f"response {i}: expected (trial, level, noticed), got {row!r}")
    if (
        isinstance(level, bool)
        or not isinstance(level, (int, float, np.integer, np.floating))
        or not math.isfinite(float(level))
    ):
        raise UsageError(f"response {i} (trial {trial!r}): level {level!r} is not a finite number")
    if isinstance(noticed, (bool, np.bool_)) or noticed in (0, 1):
        return Response(trial, float(level), bool(noticed))
    raise UsageError(f"response {i} (trial {trial!r}): noticed {noticed!r} is not true/false")


def tabulate(rows: Iterable[object]) -> Table:
    """The count table of `rows` (see `as_response`)."""
    responses = [as_response(r, i) for i, r in enumerate(rows)]
    levels = np.array(sorted({r.level for r in responses}), dtype=float)
    trials = list(dict.fromkeys(r.trial for r in responses))
    t_pos = {t: i for i, t in enumerate(trials)}
    l_pos = {float(x): j for j, x in enumerate(levels)}
    n = np.zeros((len(trials), len(levels)))
    k = np.zeros((len(trials), len(levels)))
    for r in responses:
        n[t_pos[r.trial], l_pos[r.level]] += 1
        k[t_pos[r.trial], l_pos[r.level]] += r.noticed
    return Table(levels, trials, n, k)
