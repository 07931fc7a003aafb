"""The psychometric fit (evaluate/psychometrics) and fake:psychometric: the fit recovers a known curve, degenerate
data give a noted result (never a traceback, never a threshold outside the levels tested), intervals hold their
point, and the fake answers at the rate its curve says."""

from __future__ import annotations

import math

import numpy as np
import pytest

LEVELS = np.linspace(0.0, 1.0, 7)


def simulate(
    threshold: float,
    slope: float,
    guess: float,
    lapse: float,
    trials: int,
    seed: int,
    sigmoid: str = "logistic",
    levels: np.ndarray = LEVELS,
) -> list[tuple[int, float, bool]]:
    from voebench.evaluate.psychometrics import psi

    rng = np.random.default_rng(seed)
    p = psi(levels, threshold, slope, guess, lapse, sigmoid)
    return [(t, float(x), bool(rng.random() < q)) for t in range(trials) for x, q in zip(levels, p)]


@pytest.mark.parametrize(
    ("sigmoid", "guess_rule", "truth"),
    [
        ("logistic", "level0", (0.4, 8.0, 0.1, 0.02)),
        ("logistic", 0.5, (0.4, 8.0, 0.5, 0.02)),
        ("normal", "level0", (0.6, 5.0, 0.2, 0.04)),
    ],
)
def test_fit_recovers_a_known_curve_from_a_large_sample(sigmoid, guess_rule, truth):
    from voebench.evaluate.psychometrics import fit

    thr, slope, guess, lapse = truth
    f = fit(
        simulate(thr, slope, guess, lapse, trials=400, seed=1, sigmoid=sigmoid),
        sigmoid=sigmoid,
        guess=guess_rule,
        n_boot=40,
        n_gof=0,
    )
    assert f.notes == [] and f.flat is False
    assert abs(f.threshold.point - thr) < 0.03
    assert abs(f.slope.point / slope - 1) < 0.3
    assert abs(f.guess - guess) < 0.05 and 0 <= f.lapse <= 0.1
    assert f.threshold.contains(thr) and f.threshold.contains(f.threshold.point)
    assert f.threshold.hi - f.threshold.lo < 0.1  # 400 trials: a narrow interval
    # x75: where psi = 0.75, computed from the fitted curve
    assert abs(float(f.curve(f.x75.point)) - 0.75) < 1e-6


def test_few_trials_give_a_wider_interval_than_many():
    from voebench.evaluate.psychometrics import fit

    small = fit(simulate(0.4, 8, 0.1, 0.02, trials=16, seed=3), n_boot=60, n_gof=0)
    large = fit(simulate(0.4, 8, 0.1, 0.02, trials=256, seed=3), n_boot=60, n_gof=0)
    width = lambda e: (e.hi if e.hi is not None else 1.0) - (e.lo if e.lo is not None else 0.0)  # noqa: E731
    assert width(large.threshold) < width(small.threshold) / 2


@pytest.mark.parametrize("seed", range(4))
def test_the_interval_contains_the_point_estimate(seed):
    from voebench.evaluate.psychometrics import fit

    f = fit(simulate(0.3 + 0.05 * seed, 6 + seed, 0.2, 0.03, trials=16, seed=seed), n_boot=50, n_gof=0)
    for est in (f.threshold, f.x75):
        if est.point is not None:
            assert est.contains(est.point)
    if f.slope.point is not None:
        assert f.slope.contains(f.slope.point)


def test_trials_are_the_resampled_unit():
    """Repeats of a video stay with their trial: copying every answer 5 times within its trial changes neither the
    point nor the spread of the bootstrap much, where counting them as independent would narrow it by sqrt(5)."""
    from voebench.evaluate.psychometrics import fit

    rows = simulate(0.4, 8, 0.1, 0.02, trials=24, seed=5)
    once = fit(rows, n_boot=80, n_gof=0)
    five = fit([r for r in rows for _ in range(5)], n_boot=80, n_gof=0)
    assert five.threshold.point == pytest.approx(once.threshold.point, abs=1e-3)
    w1 = once.threshold.hi - once.threshold.lo
    w5 = five.threshold.hi - five.threshold.lo
    assert w5 > 0.6 * w1


