"""Asking for some of the tests that share a stream of trials (AVoE sub-types of a category) gives `--trials`
trials of those tests (generator/streams.py): exactly N per category asked for in part, each of an asked
sub-type, the category's first N such trials with their category-wide indices (the same trials, seeds and ids as
in a render of the whole category); whole categories are planned as before; a sub-type the settings exclude is
refused in one line, exit 2, nothing written; the bytes are the same whatever the workers or shards."""

from __future__ import annotations

import json
import os
import random

import pytest

from conftest import voebench
from voebench.errors import UsageError
from voebench.generator import streams
from voebench.generator.runner import RunConfig, effective_space, first_trial, plan_trials
from voebench.scenes import REGISTRY
from voebench.scenes.avoe import SUBTYPES, TESTS

SUITE = REGISTRY.get("avoe")


def config(tests, trials, seed=0, overrides=None, **kw) -> RunConfig:
    return RunConfig(
        out="/nonexistent",
        suite="avoe",
        tests=list(tests),
        trials=trials,
        base_seed=seed,
        overrides=overrides or {},
        **kw,
    )


def subtype_stream(cat: str, seed: int, n: int, keep=None) -> list[tuple[int, str]]:
    """The category's trials as (index, sub-type) from the suite's own sampling (not the runner): the first n,
    or with `keep` (sub-types) the first n of those sub-types."""
    test, out, i = SUBTYPES[cat][0], [], 0
    space = SUITE.space(test)
    while len(out) < n:
        _, p = SUITE.sample(test, space, seed, i)
        if keep is None or SUITE.subtype(test, p) in keep:
            out.append((i, SUITE.subtype(test, p)))
        i += 1
    return out


def by_test(trials) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for t in trials:
        out.setdefault(t.test, []).append(t.index)
    return out


@pytest.mark.parametrize("test", TESTS)
def test_a_subtype_alone_gets_exactly_its_first_n_trials(test):
    rng = random.Random(f"alone/{test}")
    for n in (1, 2, rng.randint(3, 9)):
        seed = rng.randrange(2**31)
        planned = plan_trials(config([test], n, seed), SUITE)
        assert [t.test for t in planned] == [test] * n, (test, n, seed)
        # the category's first n trials of this sub-type, with their category-wide indices
        want = [i for i, _ in subtype_stream(test[0], seed, n, keep=[test])]
        assert len(want) == n and [t.index for t in planned] == want
        for t in planned:
            assert t.conditions and t.seed == SUITE.trial_seed(test, seed, t.index)


def test_a_combination_gets_n_trials_per_category_of_the_asked_subtypes():
    rng = random.Random("combination")
    for _ in range(6):
        seed, n = rng.randrange(2**31), rng.randint(1, 12)
        cats = rng.sample("ABCDE", rng.randint(1, 4))
        # each chosen category: a proper subset of its sub-types (filtered) or all of them (whole)
        asked = []
        for c in cats:
            subs = list(SUBTYPES[c])
            asked += subs if rng.random() < 0.3 else rng.sample(subs, rng.randint(1, len(subs) - 1))
        tests = [t for t in TESTS if t in asked]
        planned = by_test(plan_trials(config(tests, n, seed), SUITE))
        for c in cats:
            mine = [t for t in tests if t[0] == c]
            whole = len(mine) == len(SUBTYPES[c])  # a whole category: its first n trials, as before
            want = subtype_stream(c, seed, n, keep=None if whole else mine)
            got = sorted((i, t) for t in mine for i in planned.get(t, []))
            assert got == sorted(want), (seed, n, tests, c)
        assert set(planned) <= set(tests)


def test_filtered_trials_are_the_same_trials_as_in_the_whole_category():
    whole_tests = [t for t in TESTS if t[0] in "ADE"]
    whole = {(t.test, t.index): t for t in plan_trials(config(whole_tests, 200, seed=7), SUITE)}
    part = plan_trials(config(["A2", "D2", "E1", "E3"], 5, seed=7), SUITE)
    assert len(part) == 5 * 3
    for t in part:
        assert whole[(t.test, t.index)] == t  # same index, seed, conditions (split)


