"""Parameter domains: every numeric leaf of every space says what its quantity can physically be, overrides
outside it are refused naming the key, and declaring domains changed no sampled value."""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys

import numpy as np
import pytest

from voebench.errors import UsageError
from voebench.generator.params import (
    FOV,
    FRACTION,
    NON_NEGATIVE,
    POSITIVE,
    Choice,
    Domain,
    Fixed,
    Range,
    Space,
    canonical_json,
    config_loader,
)

RECORD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "spaces_record.json")


def _all_spaces():
    """Every test of every suite voebench ships (not those a test registers, like tests/fake_suite.py)."""
    from voebench.generator.suite import SUITE_REFS, load_suite

    for name in [n for n, ref in SUITE_REFS.items() if ref.startswith("voebench.scenes.")]:
        suite = load_suite(name)
        for test in suite.tests:
            yield suite, test


def _without_levels(tree: dict) -> dict:
    """A space or draw without its graded-violation leaves (issue 24: `violation`, a Level leaf that takes no draw
    when unset), so the records below keep checking that every other leaf draws and reads as before."""
    return {k: v for k, v in tree.items() if k != "violation"}


def _digest(suite, test) -> str:
    space = suite.space(test)
    samples = [_without_levels(suite.sample(test, space, seed, i)[1]) for seed in (0, 7) for i in range(6)]
    return hashlib.sha256(canonical_json(samples).encode()).hexdigest()[:16]


def _described(suite, test) -> str:
    return hashlib.sha256(canonical_json(_without_levels(suite.space(test).describe())).encode()).hexdigest()[:16]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _numbers_of(leaf) -> list | None:
    """The numbers a leaf declares (its defaults), or None for a non-numeric leaf."""
    if isinstance(leaf, Range):
        return [leaf.lo, leaf.hi]
    if isinstance(leaf, Choice):
        nums = [o for o in leaf.options if _is_number(o)]
        return nums or None
    value = leaf.value if isinstance(leaf, Fixed) else leaf
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    nums = [v for v in items if _is_number(v)]
    return nums or None


def test_sampled_params_are_unchanged_by_domains():
    """Every Dist leaf takes exactly one draw and constants none, whatever their domain: the Params of every
    test of every suite are those recorded from main before domains were declared."""
    with open(RECORD) as f:
        recorded = json.load(f)["sampled"]
    now = {f"{suite.name}/{test}": _digest(suite, test) for suite, test in _all_spaces()}
    assert set(now) == set(recorded)
    changed = sorted(k for k in now if now[k] != recorded[k])
    assert not changed, f"sampled params changed for {changed}"


def test_described_spaces_are_unchanged_so_existing_sets_stay_compatible():
    """Fixed leaves are described as the plain constants they replace: a set rendered before domains has the
    same identity in dataset.json, so rendering into it again is not refused as 'made with other settings'."""
    with open(RECORD) as f:
        recorded = json.load(f)["described"]
    now = {f"{suite.name}/{test}": _described(suite, test) for suite, test in _all_spaces()}
    assert now == recorded


def test_every_numeric_leaf_declares_a_domain_holding_its_default():
    missing, outside = [], []
    for suite, test in _all_spaces():
        for key, leaf in suite.space(test).leaves().items():
            nums = _numbers_of(leaf)
            if nums is None:
                continue
            domain = getattr(leaf, "domain", None)
            if domain is None:
                missing.append(f"{suite.name}/{test}: {key}")
            elif any(v not in domain for v in nums):
                outside.append(f"{suite.name}/{test}: {key} {nums} not in {domain}")
    assert not missing, f"{len(missing)} numeric leaves without a domain: {missing[:20]}"
    assert not outside, outside


