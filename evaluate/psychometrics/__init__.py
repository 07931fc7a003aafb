"""Psychometric curves: how large must a violation be before a scorer notices it?

- data.py: responses (trial, level, noticed) and their per-trial count table;
- function.py: psi(x) = guess + (1 - guess - lapse) F(slope (x - threshold)), logistic or cumulative normal;
- fitting.py: the maximum-likelihood fit, bootstrap intervals over trials, goodness of fit, notes for degenerate data;
- table.py: the proportion noticed per level with a cluster-aware interval, beside the fitted curve;
- plot.py: several scorers' curves for one test on one set of axes;
- responses.py: responses per test from a run (a model's or a panel's yes/no answers, a world model's pairs) or
  from human answer rows;
- report.py: `voebench report RUN... --psychometric DIR`: every scorer fitted per graded test, tables and figures;
- simulate.py: a swept set, a world model and a human panel, simulated, for the report's tests and demo.

See docs/psychometrics.md.
"""

from voebench.evaluate.psychometrics.data import Response, Table, tabulate
from voebench.evaluate.psychometrics.fitting import Estimate, Fit, fit
from voebench.evaluate.psychometrics.function import psi
from voebench.evaluate.psychometrics.table import LevelRow, level_table

__all__ = ["Estimate", "Fit", "LevelRow", "Response", "Table", "fit", "level_table", "psi", "tabulate"]
