"""Graded violations (issue 24): every graded test of every suite renders a sweep whose videos record the level
asked for, pass the gate and the audit (whose `violation_level` check measures the size from the states against
the plausible twin), and differ from the twin more the larger the level; `--sweep` refuses what it cannot make in
one line, before anything is written; a sweep resumes to the same bytes."""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import pytest
from conftest import voebench

from voebench.generator.params import Level
from voebench.generator.suite import load_suite

SUITES = ("grasp-l2", "avoe")


def graded_tests() -> list[tuple[str, str, str, Level]]:
    """(suite, test, leaf key, leaf) for every test with a graded violation."""
    out = []
    for name in SUITES:
        suite = load_suite(name)
        for test in suite.tests:
            for key, leaf in suite.space(test).leaves().items():
                if isinstance(leaf, Level) and (key == "violation" or key.endswith("." + test)):
                    out.append((name, test, key, leaf))
    return out


GRADED = graded_tests()


#: tests whose quarter and half of the bound are not makeable at the 25 fps used here, with two that are: t05's
#: jump must exceed 30 m/s in one frame to read as a jump (level x fps > 30), so below 1.2 m at 25 fps it is refused
FEASIBLE = {"t05_permanence_pin": (1.4, 1.8)}


def binary_reason(suite_name: str, test: str) -> str | None:
    reason = getattr(load_suite(suite_name).module(test), "BINARY", None)
    return reason.get(test) if isinstance(reason, dict) else reason


def test_every_test_is_graded_or_says_why_not():
    graded = {(s, t) for s, t, _, _ in GRADED}
    for name in SUITES:
        for test in load_suite(name).tests:
            reason = binary_reason(name, test)
            assert ((name, test) in graded) != bool(reason), (
                f"{name}/{test}: a test is graded (a Level leaf) or binary (BINARY gives the reason), not "
                f"{'both' if reason else 'neither'}"
            )


def _states(path: str) -> dict:
    import h5py

    with h5py.File(path, "r") as f:
        return {name: {k: g[k][()] for k in ("position", "color", "visible")} for name, g in f["objects"].items()}


def _difference(a: dict, b: dict) -> float:
    """How much two videos' states differ over the whole video: summed position (m), colour and visibility gaps."""
    total = 0.0
    for name in set(a) & set(b):
        total += float(np.linalg.norm(a[name]["position"] - b[name]["position"], axis=1).sum())
        total += float(np.linalg.norm(a[name]["color"] - b[name]["color"], axis=1).sum())
        total += float(np.count_nonzero(a[name]["visible"] != b[name]["visible"]))
    for name in set(a) ^ set(b):
        total += float(np.count_nonzero((a.get(name) or b[name])["visible"]))
    return total


#: the sweeps `make test` renders; every other graded test's sweep runs in `make test-heavy` (CI runs both)
EVERY_RUN = {"t08_inertia_bounce", "B1"}