def test_degenerate_data_give_a_noted_result_never_a_threshold():
    from voebench.evaluate.psychometrics import fit

    def check(rows, **kw):
        f = fit(rows, n_boot=40, n_gof=0, **kw)
        assert f.notes, rows[:3]
        assert f.threshold.point is None
        return f

    assert check([]).notes == ["no data: nothing to fit"]
    assert "one level tested" in check([(t, 0.5, t % 2 == 0) for t in range(10)]).notes[0]
    never = check([(t, float(x), False) for t in range(16) for x in LEVELS])
    assert never.flat and never.slope.point is None
    always = check([(t, float(x), True) for t in range(16) for x in LEVELS])  # guess from level 0 = 1
    assert "no room" in always.notes[-1]
    # relative accuracy at 100% everywhere: the threshold lies below the smallest level, and the interval says so
    ceiling = check([(t, float(x), True) for t in range(16) for x in LEVELS], guess=0.5)
    assert ceiling.threshold.lo is None and ceiling.threshold.hi == LEVELS[0]
    rng = np.random.default_rng(0)
    coin = check([(t, float(x), bool(rng.random() < 0.5)) for t in range(16) for x in LEVELS], guess=0.5)
    assert coin.flat and (coin.threshold.lo is None or coin.threshold.hi is None)


def test_no_level_zero_fits_the_guess_freely_and_says_so():
    from voebench.evaluate.psychometrics import fit

    rows = [r for r in simulate(0.5, 8, 0.2, 0.02, trials=200, seed=2) if r[1] > 0]
    f = fit(rows, n_boot=0, n_gof=0)
    assert f.guess_mode == "free" and "guess fitted freely" in f.notes[0]
    assert abs(f.threshold.point - 0.5) < 0.05


def test_one_trial_has_no_interval():
    from voebench.evaluate.psychometrics import fit

    rows = [(0, float(x), x > 0.45) for x in LEVELS for _ in range(4)]
    f = fit(rows, n_boot=50, n_gof=0)
    assert "one trial: nothing to resample, no interval" in f.notes
    assert f.threshold.lo is None and f.threshold.hi is None


def test_goodness_of_fit_flags_a_non_monotone_scorer():
    from voebench.evaluate.psychometrics import fit

    rng = np.random.default_rng(4)
    bump = [0.1, 0.2, 0.9, 0.95, 0.9, 0.2, 0.1]  # notices middle levels only
    rows = [(t, float(x), bool(rng.random() < p)) for t in range(40) for x, p in zip(LEVELS, bump)]
    assert fit(rows, n_boot=0, n_gof=100).gof_p < 0.05
    good = fit(simulate(0.4, 8, 0.1, 0.02, trials=40, seed=4), n_boot=0, n_gof=100)
    assert good.gof_p > 0.05 and good.deviance >= 0 and good.df == 7 - 4


def test_as_many_parameters_as_levels_gives_no_goodness_of_fit():
    from voebench.evaluate.psychometrics import fit

    rows = simulate(0.5, 8, 0.1, 0.02, trials=100, seed=9, levels=np.array([0.0, 0.5, 1.0]))
    f = fit(rows, n_boot=0, n_gof=50)  # guess from level 0 + threshold, slope, lapse: 4 parameters, 3 levels
    assert f.gof_p is None and f.df == -1 and "3 levels for 4 free parameters: no goodness of fit" in f.notes


def test_bad_input_is_refused_in_one_line():
    from voebench.errors import UsageError
    from voebench.evaluate.psychometrics import fit

    with pytest.raises(UsageError, match="level nan"):
        fit([(0, math.nan, True)])
    with pytest.raises(UsageError, match="noticed 'maybe'"):
        fit([(0, 0.5, "maybe")])
    with pytest.raises(UsageError, match="guess"):
        fit([(0, 0.5, True)], guess=1.5)
    with pytest.raises(UsageError, match="sigmoid"):
        fit([(0, 0.5, True)], sigmoid="weibull")
    rows = [{"trial_id": "a", "violation_level": 0.2, "noticed": 1}, {"trial": "a", "level": 0.0, "correct": False}]
    assert fit(rows, n_boot=0, n_gof=0).n_responses == 2  # mappings with the documented keys are read


def test_level_table_counts_and_intervals():
    from voebench.evaluate.psychometrics import fit, level_table

    rows = simulate(0.4, 8, 0.1, 0.02, trials=30, seed=6)
    f = fit(rows, n_boot=0, n_gof=0)
    table = level_table(rows, f, n_boot=300)
    assert [r.level for r in table] == list(LEVELS)
    for r in table:
        noticed = sum(x == r.level and y for _, x, y in rows)
        assert (r.n, r.trials, r.noticed) == (30, 30, noticed)
        assert r.proportion == pytest.approx(noticed / 30)
        assert r.lo <= r.proportion <= r.hi
        assert r.fitted == pytest.approx(float(f.curve(r.level)))


