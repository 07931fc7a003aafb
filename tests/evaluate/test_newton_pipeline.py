"""NEWTON pipeline: reading and filtering a repository, filling the three tracks' templates with balanced
polarity and answer positions, parsing choice answers, and the report's metrics; end to end through
`voebench newton generate` and `voebench evaluate` with fake models."""

import json
import os
from collections import Counter

import newton_repository as nr
import pytest

from voebench.cli import main
from voebench.errors import UsageError
from voebench.evaluate.newton import generate as gen
from voebench.evaluate.newton import metrics, templates
from voebench.evaluate.newton.answers import parse_choice, pick
from voebench.evaluate.newton.repository import filter_pairs, read_repository


@pytest.fixture
def repo(tmp_path):
    return nr.write(tmp_path / "repo.csv")


@pytest.fixture
def data(repo):
    return filter_pairs(read_repository(repo).pairs)


def _value(attribute, category):
    m, a = nr.VALUES[attribute][category]
    return m


def _spread(counter) -> int:
    return max(counter.values()) - min(counter.values())


# ------------------------------------------------------------------------------------------------ reading, filter


def test_reader_and_filter_keep_agreement_075_and_extreme_answers(repo):
    r = read_repository(repo)
    assert len(r.pairs) == sum(len(v) for v in nr.VALUES.values())
    f = filter_pairs(r.pairs)
    assert len(f.pairs) == nr.kept_count()
    assert f.dropped == {"low_agreement": 2, "middle_answer": 1}
    assert all(p.agreement >= 0.75 and p.majority in (1, 3) for p in f.pairs)
    kept = {(p.attribute, p.category) for p in f.pairs}
    assert ("elasticity", "wooden_board") not in kept  # middle answer
    assert ("elasticity", "scissors") not in kept  # agreement 0.5
    assert ("elasticity", "tennis_ball") in kept  # agreement exactly 0.75 is kept


def test_reader_accepts_answer_text_and_percentages_and_refuses_bad_files(tmp_path):
    extra = [
        dict(
            nr.rows()[0],
            category="bouncy_castle",
            result_majority="Yes: Object recovers near perfectly.",
            agreement="80",
        )
    ]
    r = read_repository(nr.write(tmp_path / "a.csv", extra))
    p = next(p for p in r.pairs if p.category == "bouncy_castle")
    assert p.majority == 3 and p.agreement == pytest.approx(0.8) and p.object_name == "bouncy castle"
    bad = tmp_path / "b.csv"
    bad.write_text("attribute,category,question\nElasticity,ball,q\n")
    with pytest.raises(UsageError, match="no column"):
        read_repository(str(bad))
    with pytest.raises(UsageError, match="result_majority"):
        read_repository(nr.write(tmp_path / "c.csv", [dict(nr.rows()[0], category="x", result_majority="7")]))
    with pytest.raises(UsageError, match="agreement"):
        read_repository(nr.write(tmp_path / "d.csv", [dict(nr.rows()[0], category="x", agreement="lots")]))


# ------------------------------------------------------------------------------------------------ templates


def test_track1_fills_the_annotators_question_balanced_over_extremes(data):
    plan = gen.generate(data, 1, 20, seed=3, variants=templates.VARIANTS)
    qs = plan.questions
    assert len(qs) == 20 and len({q["id"] for q in qs}) == 20
    assert _spread(Counter(q["extreme"] for q in qs)) == 0  # low and high answers alternate
    assert _spread(Counter(q["attribute"] for q in qs)) <= 2
    for q in qs:
        obj = q["objects"][0]
        assert "<MASK>" not in q["texts"]["v1"] and obj.replace("_", " ") in q["texts"]["v1"]
        assert q["texts"]["v1"].endswith(f"c) {q['options'][2]}")
        assert q["position"] == _value(q["attribute"], obj) and q["answer"] == q["labels"][q["position"] - 1]
        assert q["agreement"] >= 0.75
    assert set(qs[0]["texts"]) == {"v1", "v2", "v3"}
    with pytest.raises(UsageError, match="only"):
        gen.generate(data, 1, nr.kept_count() + 1, seed=0)


