"""The psychometric function: psi(x) = guess + (1 - guess - lapse) * F(slope * (x - threshold)).

`F` is a sigmoid from 0 to 1 with F(0) = 1/2: the logistic 1 / (1 + exp(-z)) or the cumulative normal Phi(z).
`threshold` is the level where F = 1/2, i.e. where psi is halfway between the guess rate (what the scorer says
with no violation to see) and 1 - lapse (its ceiling: the share of misses that no size of violation removes).
`slope` is the sigmoid's rate in 1 / (level unit): logistic F = 1 / (1 + exp(-slope (x - threshold))); normal
F = Phi(slope (x - threshold)), i.e. slope = 1 / sigma. Two curves of different sigmoids with the same slope do not
rise equally fast, so reports also give the `width`: the distance in levels from F = 0.1 to F = 0.9
(logistic: 2 ln 9 / slope = 4.39 / slope; normal: 2 * 1.2816 / slope = 2.56 / slope), which is comparable.

numpy and the standard library only (no scipy), so that `fake:psychometric` runs on the core install.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

_erfc = np.frompyfunc(math.erfc, 1, 1)
_SQRT2 = math.sqrt(2.0)

SIGMOIDS = ("logistic", "normal")


def check_sigmoid(sigmoid: str) -> None:
    if sigmoid not in SIGMOIDS:
        raise ValueError(f"sigmoid {sigmoid!r}: choose one of {', '.join(SIGMOIDS)}")


def sigmoid_cdf(z: np.ndarray | float, sigmoid: str) -> np.ndarray:
    """F(z): 0 at -inf, 1/2 at 0, 1 at +inf."""
    z = np.asarray(z, dtype=float)
    if sigmoid == "logistic":
        return 0.5 * (1.0 + np.tanh(0.5 * z))  # 1 / (1 + exp(-z)), without overflow
    return 0.5 * np.asarray(_erfc(-z / _SQRT2), dtype=float)  # the exact normal CDF (math.erfc, elementwise)


def sigmoid_pdf(z: np.ndarray | float, sigmoid: str) -> np.ndarray:
    """dF/dz."""
    if sigmoid == "logistic":
        f = sigmoid_cdf(z, sigmoid)
        return f * (1.0 - f)
    return np.exp(-0.5 * np.square(np.asarray(z, dtype=float))) / math.sqrt(2.0 * math.pi)


def sigmoid_inverse(p: float, sigmoid: str) -> float:
    """z with F(z) = p, for 0 < p < 1."""
    return math.log(p / (1.0 - p)) if sigmoid == "logistic" else NormalDist().inv_cdf(p)


def psi(
    x: np.ndarray | float, threshold: float, slope: float, guess: float, lapse: float, sigmoid: str = "logistic"
) -> np.ndarray:
    """The probability of a 'noticed' (or correct) answer at level x."""
    return guess + (1.0 - guess - lapse) * sigmoid_cdf(slope * (np.asarray(x, dtype=float) - threshold), sigmoid)


def level_at_f(f: float, threshold: float, slope: float, sigmoid: str) -> float:
    """The level where the sigmoid reaches F = f (0 < f < 1)."""
    return threshold + sigmoid_inverse(f, sigmoid) / slope


def level_at_psi(p: float, threshold: float, slope: float, guess: float, lapse: float, sigmoid: str) -> float | None:
    """The level where psi = p, or None when psi never reaches p (p at or below the guess rate, or at or above
    the ceiling 1 - lapse)."""
    span = 1.0 - guess - lapse
    if span <= 0:
        return None
    f = (p - guess) / span
    if not 0.0 < f < 1.0:
        return None
    return level_at_f(f, threshold, slope, sigmoid)


def width(slope: float, sigmoid: str) -> float:
    """Distance in levels from F = 0.1 to F = 0.9."""
    return (sigmoid_inverse(0.9, sigmoid) - sigmoid_inverse(0.1, sigmoid)) / slope
