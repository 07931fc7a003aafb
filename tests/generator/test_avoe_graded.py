"""AVoE graded violations (issue 24): the `mass_dex` measure D1/D3 are graded by reads the mass ratio a collision
shows from momentum (m_a dv_a = -m_b dv_b) and returns how many decades it is off the twin's; a collision that
shows no change reads None; a sweep of a binary sub-type (D2) is refused naming it binary with its reason."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import voebench

from voebench.generator.audit.levels import MEASURES
from voebench.generator.solids import Shape, Track

N, CONTACT = 10, 5  # frames; the collision happens between frames 4 and 5


def _track(name: str, x: np.ndarray) -> Track:
    n = len(x)
    pos = np.c_[x, np.zeros(n), np.full(n, 0.5)]
    return Track(
        name,
        "object",
        Shape("box", (1.0, 1.0, 1.0)),
        True,
        pos,
        np.tile((1.0, 0.0, 0.0, 0.0), (n, 1)),
        np.zeros((n, 3)),
        np.ones(n, bool),
        np.full(n, -1),
        False,
    )


def _collision(ma: float, mb: float, e: float = 0.8) -> SimpleNamespace:
    """Two objects meeting head-on at 2 and -2 m/frame, masses ma and mb, restitution e (1D, momentum kept)."""
    va, vb = 2.0, -2.0
    vcm = (ma * va + mb * vb) / (ma + mb)
    wa, wb = vcm - e * (va - vcm), vcm - e * (vb - vcm)
    # wa, wb: the velocities after the impact (per frame); steps change between frames CONTACT-1 and CONTACT
    t = np.arange(N, dtype=float)
    xa = np.where(t < CONTACT, -10 + va * t, -10 + va * CONTACT + wa * (t - CONTACT))
    xb = np.where(t < CONTACT, 10 + vb * t, 10 + vb * CONTACT + wb * (t - CONTACT))
    return SimpleNamespace(
        tracks={"a": _track("a", xa), "b": _track("b", xb), "ground": _plane()}, n_frames=N, fps=24.0
    )


def _plane() -> Track:
    g = _track("ground", np.zeros(N))
    g.role, g.dynamic, g.fixture = "floor", False, True
    return g


REC = {"object": "a", "first_frame": CONTACT, "last_frame": N - 1}


@pytest.mark.parametrize(("ma", "mb", "ma2", "mb2"), [(1, 1, 100, 1), (1, 8, 8, 1), (2, 3, 2, 0.3), (5, 1, 5, 1)])
def test_mass_dex_is_how_many_decades_the_shown_ratio_is_off(ma, mb, ma2, mb2):
    twin, violated = _collision(ma, mb), _collision(ma2, mb2)
    expected = abs(np.log10(ma2 / mb2) - np.log10(ma / mb))
    assert MEASURES["mass_dex"](violated, twin, REC) == pytest.approx(expected, abs=1e-9)


def test_mass_dex_without_a_change_reads_none():
    v = _collision(1, 1)
    still = SimpleNamespace(tracks={n: _track(n, np.full(N, 3.0 * i)) for i, n in enumerate("ab")}, n_frames=N, fps=24)
    assert MEASURES["mass_dex"](still, v, REC) is None


def test_a_binary_avoe_subtype_is_refused_with_its_reason(tmp_path):
    out = tmp_path / "set"
    r = voebench("render", "avoe", "--tests", "D2", "--out", out, "--states-only", "--sweep", "D2=0,1", check=False)
    assert r.returncode == 2 and "binary" in r.stderr and "stops dead" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not out.exists()
