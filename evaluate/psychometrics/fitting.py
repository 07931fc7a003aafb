"""Maximum-likelihood fit of a psychometric function, with bootstrap intervals and a goodness-of-fit check.

The model (function.py): psi(x) = guess + (1 - guess - lapse) * F(slope * (x - location)), binomial answers at
each level. Free parameters: location, slope (fitted as log slope, so it stays positive) and lapse (within
[0, lapse_max], 0.1 by default). The guess rate is

- a number (fixed): 0.5 for relative accuracy on pairs, where a scorer that sees nothing is right half the time;
- ``"level0"`` (the default): the proportion noticed at level 0, the plausible twins: a yes/no scorer's
  false-alarm rate. It is estimated from the data, so each bootstrap draw re-estimates it;
- ``"free"``: a fourth fitted parameter within [0, 0.95].

The likelihood is maximised by scipy.optimize.minimize (TNC, truncated Newton, with the analytic gradient and the
bounds above; L-BFGS-B gives the same optimum but took 10x longer here), started from the best point of a grid over
location and slope so that it does not stop in a local optimum.

**Threshold.** The level where F = `criterion` (default 0.5: psi halfway between the guess rate and 1 - lapse).
Also reported: `x75`, the level where psi = 0.75, when psi reaches 0.75. A threshold is printed only when the
curve rises (below) and the estimate lies within the levels tested; otherwise the point is None and a note says
why ("threshold above the highest level tested", "flat ..."): the data bound it on one side at most.

**Rise.** A likelihood-ratio test of the fitted curve against one proportion for all levels (chi-square with
df = free parameters - 1; the models are not strictly nested when the guess is fixed, so it is a screen, not an
exact test). p >= `alpha` (0.05) means the data show no rise with the level: the result is "flat".

**Intervals.** 95% percentile intervals from `n_boot` bootstrap draws. `bootstrap="trials"` (default) resamples
whole trials with replacement (a trial keeps all its levels and repeats together: they share the scene);
`"parametric"` draws new counts per level from the fitted curve (binomial, no trial structure). In each draw the
threshold is refitted; a draw whose threshold falls below (above) the levels tested counts as -inf (+inf), and an
interval side at infinity is printed as None: "not bounded by the levels tested" (an upper end that lies below
the lowest level is printed as that level: the data say only "below it"). Draws that are flat with the threshold
inside the range bound neither side: more than 5% of them make the whole interval unbounded.

**Goodness of fit.** The deviance (twice the log-likelihood ratio of the saturated model, one proportion per
level, to the fit), with a parametric-bootstrap p-value: `n_gof` data sets drawn from the fitted curve (binomial
per level) are refitted, and p is the share whose deviance is at least the observed one (with the +1
correction). Small p (< 0.05): the curve does not describe the data (e.g. a non-monotone scorer, or answers
more alike within a trial than binomial).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import optimize
from scipy.special import chdtrc, xlogy

from voebench.errors import UsageError
from voebench.evaluate.psychometrics.data import Table, tabulate
from voebench.evaluate.psychometrics.function import (
    SIGMOIDS,
    level_at_f,
    level_at_psi,
    sigmoid_cdf,
    sigmoid_inverse,
    sigmoid_pdf,
    width,
)

GUESS_MODES = ("level0", "free")
BOOTSTRAPS = ("trials", "parametric")
LAPSE_MAX = 0.1
GUESS_FREE_MAX = 0.95
N_BOOT = 1000
N_GOF = 200
EPS = 1e-9
#: Slope bounds in units of the tested span: the 10-90% width of the curve may be from span / 200 to 10 x span.
WIDTH_MIN, WIDTH_MAX = 1 / 200, 10.0
#: More than this share of draws flat with the threshold inside the range: the interval is unbounded.
FLAT_DRAWS_MAX = 0.05


@dataclass(frozen=True)
class Estimate:
    """A point and its 95% interval. point None: not estimated (the note in the Fit says why). lo None: not bounded
    below by the levels tested; hi None: not bounded above."""

    point: float | None
    lo: float | None
    hi: float | None

    def contains(self, x: float) -> bool:
        return (self.lo is None or self.lo <= x) and (self.hi is None or x <= self.hi)

    def text(self, digits: int = 3) -> str:
        p = "–" if self.point is None else f"{self.point:.{digits}g}"
        lo = "<" if self.lo is None else f"{self.lo:.{digits}g}"
        hi = ">" if self.hi is None else f"{self.hi:.{digits}g}"
        return f"{p} [{lo}, {hi}]"


@dataclass(frozen=True)
class Fit:
    """A fitted psychometric function, or the reason there is none (`notes`)."""

    sigmoid: str
    guess_mode: str  # "fixed", "level0" or "free"
    criterion: float
    levels: list[float]
    n_trials: int
    n_responses: int
    threshold: Estimate
    slope: Estimate
    x75: Estimate
    guess: float | None = None
    lapse: float | None = None
    location: float | None = None  # the fitted F = 0.5 level, even where `threshold` is not printed
    rate: float | None = None  # the fitted slope, even where `slope` is not printed
    width: float | None = None  # 10-90% width of F in levels
    deviance: float | None = None
    df: int | None = None
    gof_p: float | None = None
    rise_p: float | None = None
    flat: bool | None = None
    n_boot: int = 0
    resampled: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def fitted(self) -> bool:
        return self.location is not None

    def curve(self, x: np.ndarray | float) -> np.ndarray | None:
        """psi at x, or None without a fit."""
        if self.location is None or self.rate is None or self.guess is None or self.lapse is None:
            return None
        span = 1.0 - self.guess - self.lapse
        return self.guess + span * sigmoid_cdf(self.rate * (np.asarray(x, dtype=float) - self.location), self.sigmoid)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class _Setup:
    """What every fit of one data set shares: levels, the guess rule, bounds and the start grid."""

    x: np.ndarray
    sigmoid: str
    guess_mode: str
    guess_value: float
    lapse_max: float
    bounds: list[tuple[float, float]]
    grid_m: np.ndarray
    grid_logs: np.ndarray
    zero: int | None  # column of level 0, if any

    @property
    def n_free(self) -> int:
        return 3 + (self.guess_mode != "fixed")


def _nll(theta: np.ndarray, st: _Setup, N: np.ndarray, K: np.ndarray, g: float) -> tuple[float, np.ndarray]:
    """Negative binomial log-likelihood (without the constant binomial coefficients) and its gradient."""
    m, logs, lam = theta[0], theta[1], theta[2]
    if st.guess_mode == "free":
        g = theta[3]
    s = math.exp(logs)
    z = s * (st.x - m)
    F = sigmoid_cdf(z, st.sigmoid)
    f = sigmoid_pdf(z, st.sigmoid)
    a = 1.0 - g - lam
    p = np.clip(g + a * F, EPS, 1.0 - EPS)
    nll = -float(np.sum(K * np.log(p) + (N - K) * np.log1p(-p)))
    r = -(K / p - (N - K) / (1.0 - p))
    grad = [np.sum(r * a * f * -s), np.sum(r * a * f * z), np.sum(r * -F)]
    if st.guess_mode == "free":
        grad.append(np.sum(r * (1.0 - F)))
    return nll, np.array(grad, dtype=float)


def _grid_start(st: _Setup, N: np.ndarray, K: np.ndarray, g: float) -> np.ndarray:
    """The best (location, log slope) of the grid, lapse 0.01 (guess: the lowest proportion, when free)."""
    if st.guess_mode == "free":
        with np.errstate(invalid="ignore", divide="ignore"):
            prop = np.where(N > 0, K / np.maximum(N, 1), np.nan)
        g = float(np.clip(np.nanmin(prop), 0.0, GUESS_FREE_MAX - 0.01))
    lam = min(0.01, st.lapse_max)
    z = np.exp(st.grid_logs)[:, None, None] * (st.x[None, None, :] - st.grid_m[None, :, None])
    p = np.clip(g + (1.0 - g - lam) * sigmoid_cdf(z, st.sigmoid), EPS, 1.0 - EPS)
    ll = (K * np.log(p) + (N - K) * np.log1p(-p)).sum(-1)
    i, j = np.unravel_index(int(np.argmax(ll)), ll.shape)
    theta = [st.grid_m[j], st.grid_logs[i], lam] + ([g] if st.guess_mode == "free" else [])
    return np.array(theta, dtype=float)


def _guess_of(st: _Setup, N: np.ndarray, K: np.ndarray) -> float:
    if st.guess_mode == "level0" and st.zero is not None and N[st.zero] > 0:
        return float(K[st.zero] / N[st.zero])
    return st.guess_value


def _fit_counts(
    st: _Setup, N: np.ndarray, K: np.ndarray, start: np.ndarray | None = None
) -> tuple[np.ndarray, float, float]:
    """(theta, guess, nll) of the ML fit to per-level counts."""
    g = _guess_of(st, N, K)
    bounds = list(st.bounds)
    bounds[2] = (0.0, max(0.0, min(st.lapse_max, 1.0 - g - 0.01)))
    x0 = _grid_start(st, N, K, g)
    if start is not None and _nll(start, st, N, K, g)[0] < _nll(x0, st, N, K, g)[0]:
        x0 = start
    x0 = np.array([min(max(v, lo), hi) for v, (lo, hi) in zip(x0, bounds)])
    res = optimize.minimize(_nll, x0, args=(st, N, K, g), jac=True, method="TNC", bounds=bounds)
    theta = res.x
    if st.guess_mode == "free":
        g = float(theta[3])
    return theta, g, float(res.fun)


def _deviance(N: np.ndarray, K: np.ndarray, p: np.ndarray) -> float:
    p = np.clip(p, EPS, 1.0 - EPS)
    with np.errstate(invalid="ignore", divide="ignore"):
        sat = np.where(N > 0, K / np.maximum(N, 1), 0.0)
    ll_sat = xlogy(K, sat) + xlogy(N - K, 1.0 - sat)
    ll = xlogy(K, p) + xlogy(N - K, 1.0 - p)
    return float(2.0 * np.sum(ll_sat - ll))


def _psi(st: _Setup, theta: np.ndarray, g: float) -> np.ndarray:
    return g + (1.0 - g - theta[2]) * sigmoid_cdf(math.exp(theta[1]) * (st.x - theta[0]), st.sigmoid)


def _rise_p(st: _Setup, N: np.ndarray, K: np.ndarray, theta: np.ndarray, g: float) -> float:
    """Likelihood-ratio p of the curve against one proportion for all levels."""
    pooled = np.full_like(st.x, float(K.sum() / N.sum()) if N.sum() else 0.5)
    lr = _deviance(N, K, pooled) - _deviance(N, K, _psi(st, theta, g))
    return float(chdtrc(max(1, st.n_free - 1), max(lr, 0.0)))


def _summary(st: _Setup, theta: np.ndarray, g: float, criterion: float, flat: bool) -> tuple[float, float, float]:
    """(threshold, slope, x75) of one fit, with -inf / +inf for 'below / above the levels tested' and NaN for
    'flat, bounded by nothing'."""
    lo, hi = float(st.x[0]), float(st.x[-1])
    s = math.exp(theta[1])
    thr = level_at_f(criterion, theta[0], s, st.sigmoid)
    x75 = level_at_psi(0.75, theta[0], s, g, theta[2], st.sigmoid)
    if x75 is None:
        x75 = -math.inf if g >= 0.75 else math.inf

    def place(v: float) -> float:
        if v < lo:
            return -math.inf
        if v > hi:
            return math.inf
        return math.nan if flat else v

    return place(thr), (0.0 if flat else s), place(x75)


def _interval(
    point: float | None, draws: np.ndarray, lo_level: float, hi_level: float, notes: list[str], name: str
) -> tuple[float | None, float | None]:
    """Percentile 95% interval of draws that may hold -inf / +inf (outside the levels) and NaN (unbounded)."""
    nan = np.isnan(draws)
    if nan.mean() > FLAT_DRAWS_MAX:
        notes.append(f"{name}: {nan.sum()} of {len(draws)} bootstrap draws are flat: interval unbounded")
        return None, None
    if nan.any():
        notes.append(f"{name}: {nan.sum()} of {len(draws)} bootstrap draws flat (left out)")
    ok = draws[~nan]
    lo, hi = (float(v) for v in np.quantile(ok, [0.025, 0.975], method="inverted_cdf"))
    lo_out = None if lo == -math.inf else (hi_level if lo == math.inf else lo)
    hi_out = None if hi == math.inf else (lo_level if hi == -math.inf else hi)
    if point is not None and not ((lo_out is None or lo_out <= point) and (hi_out is None or point <= hi_out)):
        notes.append(f"{name}: the percentile interval missed the point estimate: extended to it")
        lo_out = None if lo_out is None else min(lo_out, point)
        hi_out = None if hi_out is None else max(hi_out, point)
    return lo_out, hi_out


def _slope_interval(
    point: float | None, draws: np.ndarray, s_max: float, notes: list[str]
) -> tuple[float | None, float | None]:
    lo, hi = (float(v) for v in np.quantile(draws, [0.025, 0.975], method="inverted_cdf"))
    hi_out = None if hi >= s_max * (1 - 1e-6) else hi
    if point is not None:
        lo = min(lo, point)
        hi_out = None if hi_out is None else max(hi_out, point)
    if hi_out is None:
        notes.append("slope: bootstrap draws reach the steepest slope allowed: no upper bound")
    return lo, hi_out


def _empty(sigmoid: str, guess_mode: str, criterion: float, table: Table | None, note: str) -> Fit:
    none = Estimate(None, None, None)
    levels = [] if table is None else [float(v) for v in table.levels]
    n_t = 0 if table is None else len(table.trials)
    n_r = 0 if table is None else int(table.n.sum())
    return Fit(sigmoid, guess_mode, criterion, levels, n_t, n_r, none, none, none, notes=[note])


def fit(
    rows: Iterable[object] | Table,
    *,
    sigmoid: str = "logistic",
    guess: float | str = "level0",
    criterion: float = 0.5,
    lapse_max: float = LAPSE_MAX,
    bootstrap: str = "trials",
    n_boot: int = N_BOOT,
    n_gof: int = N_GOF,
    alpha: float = 0.05,
    seed: int = 0,
) -> Fit:
    """Fit psi to `rows` (responses, see data.as_response, or a Table). Never raises on degenerate data: the
    returned Fit's `notes` say what could not be estimated and why. Bad settings raise UsageError."""
    if sigmoid not in SIGMOIDS:
        raise UsageError(f"sigmoid {sigmoid!r}: choose one of {', '.join(SIGMOIDS)}")
    if bootstrap not in BOOTSTRAPS:
        raise UsageError(f"bootstrap {bootstrap!r}: choose one of {', '.join(BOOTSTRAPS)}")
    if isinstance(guess, str):
        if guess not in GUESS_MODES:
            raise UsageError(f"guess {guess!r}: a rate in [0, 1) or one of {', '.join(GUESS_MODES)}")
    elif isinstance(guess, bool) or not 0.0 <= float(guess) < 1.0:
        raise UsageError(f"guess {guess!r}: a rate in [0, 1) or one of {', '.join(GUESS_MODES)}")
    if not 0.0 < criterion < 1.0:
        raise UsageError(f"criterion {criterion!r}: a value of F strictly between 0 and 1")
    if not 0.0 <= lapse_max < 1.0 or n_boot < 0 or n_gof < 0:
        raise UsageError("lapse_max in [0, 1), n_boot >= 0 and n_gof >= 0")
    mode = guess if isinstance(guess, str) else "fixed"
    table = rows if isinstance(rows, Table) else tabulate(rows)
    N, K = table.totals
    if N.sum() == 0:
        return _empty(sigmoid, mode, criterion, None, "no data: nothing to fit")
    x = table.levels
    if len(x) == 1:
        return _empty(
            sigmoid, mode, criterion, table, f"one level tested ({x[0]:g}): a curve needs at least two levels"
        )
    notes: list[str] = []
    zero = int(np.flatnonzero(x == 0.0)[0]) if (x == 0.0).any() else None
    if mode == "level0" and zero is None:
        mode = "free"
        notes.append("guess 'level0' needs level-0 responses (the plausible twins); none given: guess fitted freely")
    guess_value = float(guess) if mode == "fixed" else 0.0
    span = float(x[-1] - x[0])
    w = sigmoid_inverse(0.9, sigmoid) - sigmoid_inverse(0.1, sigmoid)
    s_min, s_max = w / (WIDTH_MAX * span), w / (WIDTH_MIN * span)
    bounds = [(x[0] - span, x[-1] + span), (math.log(s_min), math.log(s_max)), (0.0, lapse_max)]
    if mode == "free":
        bounds.append((0.0, GUESS_FREE_MAX))
    st = _Setup(
        x,
        sigmoid,
        mode,
        guess_value,
        lapse_max,
        bounds,
        np.linspace(x[0] - span / 2, x[-1] + span / 2, 31),
        np.linspace(*bounds[1], 15),
        zero,
    )
    g0 = _guess_of(st, N, K)
    base: dict[str, Any] = dict(
        sigmoid=sigmoid,
        guess_mode=mode,
        criterion=criterion,
        levels=[float(v) for v in x],
        n_trials=len(table.trials),
        n_responses=int(N.sum()),
    )
    if g0 >= 0.99:
        none = Estimate(None, None, None)
        return Fit(
            **base,
            threshold=none,
            slope=none,
            x75=none,
            guess=g0,
            flat=True,
            notes=[*notes, f"guess rate {g0:.3g}: no room for a curve above it; flat"],
        )
    theta, g, nll = _fit_counts(st, N, K)
    rise_p = _rise_p(st, N, K, theta, g)
    flat = rise_p >= alpha
    thr, s, x75 = _summary(st, theta, g, criterion, flat)
    dev = _deviance(N, K, _psi(st, theta, g))
    df = int((N > 0).sum()) - st.n_free
    lo_l, hi_l = float(x[0]), float(x[-1])
    if flat:
        notes.append(
            f"flat: no rise with the level (likelihood ratio against one proportion for all levels: "
            f"p = {rise_p:.2g}); threshold not bounded by the levels tested"
        )
    elif thr == -math.inf:
        notes.append(f"threshold below the lowest level tested ({lo_l:g}): even the smallest level is noticed")
    elif thr == math.inf:
        notes.append(f"threshold above the highest level tested ({hi_l:g}): even the largest level is mostly missed")
    if not flat and math.exp(theta[1]) >= s_max * (1 - 1e-6):
        notes.append(
            "steep: the curve rises between two adjacent levels; the slope is a lower bound and the "
            "threshold lies somewhere between those levels"
        )
    if x75 in (-math.inf, math.inf) and not flat:
        notes.append(
            "psi = 0.75 " + ("is exceeded at every level" if x75 < 0 else "is not reached within the levels tested")
        )

    rng = np.random.default_rng(seed)
    gof_devs: list[float] = []
    draws: list[tuple[float, float, float]] = []
    p_hat = _psi(st, theta, g)
    if n_boot and len(table.trials) < 2 and bootstrap == "trials":
        notes.append("one trial: nothing to resample, no interval")
    elif n_boot:
        T = len(table.trials)
        for _ in range(n_boot):
            if bootstrap == "trials":
                wts = rng.multinomial(T, np.full(T, 1.0 / T)).astype(float)
                Nb, Kb = wts @ table.n, wts @ table.k
            else:
                Nb, Kb = N, rng.binomial(N.astype(int), p_hat).astype(float)
            th_b, g_b, _ = _fit_counts(st, Nb, Kb, start=theta)
            draws.append(_summary(st, th_b, g_b, criterion, _rise_p(st, Nb, Kb, th_b, g_b) >= alpha))
            if bootstrap == "parametric":
                gof_devs.append(_deviance(Nb, Kb, _psi(st, th_b, g_b)))
    if bootstrap == "trials" and df > 0:
        for _ in range(n_gof):
            Kb = rng.binomial(N.astype(int), p_hat).astype(float)
            th_b, g_b, _ = _fit_counts(st, N, Kb, start=theta)
            gof_devs.append(_deviance(N, Kb, _psi(st, th_b, g_b)))
    gof_p = (1 + sum(d >= dev - 1e-9 for d in gof_devs)) / (1 + len(gof_devs)) if gof_devs and df > 0 else None
    if df <= 0 and (n_gof or bootstrap == "parametric"):
        notes.append(f"{int((N > 0).sum())} levels for {st.n_free} free parameters: no goodness of fit")

    thr_pt = thr if math.isfinite(thr) else None
    x75_pt = x75 if math.isfinite(x75) else None
    s_pt = None if flat else s
    if draws:
        arr = np.array(draws)
        thr_est = Estimate(thr_pt, *_interval(thr_pt, arr[:, 0], lo_l, hi_l, notes, "threshold"))
        x75_est = Estimate(x75_pt, *_interval(x75_pt, arr[:, 2], lo_l, hi_l, notes, "x75"))
        slope_est = Estimate(s_pt, *_slope_interval(s_pt, arr[:, 1], s_max, notes))
    else:
        thr_est, x75_est, slope_est = (
            Estimate(thr_pt, None, None),
            Estimate(x75_pt, None, None),
            Estimate(s_pt, None, None),
        )
    resampled = {
        "trials": f"trials ({len(table.trials)}), {n_boot} draws",
        "parametric": f"binomial counts per level from the fit, {n_boot} draws",
    }[bootstrap]
    return Fit(
        **base,
        threshold=thr_est,
        slope=slope_est,
        x75=x75_est,
        guess=g,
        lapse=float(theta[2]),
        location=float(theta[0]),
        rate=math.exp(theta[1]),
        width=width(math.exp(theta[1]), sigmoid),
        deviance=dev,
        df=df,
        gof_p=gof_p,
        rise_p=rise_p,
        flat=flat,
        n_boot=len(draws),
        resampled=resampled,
        notes=notes,
    )