def test_fixed_is_a_constant_that_takes_no_draw():
    tree = {"a": Range(0.0, 1.0), "fov": 70.0, "b": Range(0.0, 1.0)}
    fixed = {"a": Range(0.0, 1.0), "fov": Fixed(70.0, domain=FOV), "b": Range(0.0, 1.0)}
    for seed in range(5):
        assert Space(tree).sample(np.random.default_rng(seed), 0) == Space(fixed).sample(np.random.default_rng(seed), 0)
    assert Space(fixed).describe() == Space(tree).describe()
    eye = Fixed([1.0, 2.0, 3.0], domain=None)
    assert eye.sample(None, 0) == [1.0, 2.0, 3.0] and eye.describe() == [1.0, 2.0, 3.0]
    assert Space({"fov": Fixed(70.0, domain=FOV)}).override({"fov": "60"}).sample(None, 0)["fov"] == 60.0


SPACE = {
    "size": Range(0.5, 2.0, domain=POSITIVE),
    "delay": Range(0.0, 1.0, domain=NON_NEGATIVE),
    "hue": Range(0.0, 1.0, domain=FRACTION),
    "step": Choice((1, 2), domain=Domain("a step", 1, 4, integer=True)),
    "camera": {"fov": Fixed(70.0, domain=FOV), "eye": Fixed([1.0, 2.0, 3.0], domain=Domain("a coordinate"))},
    "count": Fixed(3, domain=Domain("a count", 1, integer=True)),
}


@pytest.mark.parametrize(
    "key,value,message",
    [
        ("camera.fov", "-10", "field of view"),
        ("camera.fov", "0", "field of view"),
        ("camera.fov", "180", "field of view"),
        ("camera.fov", "nan", "finite"),
        ("camera.fov", "inf", "finite"),
        ("camera.fov", True, "expected a number"),
        ("camera.eye", [1.0, float("nan"), 3.0], "finite"),
        ("size", "-1:2", "positive"),
        ("size", "0", "positive"),
        ("size", "1:inf", "finite"),
        ("delay", "-0.5:1", "non-negative"),
        ("hue", "0.5:1.5", "fraction"),
        ("count", "0", "whole number >= 1"),
        ("count", "nan", "finite"),
    ],
)
def test_overrides_outside_the_domain_are_refused(key, value, message):
    with pytest.raises(UsageError) as e:
        Space(SPACE).override({key: value}, where="s/t: ")
    text = str(e.value)
    assert message in text and key in text and "\n" not in text


def test_overrides_inside_the_domain_are_kept():
    space = Space(SPACE).override({"camera.fov": "179.5", "size": "0.01:5", "hue": "0:1", "count": "7", "delay": 0})
    p = space.sample(np.random.default_rng(0), 0)
    assert p.camera.fov == 179.5 and 0.01 <= p.size <= 5 and p.count == 7 and p.delay == 0


def test_domain_bounds_and_text():
    assert 0.0 not in POSITIVE and 1e-9 in POSITIVE and 0.0 in NON_NEGATIVE
    assert 180.0 not in FOV and 179.9 in FOV and math.nan not in FRACTION and True not in FRACTION
    assert str(FOV) == "a field of view in degrees, in (0, 180)"
    assert str(POSITIVE) == "a positive size, length or speed, > 0"


def test_declaring_a_default_outside_its_domain_fails_at_import():
    with pytest.raises(ValueError):
        Range(-1.0, 1.0, domain=POSITIVE)
    with pytest.raises(ValueError):
        Fixed(200.0, domain=FOV)


def test_config_files_read_ranges_as_text_not_base_60():
    import yaml

    doc = yaml.load("a: 1:3\nb: 1:2.5\nc: 12\nd: 0.5\ne: .nan\n", Loader=config_loader())
    assert doc["a"] == "1:3" and doc["b"] == "1:2.5" and doc["c"] == 12 and doc["d"] == 0.5 and math.isnan(doc["e"])


if __name__ == "__main__" and "--record" in sys.argv:
    # Regenerate the record (only when a space is changed on purpose; say so in the commit message).
    with open(RECORD) as f:
        doc = json.load(f)
    doc["sampled"] = {f"{suite.name}/{test}": _digest(suite, test) for suite, test in _all_spaces()}
    doc["described"] = {f"{suite.name}/{test}": _described(suite, test) for suite, test in _all_spaces()}
    with open(RECORD, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