def test_plot_writes_a_figure(tmp_path):
    pytest.importorskip("matplotlib")
    from voebench.evaluate.psychometrics import fit, level_table
    from voebench.evaluate.psychometrics.plot import plot_test

    curves = {}
    for name, rows in [("curve", simulate(0.4, 8, 0.1, 0.02, 16, 7)), ("flat", simulate(9, 8, 0.3, 0.0, 16, 8))]:
        f = fit(rows, n_boot=30, n_gof=0)
        curves[name] = (f, level_table(rows, f, n_boot=50))
    out = plot_test(curves, str(tmp_path / "t.png"), title="t01", unit="m")
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def _sample(level: float | None, kind: str = "plausibility", truth: str = "no", sid: str = "s"):
    from voebench.evaluate.tasks import Sample

    meta = None if level is None else {"violation_level": level}
    return Sample(
        sample_id=sid,
        video_id=sid,
        suite="sim",
        test="sim",
        kind=kind,
        truth=truth,
        polarity=None,
        strategy="zero-shot",
        turns=[],
        meta=meta,
    )


@pytest.mark.parametrize("level", [0.0, 0.3, 0.4, 0.8])
def test_fake_answers_at_the_rate_of_its_curve(level):
    from voebench.evaluate.models import make_adapter
    from voebench.evaluate.models.base import AdapterError, Request
    from voebench.evaluate.psychometrics import psi

    fake = make_adapter("fake:psychometric:threshold=0.4,slope=8,guess=0.2,lapse=0.05,seed=3")
    n = 3000
    reqs = [
        Request(
            messages=[],
            seed=0,
            repeat=0,
            turn=0,
            n_turns=1,
            sample=_sample(level, truth="yes" if level == 0 else "no", sid=f"v{i}"),
        )
        for i in range(n)
    ]
    replies = fake.generate(reqs)
    assert not any(isinstance(r, AdapterError) for r in replies)
    assert set(replies) <= {"Yes.", "No."}
    rate = sum(r == "No." for r in replies) / n  # "not plausible" = noticed
    p = float(psi(level, 0.4, 8, 0.2, 0.05))
    assert abs(rate - p) < 4 * math.sqrt(p * (1 - p) / n)
    assert fake.generate(reqs[:50]) == replies[:50]  # seeded: the same answers again


def test_fake_statement_questions_and_missing_levels():
    from voebench.evaluate.models import make_adapter
    from voebench.evaluate.models.base import AdapterError, Request

    sure = make_adapter("fake:psychometric:threshold=0.4,slope=8,guess=0,lapse=0")
    req = lambda s: Request(messages=[], seed=0, repeat=0, turn=0, n_turns=1, sample=s)  # noqa: E731
    # a yes/no statement: noticing = the implausible video's truth; at level 0 (never noticed here) the truth too
    assert sure.generate([req(_sample(1.0, "binary", "yes")), req(_sample(0.0, "binary", "no"))]) == ["Yes.", "No."]
    (missing,) = sure.generate([req(_sample(None))])
    assert isinstance(missing, AdapterError) and "violation_level" in str(missing)
    (choice,) = sure.generate([req(_sample(0.5, "choice", "A"))])
    assert isinstance(choice, AdapterError)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fake:psychometric", "needs threshold and slope"),
        ("fake:psychometric:threshold=0.4", "needs slope"),
        ("fake:psychometric:threshold=0.4,slope=0", "slope must be > 0"),
        ("fake:psychometric:threshold=0.4,slope=8,bias=1", "unknown option 'bias=1'"),
        ("fake:psychometric:threshold=0.4,slope=8,guess=0.7,lapse=0.3", "guess \\+ lapse < 1"),
        ("fake:psychometric:threshold=0.4,slope=8,sigmoid=weibull", "sigmoid 'weibull'"),
    ],
)
def test_fake_spec_errors_name_the_problem(spec, message):
    from voebench.errors import UsageError
    from voebench.evaluate.models import make_adapter

    with pytest.raises(UsageError, match=message):
        make_adapter(spec)


def test_a_manifest_level_reaches_the_sample_and_the_fake_scorer(tiny_set):
    """The manifest entry's `violation_level` travels to the scored sample (and its record), where
    fake:psychometric's reader finds it; a set without levels gives None."""
    from voebench.evaluate import tasks
    from voebench.evaluate.models.fake_psychometric import violation_level

    manifest = tasks.load_manifest(tiny_set)
    entries = [dict(e, violation_level=(0.0 if e.get("condition") == "plausible" else 0.9)) for e in manifest.entries]
    samples = tasks.build_samples(manifest, entries, "zero-shot")
    assert samples and {violation_level(s) for s in samples} <= {0.0, 0.9}
    assert all(s.record()["violation_level"] == violation_level(s) for s in samples)
    plain = tasks.build_samples(manifest, manifest.entries, "zero-shot")
    assert all(s.violation_level is None for s in plain)  # sets made before issue 24 carry no level
