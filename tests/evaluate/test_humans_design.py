"""The study design: who sees which video in which order, fixed by recorded seeds; what a study refuses."""

from __future__ import annotations

from collections import Counter

import pytest

from voebench.errors import UsageError


def _manifest(root):
    from voebench.evaluate.tasks import load_manifest

    return load_manifest(root)


def _plan(root, protocol, participants, **given):
    from voebench.evaluate.humans import design

    d = design.default_design(protocol, participants, **given)
    main, train = design.eligible(_manifest(root), d)
    return d, main, design.plan(d, main, train)


def test_grasp_votes_cover_every_video(tmp_path):
    from humans_fixtures import make_plausibility_set

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 7, "t02": 4})
    d, main, plans = _plan(root, "grasp", 8)
    practice = {t["video_id"] for p in plans for t in p if t["phase"] == "practice"}
    assert len(practice) == 2  # one pair set aside for practice: 20 videos (10 pairs) judged
    votes = Counter(t["video_id"] for p in plans for t in p if t["phase"] == "main")
    assert set(votes) == {e["id"] for e in main} - practice and min(votes.values()) >= 3  # every video, 3+ votes
    assert max(votes.values()) - min(votes.values()) <= 1  # dealt out evenly
    for p in plans:
        mine = [t["video_id"] for t in p if t["phase"] == "main"]
        assert len(mine) == len(set(mine)) == 8  # ceil(20 videos x 3 votes / 8), none twice
        assert [t["phase"] for t in p[:2]] == ["practice", "practice"]
        assert sorted(t["truth"] for t in p[:2]) == ["no", "yes"]  # one plausible, one implausible
        assert sum(t["phase"] == "attention" for t in p) == 2
        assert p[2]["phase"] == "main"  # never an attention check first
        assert [t["position"] for t in p] == list(range(len(p)))
        assert all("truth" not in t for t in p if t["phase"] == "attention")
    assert plans[0] != plans[1]
    assert plans == _plan(root, "grasp", 8)[2]  # the same design gives the same orders
    assert plans != _plan(root, "grasp", 8, seed=1)[2]


def test_avoe_everyone_sees_everything_and_repeats_come_later(tmp_path):
    from humans_fixtures import make_plausibility_set

    root = make_plausibility_set(str(tmp_path / "set"), {"A1": 4}, suite="avoe")
    d, main, plans = _plan(root, "avoe", 3)
    for p in plans:
        assert {t["video_id"] for t in p if t["phase"] == "main"} == {e["id"] for e in main}
        fam = [t for t in p if t["phase"] == "practice"]
        assert len(fam) == 2 and all(t["response"] == "watch" and t["truth"] == "yes" for t in fam)
        reps = [t for t in p if t["phase"] == "repeat"]
        assert len(reps) == 2  # 25% of 8
        for r in reps:
            first = p[r["repeat_of"]]
            assert first["phase"] == "main" and first["video_id"] == r["video_id"]
            assert r["position"] >= first["position"] + 2  # not straight after
        assert all(t["response"] in ("slider", "watch") for t in p)


def test_refusals(tmp_path, tiny_set):
    from humans_fixtures import make_plausibility_set

    from voebench.evaluate.humans import design

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 3})
    with pytest.raises(UsageError, match="need at least 3 participants"):
        _plan(root, "grasp", 2)
    with pytest.raises(UsageError, match="raise --participants or --per-participant"):
        _plan(root, "grasp", 3, per_participant=1)
    with pytest.raises(UsageError, match="no video of the selection has a plausibility question"):
        _plan(tiny_set, "grasp", 3, suites=["grasp-l1"])
    with pytest.raises(UsageError, match="--protocol"):
        design.default_design("vote", 3)
    with pytest.raises(UsageError, match="GRASP protocol asks yes/no"):
        design.default_design("grasp", 3, response="slider")


def test_a_study_keeps_its_design_and_set(tmp_path, tiny_set):
    from conftest import voebench
    from humans_fixtures import make_plausibility_set

    study = str(tmp_path / "study")
    args = ["humans", "serve", tiny_set, "--study", study, "--create-only"]
    r = voebench(*args, check=False)
    assert r.returncode == 2 and "needs --protocol and --participants" in r.stderr
    voebench(*args, "--protocol", "grasp", "--participants", "6", "--suite", "grasp-l2")
    links = voebench("humans", "links", study, "--base-url", "http://127.0.0.1:9/").stdout.split()
    assert len(links) == 6 and len(set(links)) == 6
    assert all(u.startswith("http://127.0.0.1:9/p/") and len(u.rsplit("/", 1)[1]) == 32 for u in links)
    voebench(*args)  # reopening needs no design options
    r = voebench(*args, "--protocol", "avoe", check=False)
    assert r.returncode == 2 and "another design: --protocol avoe (study: grasp)" in r.stderr
    other = make_plausibility_set(str(tmp_path / "other"), {"t01": 2})
    r = voebench("humans", "serve", other, "--study", study, "--create-only", check=False)
    assert r.returncode == 2 and "not the set study" in r.stderr
    r = voebench("humans", "export", str(tmp_path / "nothing"), "--out", str(tmp_path / "run"), check=False)
    assert r.returncode == 2