def test_track2_is_balanced_and_true_to_the_repository(data):
    n = 60
    qs = gen.generate(data, 2, n, seed=5).questions
    assert len(qs) == n
    by = Counter((q["qtype"], q["polarity"]) for q in qs)
    assert set(by) == {(t, p) for t in templates.TRACK2_TYPES for p in ("positive", "negative")}
    assert _spread(by) <= 1
    mc = [q for q in qs if q["stream"] == "multiple_choice"]
    assert _spread(Counter(q["position"] for q in mc)) <= 1 and set(q["position"] for q in mc) == {1, 2, 3, 4}
    for stream in ("boolean",):
        bq = [q for q in qs if q["stream"] == stream]
        assert _spread(Counter(q["answer"] for q in bq)) <= 1
    attrs = Counter(q["attribute"] for q in qs)
    assert "sharpness" not in attrs  # two sharp objects: not enough for a multiple-choice question
    assert _spread(attrs) <= 3
    for q in qs:
        a, objs = q["attribute"], q["objects"]
        vals = [_value(a, o) for o in objs]
        pos = q["polarity"] == "positive"
        if q["qtype"] == "boolean":
            truth = (vals[0] == 3) == pos
            assert q["answer"] == ("True" if truth else "False")
            assert q["texts"]["v1"].startswith("True/False: ") and (" is not " in q["texts"]["v1"]) == (not pos)
        elif q["qtype"] == "comparison":
            assert sorted(vals) == [1, 3]
            truth = (vals[0] > vals[1]) == pos
            assert q["answer"] == ("True" if truth else "False")
            assert (" more " if pos else " less ") in q["texts"]["v1"]
        else:
            k = q["position"] - 1
            want = 3 if pos else 1
            assert vals[k] == want and all(v == 4 - want for i, v in enumerate(vals) if i != k)  # padding opposite
            assert q["answer"] == objs[k].replace("_", " ") == q["labels"][k]
            assert ("the most" if pos else "the least") in q["texts"]["v1"] and "Options: " in q["texts"]["v1"]
    assert len({(q["qtype"], q["polarity"], q["attribute"], tuple(q["objects"])) for q in qs}) == n  # distinct


def test_generation_is_deterministic_from_the_seed(data):
    a = gen.generate(data, 2, 24, seed=1).questions
    b = gen.generate(data, 2, 24, seed=1).questions
    c = gen.generate(data, 2, 24, seed=2).questions
    assert a == b and a != c


def test_track3_answers_fit_the_scenario_and_padding_is_opposite(data):
    plan = gen.generate(data, 3, 40, seed=0)
    qs = plan.questions
    assert "scenario 2" in plan.skipped  # no malleability in the test repository
    assert _spread(Counter(q["position"] for q in qs)) <= 1
    for q in qs:
        for k, o in enumerate(q["objects"]):
            fits = all(_value(a, o) == (3 if lv == "high" else 1) for a, lv in q["attributes"].items())
            opposite = all(_value(a, o) == (1 if lv == "high" else 3) for a, lv in q["attributes"].items())
            assert fits if k == q["position"] - 1 else opposite
    sc8 = next(q for q in qs if q["attribute"] == "scenario 8")
    assert "should I remove?" in sc8["texts"]["v1"] and sc8["attributes"] == {
        "brittleness": "high",
        "elasticity": "low",
    }


def test_unknown_attribute_needs_an_adjective(tmp_path):
    extra = [
        dict(
            nr.rows()[0],
            attribute="Heat resistance",
            category=f"thing{k}",
            result_majority=1 + 2 * (k % 2),
            agreement=1,
        )
        for k in range(8)
    ]
    data = filter_pairs(read_repository(nr.write(tmp_path / "r.csv", extra)).pairs)
    with pytest.raises(UsageError, match="--adjective"):
        gen.generate(data, 2, 12, seed=0)
    qs = gen.generate(data, 2, 60, seed=0, adjectives={"heat resistance": "heat resistant"}).questions
    assert any("heat resistant" in q["texts"]["v1"] for q in qs)


