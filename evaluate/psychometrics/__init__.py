"""Psychometric curves: how large must a violation be before a scorer notices it?

- data.py: responses (trial, level, noticed) and their per-trial count table;
- function.py: psi(x) = guess + (1 - guess - lapse) F(slope (x - threshold)), logistic or cumulative normal;
- fitting.py: the maximum-likelihood fit, bootstrap intervals over trials, goodness of fit, notes for degenerate data;
- table.py: the proportion noticed per level with a cluster-aware interval, beside the fitted curve;
- plot.py: several scorers' curves for one test on one set of axes.

See docs/psychometrics.md.
"""

from voebench.evaluate.psychometrics.data import Response, Table, tabulate
from voebench.evaluate.psychometrics.fitting import Estimate, Fit, fit
from voebench.evaluate.psychometrics.function import psi
from voebench.evaluate.psychometrics.table import LevelRow, level_table

__all__ = ["Estimate", "Fit", "LevelRow", "Response", "Table", "fit", "level_table", "psi", "tabulate"]
