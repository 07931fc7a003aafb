"""Typed suite contracts: each built-in suite's scene modules implement its Protocol (a `SceneModule` extension),
`load_suite` enforces it for every suite, and what it enforces is read off the Protocol itself."""

from __future__ import annotations

import types

import pytest

from voebench.generator.contracts import SceneModule, contract_of, contract_problems
from voebench.generator.suite import load_suite
from voebench.generator.suite_refs import SUITE_REFS

BUILT_IN = [n for n, ref in SUITE_REFS.items() if ref.startswith("voebench.scenes.")]


def test_every_built_in_suite_has_its_own_protocol():
    assert set(BUILT_IN) == {"grasp-l1", "grasp-l2", "avoe", "newton", "predict"}
    contracts = set()
    for name in BUILT_IN:
        suite = load_suite(name)  # checks every scene module against the contract
        assert suite.contract is not SceneModule and SceneModule in suite.contract.__mro__
        assert getattr(suite.contract, "_is_protocol", False), f"{name}: its contract must be a Protocol"
        contract = suite.module_contract
        assert contract["SPACE"] == (dict,) and contract["build"] == ("scene", "p", "condition")
        assert len(contract) > 3, f"{name}: the contract adds nothing to the base"
        for test in suite.tests:
            assert contract_problems(suite.module(test), contract, name) == []
        contracts.add(suite.contract)
    assert len(contracts) == len(BUILT_IN)


def test_contract_read_off_the_protocol():
    l1 = contract_of(load_suite("grasp-l1").contract)
    assert "OPEN_QUESTION" not in l1 and l1["KEYWORDS"] == (dict,)  # the words are in prompts.py
    assert l1["negative"] == ("p", "rng") and l1["describe"] == ("scene", "p", "condition")
    l2 = contract_of(load_suite("grasp-l2").contract)
    assert l2["DELAYS"] == (tuple,) and l2["NUMBER"] == (int,) and l2["level_key"] == ("p",)
    assert contract_of(load_suite("newton").contract)["measured"] == ("scene", "p")


@pytest.mark.parametrize("suite_name", BUILT_IN)
def test_a_module_breaking_the_contract_is_named(suite_name):
    suite = load_suite(suite_name)
    contract = suite.module_contract
    good = suite.module(suite.tests[0])
    fake = types.ModuleType("fake_scene")
    fake.__dict__.update({k: v for k, v in vars(good).items() if not k.startswith("__")})
    assert contract_problems(fake, contract, suite_name) == []

    constants = [k for k, want in contract.items() if want and isinstance(want[0], type) and k != "SPACE"]
    function = next(k for k, want in contract.items() if k not in ("build", "describe") and isinstance(want[0], str))
    for k in constants[:1]:  # (predict's contract has no constant besides SPACE)
        del fake.__dict__[k]
    setattr(fake, function, lambda wrong: None)
    fake.SPACE = []
    problems = contract_problems(fake, contract, suite_name)
    for k in constants[:1]:
        assert f"fake_scene: a {suite_name} scene module must define {k}" in problems
    assert any(pr.startswith(f"fake_scene.{function} must take (") and "('wrong',)" in pr for pr in problems)
    assert "fake_scene.SPACE must be a dict, not list" in problems
    assert len(problems) == 2 + len(constants[:1])


def test_load_suite_refuses_a_broken_module(monkeypatch):
    suite = load_suite("newton")
    module = suite.module("heaviness")
    monkeypatch.delattr(module, "MEASURE_KEYS")
    with pytest.raises(TypeError, match="heaviness: a newton scene module must define MEASURE_KEYS"):
        suite.check_modules()
