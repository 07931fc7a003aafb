"""NEWTON Track 2 at the released generator's scale: the pool follows its pairings and caps (so the maximum is its
count), every n up to the maximum is drawn without failing, the same seed gives the same bytes, an n above the
maximum is refused up front naming it, and every question is distinct and true to the repository."""

import csv
import itertools
import json
import math
import os
from collections import Counter

import newton_repository as nr
import pytest

from voebench.cli import main
from voebench.errors import UsageError
from voebench.evaluate.newton import track2 as t2
from voebench.evaluate.newton.repository import filter_pairs, read_repository

# High and low objects per attribute in NEWTON's confident_questions.csv (2,891 pairs, all kept by the filter),
# counted from the file; its released generator (explicit_querying_template.py) writes 84,182 Track 2 rows from
# it: 44,182 Boolean and 40,000 multiple choice (docs/newton.md, Measured).
NEWTON_COUNTS = {
    "brittleness": (26, 319),
    "elasticity": (55, 438),
    "malleability": (58, 424),
    "sharpness": (26, 477),
    "softness": (149, 368),
    "stiffness": (119, 84),
    "surface hardness": (47, 81),
    "surface smoothness": (173, 47),
}
RELEASED_COUNT = 84182


def write_counts(path, counts: dict[str, tuple[int, int]]) -> str:
    """A repository with `high` and `low` made-up objects per attribute (all agreement 1)."""
    question, options = nr.QUESTIONS["elasticity"]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(
            ["attribute", "category", "type", "question", "option_1", "option_2", "option_3"]
            + ["result_majority", "agreement"]
        )
        for attribute, (high, low) in counts.items():
            for k in range(high + low):
                w.writerow([attribute, f"thing_{k:03d}", "object", question, *options, 3 if k < high else 1, 1.0])
    return str(path)


def _data(path):
    return filter_pairs(read_repository(path).pairs)


def _key(q):
    objs = sorted(q["objects"]) if q["qtype"] == "multiple_choice" else q["objects"]
    return q["qtype"], q["polarity"], q["attribute"], tuple(objs)


def _check(qs, value):
    """Distinct questions, each answer true to the repository's extremes (`value(attribute, category)`)."""
    assert len({_key(q) for q in qs}) == len(qs)
    assert len({q["texts"]["v1"] for q in qs}) == len(qs)
    for q in qs:
        vals = [value(q["attribute"], o) for o in q["objects"]]
        positive = q["polarity"] == "positive"
        if q["qtype"] == "boolean":
            assert q["answer"] == str((vals[0] == 3) == positive)
        elif q["qtype"] == "comparison":
            assert sorted(vals) == [1, 3] and q["answer"] == str((vals[0] > vals[1]) == positive)
        else:
            k, want = q["position"] - 1, 3 if positive else 1
            assert vals[k] == want and all(v == 4 - want for i, v in enumerate(vals) if i != k)
            assert q["answer"] == q["labels"][k]


def test_maximum_is_the_released_generators_count():
    assert sum(t2.attribute_maximum(h, lo) for h, lo in NEWTON_COUNTS.values()) == RELEASED_COUNT
    # below the caps every pairing counts: 2 (H + L) + 4 H L + H C(L, 3) + L C(H, 3)
    assert t2.attribute_maximum(4, 5) == 18 + 80 + 4 * 10 + 5 * 4
    assert t2.attribute_maximum(20, 400) == 2 * 420 + 4 * 1200 + 2500 + 2500


def test_maximum_of_a_repository_with_newtons_counts(tmp_path):
    data = _data(write_counts(tmp_path / "r.csv", NEWTON_COUNTS))
    assert t2.maximum(data) == RELEASED_COUNT


def test_unrank_combination_matches_lexicographic_order():
    for n, k in ((6, 3), (7, 1), (5, 5)):
        assert [t2.unrank_combination(r, n, k) for r in range(math.comb(n, k))] == list(
            itertools.combinations(range(n), k)
        )