# ------------------------------------------------------------------------------------------------ parsing


def test_choice_parsing():
    labels = ["cake", "chocolate cake", "brick", "egg"]
    assert pick("Chocolate cake.", labels) == "chocolate cake"  # "cake" inside the longer name does not count
    assert pick("The brick", labels) == "brick"
    assert pick("brick or egg", labels) == "invalid"
    assert pick("I don't know", labels) == "invalid"
    assert pick("chocolate_cake", labels) == "chocolate cake"
    likert = ["No", "Somewhat", "Yes"]
    assert pick("c) Yes: it recovers", likert, letters=True) == "Yes"
    assert pick("(b)", likert, letters=True) == "Somewhat"
    assert pick("Yes, it can.", likert, letters=True) == "Yes"
    assert pick("A glass cup breaks easily, so Yes.", likert, letters=True) == "Yes"  # the article is not option a
    assert pick("a) Yes", likert, letters=True) == "invalid"  # letter and word disagree: either could be meant
    assert pick("A", likert, letters=True) == "No"
    assert pick("a cup", ["a", "b", "c"], letters=True) == "a"
    assert pick("a", ["True", "False"]) == "invalid"  # letters only where the options are lettered
    assert parse_choice("False.", "False", {"labels": ["True", "False"]}).correct
    assert not parse_choice("True", "False", {"labels": ["True", "False"]}).correct


# ------------------------------------------------------------------------------------------------ metrics


def _rec(
    qid,
    correct,
    track=2,
    stream="boolean",
    attribute="elasticity",
    polarity="positive",
    position=1,
    n=2,
    agreement=None,
    variant="v1",
    parsed=None,
    truth="True",
    repeat=0,
):
    return {
        "correct": correct,
        "valid": parsed != "invalid",
        "parsed": parsed if parsed is not None else (truth if correct else "other"),
        "truth": truth,
        "repeat": repeat,
        "meta": {
            "newton": {
                "question_id": qid,
                "track": track,
                "qtype": stream,
                "stream": stream,
                "attribute": attribute,
                "polarity": polarity,
                "position": position,
                "n_options": n,
                "agreement": agreement,
                "variant": variant,
            }
        },
    }


def test_metrics_agreement_polarity_position_and_ensemble():
    recs = [
        _rec("a", True, track=1, stream="likert", polarity=None, agreement=1.0, n=3),
        _rec("b", True, track=1, stream="likert", polarity=None, agreement=0.75, n=3, position=3),
        _rec("c", False, track=1, stream="likert", polarity=None, agreement=1.0, n=3),
    ]
    s = metrics.summarize(recs)
    row = s["streams"][0]
    assert row["acc"] == pytest.approx(2 / 3) and row["agreement"] == pytest.approx((1.0 + 0.75) / 3)
    assert row["agreement_max"] == pytest.approx(2.75 / 3)

    # a model right on every positive and wrong on most negative questions: significant polarity bias
    recs = [_rec(f"p{k}", True) for k in range(20)] + [_rec(f"n{k}", k < 3, polarity="negative") for k in range(20)]
    pol = metrics.summarize(recs)["polarity"][0]
    assert pol["acc_pos"] == 1.0 and pol["acc_neg"] == 0.15 and pol["p"] < 1e-6
    recs = [_rec(f"p{k}", k % 2 == 0) for k in range(20)] + [
        _rec(f"n{k}", k % 2 == 1, polarity="negative") for k in range(20)
    ]
    assert metrics.summarize(recs)["polarity"][0]["p"] > 0.5

    recs = [_rec(f"q{k}", k % 4 == 0, stream="multiple_choice", n=4, position=1 + k % 4) for k in range(40)]
    pos = metrics.summarize(recs)["position"][0]
    assert pos["acc_by_position"] == {"1": 1.0, "2": 0.0, "3": 0.0, "4": 0.0} and pos["best"] == 1 and pos["p"] == 0.0

    # ensemble: majority of the variants' parsed answers; no majority = wrong
    votes = {"x": ["True", "True", "False"], "y": ["False", "False", "True"], "z": ["True", "invalid", "False"]}
    recs = [
        _rec(q, ans == "True", variant=v, parsed=ans)
        for q, answers in votes.items()
        for v, ans in zip(templates.VARIANTS, answers)
    ]
    rows = {r["variant"]: r for r in metrics.summarize(recs)["prompt_variants"]}
    assert rows["ensemble"]["acc"] == pytest.approx(1 / 3) and rows["v1"]["acc"] == pytest.approx(2 / 3)
    assert metrics.summarize([{"correct": True}]) is None  # not a NEWTON run


