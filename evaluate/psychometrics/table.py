"""The proportion noticed at each level, with a cluster-aware 95% interval, beside the fitted curve.

Each level's interval is evaluate.uncertainty's percentile bootstrap over the trials seen at that level (the
repeats of one video stay together with their trial), so it is never narrower than the data allow; a zero-width
interval (0 of 16, 16 of 16) comes with uncertainty's note saying why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from voebench.evaluate import uncertainty
from voebench.evaluate.psychometrics.data import Table, tabulate
from voebench.evaluate.psychometrics.fitting import Fit


@dataclass(frozen=True)
class LevelRow:
    level: float
    n: int  # responses
    trials: int
    noticed: int
    proportion: float | None
    lo: float | None
    hi: float | None
    fitted: float | None  # psi of the fit at this level
    note: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def level_table(
    rows: Iterable[object] | Table,
    fitted: Fit | None = None,
    n_boot: int = uncertainty.N_BOOT,
    seed: int = uncertainty.SEED,
) -> list[LevelRow]:
    """One row per level tested, in increasing order of level."""
    table = rows if isinstance(rows, Table) else tabulate(rows)
    out = []
    for j, level in enumerate(table.levels):
        keys, values = [], []
        for t, trial in enumerate(table.trials):
            n, k = int(table.n[t, j]), int(table.k[t, j])
            keys += [(trial,)] * n
            values += [(1.0, 1.0)] * k + [(0.0, 1.0)] * (n - k)
        iv = uncertainty.nested(keys, values, ("trials",), n_boot=n_boot, seed=seed)
        curve = fitted.curve(float(level)) if fitted is not None else None
        out.append(
            LevelRow(
                level=float(level),
                n=len(keys),
                trials=int((table.n[:, j] > 0).sum()),
                noticed=int(table.k[:, j].sum()),
                proportion=iv.point,
                lo=iv.lo,
                hi=iv.hi,
                fitted=None if curve is None else float(curve),
                note=iv.note,
            )
        )
    return out


def markdown(rows: list[LevelRow], unit: str = "") -> str:
    """The table as markdown (proportions in %)."""
    head = f"| level{f' ({unit})' if unit else ''} | trials | answers | noticed | % noticed | 95% CI | fitted % |"
    lines = [head, "|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        p = "–" if r.proportion is None else f"{100 * r.proportion:.1f}"
        ci = "–" if r.lo is None or r.hi is None else f"{100 * r.lo:.1f}–{100 * r.hi:.1f}"
        fit_ = "–" if r.fitted is None else f"{100 * r.fitted:.1f}"
        lines.append(f"| {r.level:g} | {r.trials} | {r.n} | {r.noticed} | {p} | {ci}{'*' if r.note else ''} | {fit_} |")
    return "\n".join(lines)
