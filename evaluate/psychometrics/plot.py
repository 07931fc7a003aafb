"""One figure per test: every scorer's proportions per level (points with their 95% intervals) and fitted curve
(line; dotted where the curve is flat) on the same axes, the threshold marked with its interval (a bar at the
threshold's height). matplotlib with the Agg backend (files only)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from voebench.errors import UsageError
from voebench.evaluate.psychometrics.fitting import Fit
from voebench.evaluate.psychometrics.table import LevelRow


def plot_test(
    curves: Mapping[str, tuple[Fit, list[LevelRow]]],
    path: str,
    title: str = "",
    unit: str = "",
    ylabel: str = "proportion noticed",
) -> str:
    """Draw `curves` (scorer name -> (fit, level table)) to `path`; returns the path."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("psychometric plots need matplotlib (pip install 'voebench[eval]')") from None
    fig, ax = plt.subplots(figsize=(6.4, 4.0 + 0.2 * len(curves)))
    levels = sorted({r.level for _, rows in curves.values() for r in rows})
    lo, hi = (levels[0], levels[-1]) if levels else (0.0, 1.0)
    pad = 0.03 * (hi - lo or 1.0)
    grid = np.linspace(lo, hi, 200)
    for i, (name, (f, rows)) in enumerate(curves.items()):
        color = f"C{i % 10}"
        xs = np.array([r.level for r in rows if r.proportion is not None])
        ps = np.array([r.proportion for r in rows if r.proportion is not None])
        err = np.array(
            [
                [r.proportion - r.lo, r.hi - r.proportion] if r.lo is not None and r.hi is not None else [0.0, 0.0]
                for r in rows
                if r.proportion is not None
            ]
        ).T.reshape(2, -1)
        dx = (i - (len(curves) - 1) / 2) * pad / 2  # side by side where scorers share levels
        ax.errorbar(xs + dx, ps, yerr=err, fmt="o", color=color, ms=4, capsize=2, lw=1)
        label = (
            f"{name}: threshold {f.threshold.text()}"
            if f.threshold.point is not None
            else f"{name}: no threshold" + (f" ({f.notes[0].split(':')[0]})" if f.notes else "")
        )
        curve = f.curve(grid)
        if curve is not None:
            ax.plot(grid, curve, color=color, lw=1.5, ls=":" if f.flat else "-", label=label)
        else:
            ax.plot([], [], color=color, label=label)
        t = f.threshold
        if t.point is not None and f.curve(t.point) is not None:
            y = float(np.asarray(f.curve(t.point)))
            ax.plot(
                [t.lo if t.lo is not None else lo - pad, t.hi if t.hi is not None else hi + pad],
                [y, y],
                color=color,
                lw=3,
                alpha=0.4,
            )
            ax.plot([t.point], [y], marker="|", color=color, ms=12)
    ax.set_xlim(lo - 2 * pad, hi + 2 * pad)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(f"violation level{f' ({unit})' if unit else ''}")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)  # below: no point hidden
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")  # long legend lines widen the figure rather than being cut
    plt.close(fig)
    return path