def test_the_maximum_is_reached_for_several_seeds_distinct_and_true(tmp_path):
    # one attribute above both caps (13 x 110 pairs > 1200; 13 x C(110, 3) sets > 2500), one below them
    counts = {"elasticity": (13, 110), "stiffness": (5, 6)}
    data = _data(write_counts(tmp_path / "r.csv", counts))
    values = {(p.attribute, p.category): p.majority for p in data.pairs}
    most = t2.maximum(data)
    assert most == t2.attribute_maximum(13, 110) + t2.attribute_maximum(5, 6) == 246 + 4800 + 5000 + 22 + 120 + 100 + 60
    for seed in (0, 1, 2):
        qs, skipped = t2.track2(data, most, seed, ("v1",), lambda a: a[:4] + "ish")
        assert len(qs) == most and not skipped
        _check(qs, lambda a, o: values[(a, o)])
        mc = Counter(q["position"] for q in qs if q["qtype"] == "multiple_choice")
        assert max(mc.values()) - min(mc.values()) <= 2 * len(counts)  # each attribute's sets split over positions
    with pytest.raises(UsageError, match=f"at most {most} "):
        t2.track2(data, most + 1, 0, ("v1",), lambda a: a)


def test_every_n_up_to_the_maximum_is_drawn_on_the_small_repository(tmp_path):
    data = _data(nr.write(tmp_path / "r.csv"))
    most = t2.maximum(data)
    assert most == sum(t2.attribute_maximum(len(data.high(a)), len(data.low(a))) for a in t2.usable_attributes(data)[0])
    for seed in range(4):
        for n in (1, 7, most // 2, most - 1, most):
            qs, _ = t2.track2(data, n, seed, ("v1",), lambda a: a)
            assert len(qs) == n
            _check(qs, lambda a, o: nr.VALUES[a][o][0])


def _generate(repo, out, n, seed=0, track=2):
    return main(
        [
            "newton",
            "generate",
            "--repository",
            repo,
            "--track",
            str(track),
            "--n",
            str(n),
            "--seed",
            str(seed),
            "--out",
            str(out),
        ]
    )


def test_cli_same_seed_same_bytes_max_and_refusal(tmp_path, capsys):
    repo = write_counts(tmp_path / "r.csv", {"elasticity": (6, 40), "softness": (8, 7)})
    most = t2.maximum(_data(repo))
    assert _generate(repo, tmp_path / "a", "max", seed=3) == 0
    assert f"at most {most} from this repository" in capsys.readouterr().err
    assert _generate(repo, tmp_path / "b", most, seed=3) == 0
    assert _generate(repo, tmp_path / "c", most, seed=4) == 0
    read = lambda d: open(os.path.join(d, "questions.jsonl"), "rb").read()  # noqa: E731
    assert read(tmp_path / "a") == read(tmp_path / "b") != read(tmp_path / "c")
    meta = json.load(open(tmp_path / "a" / "newton.json"))
    assert meta["n"] == meta["maximum"] == most == len(read(tmp_path / "a").splitlines())

    capsys.readouterr()
    assert _generate(repo, tmp_path / "d", most + 1) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"at most {most} questions" in err[0] and "--n max" in err[0]
    assert not os.path.exists(tmp_path / "d")

    assert _generate(repo, tmp_path / "t1", "max", track=1) == 0
    assert json.load(open(tmp_path / "t1" / "newton.json"))["n"] == len(_data(repo).pairs)
    assert _generate(repo, tmp_path / "t3", "max", track=3) == 2
    assert not os.path.exists(tmp_path / "t3")


def test_a_repository_without_a_usable_attribute_is_refused_in_one_line(tmp_path, capsys):
    repo = write_counts(tmp_path / "r.csv", {"elasticity": (2, 40)})
    for n in ("max", "5"):
        capsys.readouterr()
        assert _generate(repo, tmp_path / "q", n) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "no attribute has 3 high and 3 low objects" in err[0]
    assert not os.path.exists(tmp_path / "q")