@pytest.mark.parametrize(
    ("suite_name", "test", "key", "leaf"),
    [pytest.param(*g, id=f"{g[0]}/{g[1]}", marks=() if g[1] in EVERY_RUN else pytest.mark.heavy) for g in GRADED],
)
def test_a_sweep_renders_passes_the_audit_and_grows_with_the_level(tmp_path, suite_name, test, key, leaf):
    levels = [0.0, *FEASIBLE.get(test, (round(leaf.hi * 0.25, 6), round(leaf.hi * 0.5, 6)))]
    out = tmp_path / "set"
    extra = ["--both-conditions", "--tests", test] if suite_name == "avoe" else ["--fps", "25"]
    voebench(
        "render",
        suite_name,
        "--out",
        out,
        "--trials",
        1,
        "--states-only",
        "--workers",
        1,
        "--quiet",
        "--sweep",
        f"{test}.{key}={','.join(map(str, levels))}",
        *extra,
    )
    entries = [json.loads(line) for line in open(out / "manifest.jsonl")]
    assert len(entries) == 3, [e["id"] for e in entries]
    assert len({e["pair_id"] for e in entries}) == 1
    by_level = {e["violation_level"]: e for e in entries}
    assert sorted(by_level) == levels
    for e in entries:
        assert e["sweep_levels"] == levels and e["violation_unit"] == leaf.unit
        assert (e["violation"] is None) == (e["violation_level"] == 0.0)
        if e["violation"] is not None:
            assert e["violation"]["level"] == e["violation_level"] and e["violation"]["measure"] == leaf.measure
            assert e["params"]["sampled"]
    audit = voebench("audit", out, "--json", tmp_path / "audit.json", check=False)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    results = json.load(open(tmp_path / "audit.json"))["results"]
    level_checks = [r["checks"]["violation_level"] for r in results if "violation_level" in r["checks"]]
    assert len(level_checks) == 2 and all(c["ok"] and not c["skipped"] for c in level_checks)
    states = {lv: _states(os.path.join(out, e["states"])) for lv, e in by_level.items()}
    d1, d2 = (_difference(states[lv], states[0.0]) for lv in levels[1:])
    assert 0 < d1 <= d2 * 1.0001, f"the larger level differs less from the twin ({d1:.4g} then {d2:.4g})"


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.mark.heavy
def test_a_sweep_resumes_to_the_same_bytes(tmp_path):
    out = tmp_path / "set"
    args = ("render", "grasp-l2", "--out", out, "--trials", 2, "--states-only", "--seconds", 4, "--fps", 25)
    sweep = ("--sweep", "t08_inertia_bounce=0:30:4", "--workers", 1, "--quiet")
    voebench(*args, *sweep)
    folder = out / "grasp-l2" / "t08_inertia_bounce"
    before = {p.name: _sha(p) for p in folder.iterdir()}
    assert sorted(before)[:4] == [f"00000-implausible-{k}.h5" for k in (1, 2, 3)] + ["00000-plausible.h5"]
    os.remove(folder / "00001-implausible-2.h5")  # a kill between two renames of one trial leaves it partial
    lines = [line for line in open(out / "manifest.jsonl") if "00001-implausible-2" not in line]
    (out / "manifest.jsonl").write_text("".join(lines))
    voebench(*args, *sweep)
    assert {p.name: _sha(p) for p in folder.iterdir()} == before
    # another sweep is another dataset: refused, nothing changed
    other = voebench(*args, "--sweep", "t08_inertia_bounce=0:30:3", "--quiet", check=False)
    assert other.returncode == 2 and "sweep" in other.stderr
    assert {p.name: _sha(p) for p in folder.iterdir()} == before


@pytest.mark.parametrize(
    ("sweep", "message"),
    [
        ("t08_inertia_bounce=0,30,90", "level 90 deg is infeasible"),
        ("t08_inertia_bounce=0", "no level above 0"),
        ("t08_inertia_bounce=-5,10", "is not a violation"),
        ("t08_inertia_bounce=0:40", "lo:hi:n"),
        ("t08_inertia_bounce.angle=0,10", "not a graded violation"),
        ("no_such_test=0,1", "unknown test"),
        ("t08_inertia_bounce", "TEST[.KEY]=LEVELS"),
    ],
)
def test_sweeps_that_cannot_be_made_are_refused_in_one_line(tmp_path, sweep, message):
    out = tmp_path / "set"
    r = voebench("render", "grasp-l2", "--out", out, "--trials", 1, "--states-only", "--sweep", sweep, check=False)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()


def test_a_level_set_as_a_constant_and_a_binary_sweep(tmp_path):
    r = voebench(
        "render",
        "grasp-l2",
        "--out",
        tmp_path / "a",
        "--tests",
        "t08_inertia_bounce",
        "--trials",
        1,
        "--states-only",
        "--set",
        "t08_inertia_bounce.violation=0",
        check=False,
    )
    assert r.returncode == 2 and "plausible twin" in r.stderr
    r = voebench(
        "render",
        "grasp-l2",
        "--out",
        tmp_path / "b",
        "--states-only",
        "--trials",
        1,
        "--set",
        "t08_inertia_bounce.violation=12",
        "--sweep",
        "t08_inertia_bounce=0,5",
        check=False,
    )
    assert r.returncode == 2 and "give it to --sweep only" in r.stderr
    binary = [(s, t) for s in SUITES for t in load_suite(s).tests if binary_reason(s, t)]
    if binary:
        s, t = binary[0]
        r = voebench("render", s, "--out", tmp_path / "c", "--states-only", "--sweep", f"{t}=0,1", check=False)
        assert r.returncode == 2 and "binary" in r.stderr and binary_reason(s, t) in r.stderr
