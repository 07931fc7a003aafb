"""One uncertainty routine for every voebench report: a percentile bootstrap that resamples the clusters the data
come in, and says what it resampled.

Answers are not independent: the repeats of one sample share the sample, the samples (pairs, questions) of one
test share the test, and a human panel's answers share both the participant who gave them and the video they were
given to. A bootstrap that resamples answers (or samples, ignoring tests or people) pretends to more data than
there is and prints intervals that are too narrow, down to zero width ("77.3–77.3" over 22 answers of one pair).

- `nested`: clusters within clusters (e.g. tests, then samples within tests; repeats always stay with their
  sample). Each draw picks the top clusters with replacement, then, inside each picked cluster, its members with
  replacement (a cluster picked k times contributes k independent resamples of its members: the counts are
  multinomial(k * n, 1/n), which is what drawing k times n members gives). `strata` keep a balance fixed at the
  last level: the members of a cluster are resampled within their stratum (e.g. positive and negative samples
  of a test, so every draw keeps the test's pos/neg balance). A record without a stratum is its own stratum
  (None), never left out.
- `crossed`: a two-way bootstrap for data crossed by two factors (participants x videos): each draw resamples
  the participants and, independently, the videos (within strata), and an answer's weight is the product of its
  participant's and its video's counts (Brennan's boot-p,i; somewhat conservative, never too narrow).

The statistic is computed on weighted sums of the records' value columns: `ratio` (sum of column 0 / sum of
column 1: pooled correct / total, the accuracy the reports print), a callable on the sums (micro F1), or, with
`mean_of_top`, the mean over top clusters of each cluster's ratio (a suite's mean of per-test accuracies). The
point estimate is the same statistic on the unresampled data, so it is the number the report prints.

2.5 / 97.5 percentiles of N_BOOT draws, fixed seed, numpy only. A zero-width interval always comes with its reason
in `note`; where no interval can be estimated (no answers, one unit in all) lo and hi are None and `note` says
why. If the percentile interval misses the point estimate (rare: a skewed ratio over a few clusters) it is
extended to the point and `note` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

N_BOOT = 2000
SEED = 0
#: Weights are drawn in chunks of bootstrap draws so that a chunk's weight matrix stays below this many cells.
CHUNK_CELLS = 2_000_000

Stat = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Interval:
    """A point estimate and its bootstrap 95% interval. lo/hi are None when no interval could be estimated."""

    point: float | None
    lo: float | None
    hi: float | None
    n_boot: int
    resampled: str
    clusters: dict[str, int] = field(default_factory=dict)
    note: str | None = None

    @property
    def ci(self) -> list[float | None]:
        return [self.lo, self.hi]

    def as_dict(self) -> dict:
        return {
            "point": self.point,
            "lo": self.lo,
            "hi": self.hi,
            "n_boot": self.n_boot,
            "resampled": self.resampled,
            "clusters": dict(self.clusters),
            "note": self.note,
        }

    def text(self, scale: float = 100.0, digits: int = 1, sep: str = "–") -> str:
        """'25.0–48.0' (percent by default), or '–' without an interval; a note is marked with '*'."""
        if self.lo is None or self.hi is None:
            return "–" + ("*" if self.note else "")
        return f"{scale * self.lo:.{digits}f}{sep}{scale * self.hi:.{digits}f}" + ("*" if self.note else "")

    def describe(self) -> str:
        """One line for a report: what was resampled, how many clusters, how many draws, and any note."""
        counts = ", ".join(f"{v} {k}" for k, v in self.clusters.items())
        s = f"resampled {self.resampled} ({counts}), {self.n_boot} draws"
        return s + (f"; {self.note}" if self.note else "")


def ratio(sums: np.ndarray) -> np.ndarray:
    """Column 0 over column 1 of weighted sums (B, k) -> (B,); NaN where the denominator is 0."""
    num, den = sums[..., 0], sums[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _singular(name: str) -> str:
    return {
        "tests": "test",
        "samples": "sample",
        "pairs": "pair",
        "participants": "participant",
        "videos": "video",
        "trials": "trial",
        "questions": "question",
        "clips": "clip",
        "items": "item",
    }.get(name, name)


def _none(point: float | None, resampled: str, clusters: dict, note: str, n_boot: int) -> Interval:
    return Interval(point, None, None, n_boot, resampled, clusters, note)


def _finish(
    point: float,
    draws: np.ndarray,
    n_boot: int,
    resampled: str,
    clusters: dict,
    values: np.ndarray,
    unit: str,
    note: str | None,
) -> Interval:
    """Percentiles of the draws, with the notes for degenerate cases."""
    ok = draws[np.isfinite(draws)]
    if len(ok) == 0:
        return _none(point, resampled, clusters, "no draw gave a defined value", n_boot)
    lo, hi = (float(x) for x in np.percentile(ok, [2.5, 97.5]))
    notes = [note] if note else []
    if len(ok) < len(draws):
        notes.append(f"{len(draws) - len(ok)} of {len(draws)} draws undefined (left out)")
    if hi - lo <= 1e-12 * max(1.0, abs(point)):
        lo = hi = point
        if len(np.unique(values, axis=0)) <= 1:
            notes.append("every answer scores alike: no resample can change the score (zero width)")
        else:
            notes.append(f"every resample gives the same score (the resampled {unit}s all score alike): zero width")
    elif not lo <= point <= hi:
        notes.append("the percentile interval missed the point estimate (skewed resamples): extended to it")
        lo, hi = min(lo, point), max(hi, point)
    return Interval(point, lo, hi, n_boot, resampled, clusters, "; ".join(notes) or None)


def nested(
    keys: Sequence[Sequence[Hashable]],
    values: Sequence[Sequence[float]] | np.ndarray,
    levels: Sequence[str],
    stat: Stat = ratio,
    strata: Sequence[Hashable] | None = None,
    mean_of_top: bool = False,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> Interval:
    """Bootstrap over nested clusters. `keys[i]` is record i's cluster path, one key per level (e.g. (test,
    sample_id) for levels ("tests", "samples")); records with the same full path are one unit and stay together
    (the repeats of a sample). `values[i]` are record i's value columns (ratio: (correct, 1)). `strata[i]`
    (optional) fixes the balance of the last level: members are resampled within their stratum."""
    levels = list(levels)
    depth = len(levels)
    resampled = levels[0] + "".join(f", then {lv} within {levels[i]}" for i, lv in enumerate(levels[1:]))
    if strata is not None:
        resampled += " (stratified)"
    vals = np.asarray(values, dtype=float).reshape(len(keys), -1) if len(keys) else np.zeros((0, 2))
    if len(keys) == 0:
        return _none(None, resampled, {lv: 0 for lv in levels}, "no answers: no score, no interval", n_boot)
    # the tree: level-d nodes are prefixes of length d+1; leaves are full paths
    paths = [tuple(k) for k in keys]
    leaf_index: dict[tuple, int] = {}
    rec_leaf = np.array([leaf_index.setdefault(p, len(leaf_index)) for p in paths])
    n_leaves = len(leaf_index)
    leaf_vals = np.zeros((n_leaves, vals.shape[1]))
    np.add.at(leaf_vals, rec_leaf, vals)
    leaf_stratum: dict[int, Hashable] = {}
    if strata is not None:
        for i, s in zip(rec_leaf, strata):
            leaf_stratum.setdefault(int(i), s)
    clusters = {lv: len({p[: d + 1] for p in paths}) for d, lv in enumerate(levels)}
    top_keys = sorted({p[0] for p in paths}, key=repr)
    top_pos = {t: g for g, t in enumerate(top_keys)}
    top_leaves: list[list[int]] = [[] for _ in top_keys]
    for p, leaf in leaf_index.items():
        top_leaves[top_pos[p[0]]].append(leaf)

    def point_of(sums_by_top: dict) -> float:
        if not mean_of_top:
            return float(stat(leaf_vals.sum(0)[None, :])[0])
        r = np.array([float(stat(s[None, :])[0]) for s in sums_by_top.values()])
        return float(np.nanmean(r)) if np.isfinite(r).any() else float("nan")

    point = point_of({t: leaf_vals[idx].sum(0) for t, idx in zip(top_keys, top_leaves)})
    if not np.isfinite(point):
        return _none(None, resampled, clusters, "no scored answers: the score is undefined", n_boot)
    note = None
    if n_leaves == 1:
        return _none(
            point, resampled, clusters, f"one {_singular(levels[-1])}: nothing to resample, no interval", n_boot
        )
    if depth > 1 and clusters[levels[0]] == 1:
        note = (
            f"one {_singular(levels[0])}: the interval covers only the variation of its {levels[1]}, "
            f"not between {levels[0]}"
        )

    # children of every internal node, split by stratum at the last level
    children: dict[tuple, dict] = {}
    for p, leaf in leaf_index.items():
        for d in range(depth):
            parent, child = p[:d], (p[: d + 1] if d < depth - 1 else leaf)
            part = leaf_stratum.get(leaf) if (d == depth - 1 and strata is not None) else None
            children.setdefault((parent, repr(part)), {})[child] = None
    by_parent: dict[tuple, list[list]] = {}
    for (parent, _part), kids in children.items():
        by_parent.setdefault(parent, []).append(list(kids))

    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_boot, CHUNK_CELLS // max(1, n_leaves)))
    draws = []
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        counts: dict = {(): np.ones(b, dtype=np.int64)}
        leaf_w = np.zeros((b, n_leaves))
        top_w = np.zeros((b, len(top_keys)))
        frontier = [()]
        for d in range(depth):
            nxt = []
            for parent in frontier:
                c = counts[parent]
                for lst in by_parent[parent]:
                    draw = rng.multinomial(c * len(lst), np.full(len(lst), 1.0 / len(lst)))
                    for j, child in enumerate(lst):
                        if d == depth - 1:
                            leaf_w[:, child] += draw[:, j]
                        else:
                            counts[child] = counts.get(child, 0) + draw[:, j]
                            nxt.append(child)
            frontier = list(dict.fromkeys(nxt))
        if not mean_of_top:
            draws.append(stat(leaf_w @ leaf_vals))
            continue
        for g, (t, idx) in enumerate(zip(top_keys, top_leaves)):
            top_w[:, g] = counts[(t,)] if depth > 1 else leaf_w[:, idx].sum(1)
        per_top = np.stack([stat(leaf_w[:, idx] @ leaf_vals[idx]) for idx in top_leaves], 1)
        w = np.where(np.isfinite(per_top), top_w, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            draws.append(np.where(w.sum(1) > 0, np.nansum(per_top * w, 1) / w.sum(1), np.nan))
    return _finish(point, np.concatenate(draws), n_boot, resampled, clusters, vals, _singular(levels[-1]), note)


def crossed(
    rows: Sequence[Hashable],
    cols: Sequence[Hashable],
    values: Sequence[Sequence[float]] | np.ndarray,
    names: tuple[str, str] = ("participants", "videos"),
    stat: Stat = ratio,
    col_strata: Sequence[Hashable] | None = None,
    groups: Sequence[Hashable] | None = None,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> Interval:
    """Two-way bootstrap of records crossed by `rows` (participants) and `cols` (videos): both resampled
    independently in every draw (`cols` within `col_strata`), a record weighted by the product of the counts.
    With `groups` (e.g. each record's test; give the group in `col_strata` too, so that videos stay in their
    test) the statistic is the mean over the groups of each group's statistic (a suite's mean over tests)."""
    resampled = f"{names[0]} and {names[1]} (crossed)" + (f", {names[1]} stratified" if col_strata is not None else "")
    if len(rows) == 0:
        return _none(None, resampled, {names[0]: 0, names[1]: 0}, "no answers: no score, no interval", n_boot)
    vals = np.asarray(values, dtype=float).reshape(len(rows), -1)
    r_keys = sorted(set(rows), key=repr)
    c_keys = sorted(set(cols), key=repr)
    ri = _index(rows, r_keys)
    ci = _index(cols, c_keys)
    clusters = {names[0]: len(r_keys), names[1]: len(c_keys)}
    gidx = (
        [np.flatnonzero(np.array([g == k for g in groups])) for k in sorted(set(groups), key=repr)]
        if groups is not None
        else [np.arange(len(vals))]
    )
    if groups is not None:
        resampled += f"; mean over {len(gidx)} fixed groups"

    def grouped(w: np.ndarray) -> np.ndarray:  # (b, R) weights -> (b,) statistic
        per = np.stack([stat(w[:, idx] @ vals[idx]) for idx in gidx], 1)
        ok = np.isfinite(per)
        n = ok.sum(1)
        return np.where(n > 0, np.where(ok, per, 0.0).sum(1) / np.maximum(n, 1), np.nan)

    point = float(grouped(np.ones((1, len(vals))))[0])
    if not np.isfinite(point):
        return _none(None, resampled, clusters, "no scored answers: the score is undefined", n_boot)
    if len(r_keys) == 1 and len(c_keys) == 1:
        return _none(
            point,
            resampled,
            clusters,
            f"one {_singular(names[0])} and one {_singular(names[1])}: nothing to resample, no interval",
            n_boot,
        )
    note = None
    if len(r_keys) == 1:
        note = f"one {_singular(names[0])}: the interval covers only the variation between {names[1]}"
    elif len(c_keys) == 1:
        note = f"one {_singular(names[1])}: the interval covers only the variation between {names[0]}"
    parts: dict[str, list[int]] = {}
    col_stratum: dict[int, Hashable] = {}
    if col_strata is not None:
        for c, s in zip(ci, col_strata):
            col_stratum.setdefault(int(c), s)
    for j in range(len(c_keys)):
        parts.setdefault(repr(col_stratum.get(j)), []).append(j)
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_boot, CHUNK_CELLS // max(1, len(vals))))
    draws = []
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        wr = rng.multinomial(len(r_keys), np.full(len(r_keys), 1.0 / len(r_keys)), size=b).astype(float)
        wc = np.zeros((b, len(c_keys)))
        for idx in parts.values():
            wc[:, idx] = rng.multinomial(len(idx), np.full(len(idx), 1.0 / len(idx)), size=b)
        draws.append(grouped(wr[:, ri] * wc[:, ci]))
    return _finish(
        point,
        np.concatenate(draws),
        n_boot,
        resampled,
        clusters,
        vals,
        f"{_singular(names[0])} and {_singular(names[1])}",
        note,
    )


def _index(items: Sequence[Hashable], keys: list) -> np.ndarray:
    pos = {k: i for i, k in enumerate(keys)}
    return np.array([pos[x] for x in items], dtype=np.int64)