def test_a_per_subtype_override_changes_only_that_subtypes_stream():
    overrides = {"D2": {"d2_side": "left"}}
    planned = plan_trials(config(["D2"], 4, seed=3, overrides=overrides), SUITE)
    space = effective_space(SUITE, "D2", overrides)
    cfg = config(["D2"], 4, seed=3, overrides=overrides)
    assert [t.index for t in planned] == [i for i in range(400) if first_trial(SUITE, "D2", space, cfg, i).conditions][
        :4
    ]


def test_shards_split_a_filtered_plan_without_overlap():
    cfg = config(["B1", "E2"], 7, seed=11)
    whole = plan_trials(cfg, SUITE)
    parts = [plan_trials(config(["B1", "E2"], 7, seed=11, shard=(i, 3)), SUITE) for i in range(3)]
    assert sorted(t.id for p in parts for t in p) == sorted(t.id for t in whole) and len(whole) == 14


def test_a_subtype_the_settings_exclude_is_refused_naming_the_override():
    cfg = config(["E1", "E2"], 3, overrides={"E1": {"subtype": "E1"}, "E2": {"subtype": "E1"}})
    with pytest.raises(UsageError) as e:
        plan_trials(cfg, SUITE)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("avoe/E2: none of the first 2000 Barrier trials belongs to E2")
    assert "it can be had with subtype at its default" in msg
    # an excluded sub-type asked with another category's (n = 1: B1 alone would fill it)
    cfg = config(["A2", "B1"], 1, overrides={"A2": {"contact": [0.2, 0.3]}})
    with pytest.raises(UsageError, match="avoe/A2: none of the first 2000 Support trials.*contact at its default"):
        plan_trials(cfg, SUITE)


def test_more_trials_than_the_index_limit_holds_is_refused(monkeypatch):
    monkeypatch.setattr(streams, "TRIALS_MAX", 60)
    n_d2 = sum(s == "D2" for _, s in subtype_stream("D", 0, 60))
    assert plan_trials(config(["D2"], n_d2), SUITE)  # exactly what the first 60 hold: fine
    with pytest.raises(UsageError) as e:
        plan_trials(config(["D2"], n_d2 + 1), SUITE)
    assert str(e.value) == (
        f"avoe/D2: only {n_d2} of the first 60 Collision trials (video ids have a 5-digit index) are D2 trials with "
        f"these settings; ask for at most {n_d2} with --videos-per-test"
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (["--tests", "E2", "--set", "subtype=E1"], "avoe/E2: none of the first 2000 Barrier trials belongs to E2"),
        (["--tests", "B2,D2", "--set", "subtype=[D1,D3]"], "avoe/D2: none of the first 2000 Collision trials"),
        (["--categories", "C", "--tests", "A2", "--set", "contact=[0.25]"], "avoe/A2: none of the first 2000"),
    ],
)
def test_cli_refuses_an_excluded_subtype_in_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "out"
    proc = voebench("render", "avoe", "--states-only", "--trials", 2, *args, "--out", out, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not out.exists()


def tree_bytes(root) -> dict:
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), root)] = fh.read()
    return out


@pytest.mark.heavy
def test_a_subtype_render_is_the_same_bytes_with_1_and_2_workers(tmp_path):
    """`--tests E2,A1 --trials 2` (states only): 2 trials of each, the same bytes with 1 and 2 workers (E2 is
    19% of Barrier trials: the first 2 Barrier trials of seed 5 hold none)."""
    assert all(s != "E2" for _, s in subtype_stream("E", 5, 2))
    args = ["render", "avoe", "--states-only", "--tests", "E2,A1", "--trials", 2, "--seed", 5, "--quiet"]
    proc = voebench(*args, "--workers", 1, "--out", tmp_path / "one")
    assert "note:" not in proc.stderr
    voebench(*args, "--workers", 2, "--out", tmp_path / "two")
    entries = [json.loads(line) for line in open(tmp_path / "one" / "manifest.jsonl")]
    trials = {(e["test"], e["index"]) for e in entries}
    assert sorted(t for t, _ in trials) == ["A1", "A1", "E2", "E2"]
    assert all(e["subtype"] == e["test"] for e in entries)
    one, two = tree_bytes(tmp_path / "one"), tree_bytes(tmp_path / "two")
    h5 = sorted(k for k in one if k.endswith(".h5"))
    assert len(h5) == len(entries) and all(one[k] == two[k] for k in h5)
    assert one["manifest.jsonl"] == two["manifest.jsonl"]