# ------------------------------------------------------------------------------------------------ end to end


def _results(run):
    with open(os.path.join(run, "results.json")) as fh:
        return json.load(fh)


def test_generate_and_evaluate_with_fake_models(repo, tmp_path, capsys):
    qset = str(tmp_path / "t2")
    assert (
        main(
            [
                "newton",
                "generate",
                "--repository",
                repo,
                "--track",
                "2",
                "--n",
                "48",
                "--seed",
                "4",
                "--out",
                qset,
                "--variants",
                "v1,v2,v3",
            ]
        )
        == 0
    )
    meta = json.load(open(os.path.join(qset, "newton.json")))
    assert meta["filter"]["kept"] == nr.kept_count() and meta["skipped"].keys() == {"sharpness"}
    assert meta["counts"]["multiple_choice"]["position"] == {"1": 4, "2": 4, "3": 4, "4": 4}

    oracle, first = str(tmp_path / "oracle"), str(tmp_path / "first")
    assert main(["evaluate", qset, "--model", "fake:oracle", "--out", oracle, "--repeats", "2", "--no-progress"]) == 0
    res = _results(oracle)
    assert res["n_scored"] == 48 * 3 * 2
    assert all(r["acc"] == 1.0 for r in res["newton"]["streams"])
    assert {r["variant"] for r in res["newton"]["prompt_variants"]} == {"v1", "v2", "v3", "ensemble"}

    assert main(["evaluate", qset, "--model", "fake:first", "--out", first, "--repeats", "1", "--no-progress"]) == 0
    streams = {r["stream"]: r for r in _results(first)["newton"]["streams"]}
    # balanced positions: always taking the first option scores exactly the chance level
    assert streams["boolean"]["acc"] == 0.5 == streams["boolean"]["chance"]
    assert streams["multiple_choice"]["acc"] == 0.25 == streams["multiple_choice"]["chance"]
    assert "## NEWTON metrics" in open(os.path.join(first, "report.md")).read()

    # the cache: the same command again asks the model nothing
    capsys.readouterr()
    assert main(["evaluate", qset, "--model", "fake:first", "--out", first, "--repeats", "1", "--no-progress"]) == 0
    assert "0 model calls made" in capsys.readouterr().err

    # replay re-scores an earlier run's answers
    replay = str(tmp_path / "replay")
    assert (
        main(
            [
                "evaluate",
                qset,
                "--model",
                f"replay:{first}/samples.jsonl",
                "--out",
                replay,
                "--repeats",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    assert _results(replay)["newton"]["streams"] == _results(first)["newton"]["streams"]


def test_cli_refusals(repo, tmp_path):
    out = str(tmp_path / "q")
    assert (
        main(["newton", "generate", "--repository", repo, "--track", "1", "--n", "5", "--out", out, "--variants", "v9"])
        == 2
    )
    assert not os.path.exists(out)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("mine")
    assert (
        main(["newton", "generate", "--repository", repo, "--track", "1", "--n", "5", "--out", str(tmp_path / "busy")])
        == 2
    )
    assert main(["newton", "generate", "--repository", repo, "--track", "3", "--n", "4", "--out", out]) == 0
    assert main(["evaluate", out, "--model", "fake:oracle", "--out", str(tmp_path / "r"), "--strategy", "cot"]) == 2
