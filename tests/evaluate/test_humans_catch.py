"""Catch videos (issue 25, attention checks that test watching): `--catch-videos N` puts N trials per participant
that show a video seen before, with a red dot drawn over its middle frames or unchanged, and ask whether a red dot
appeared; the right answer is known and scored like an attention check."""

from __future__ import annotations

import os

import numpy as np
import pytest


def _frames(path: str) -> list[np.ndarray]:
    import imageio.v2 as iio

    r = iio.get_reader(path, format="FFMPEG")
    out = [np.asarray(f) for f in r]
    r.close()
    return out


def _red(frame: np.ndarray) -> float:
    """Share of the frame's pixels that are bright red."""
    f = frame.astype(int)
    return float(np.mean((f[..., 0] > 200) & (f[..., 1] < 80) & (f[..., 2] < 80)))


def test_catch_videos_in_the_plan_and_on_disk(tiny_set, tmp_path):
    from voebench.evaluate.humans import catch, study
    from voebench.evaluate.humans.design import default_design
    from voebench.evaluate.humans.store import public_trial

    study_dir = str(tmp_path / "study")
    d = default_design("avoe", 4, suites=["avoe"], catch_videos=2, familiarization=1, attention_checks=1)
    s = study.create(tiny_set, study_dir, d)
    rows = s.answers()
    s.close()
    by_person: dict[int, list[dict]] = {}
    for r in rows:
        by_person.setdefault(r["participant"], []).append(r["trial"])
    for trials in by_person.values():
        checks = [t for t in trials if t.get("check") == "catch"]
        assert sorted(t["expect"] for t in checks) == ["no", "yes"]  # one of each, alternating
        for t in checks:
            i = trials.index(t)
            assert t["phase"] == "attention" and t["response"] == "yesno" and t["question"] == catch.QUESTION
            assert t["source"] in {s["video"] for s in trials[:i] if s["phase"] != "attention"}  # seen before
            assert i > 0 and trials[0]["phase"] == "practice"  # after the familiarization
            public = public_trial(t)
            assert public["video"] is True and set(public) == {
                "position", "practice", "response", "question", "video", "keys", "size"
            }  # fmt: skip
            if t["expect"] == "yes":
                assert t["video_root"] == "study" and t["video"].startswith("catch/")
            else:
                assert "video_root" not in t and t["video"] == t["source"]
    dotted = {t["video"]: t["source"] for trials in by_person.values() for t in trials if t.get("video_root")}
    assert dotted
    for rel, source in dotted.items():
        made, orig = _frames(os.path.join(study_dir, rel)), _frames(os.path.join(tiny_set, source))
        assert len(made) == len(orig) and made[0].shape == orig[0].shape
        red = [_red(f) for f in made]
        lo, hi = (round(x * len(made)) for x in catch.SPAN)
        assert min(red[lo:hi]) > 0.1, red  # the dot: over a tenth of the frame, bright red
        assert max(red[:lo] + red[hi:]) < 0.01 and max(_red(f) for f in orig) < 0.01  # nowhere else


def test_catch_videos_served_and_scored(tiny_set, tmp_path):
    from humans_fixtures import Server, request

    from voebench.evaluate.humans.export import export, parse
    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = Server(
        tiny_set, study_dir, "--protocol", "grasp", "--participants", "1", "--votes", "1", "--suite", "grasp-l2",
        "--familiarization", "0", "--attention-checks", "0", "--twins", "--catch-videos", "2",
    ).start()  # fmt: skip
    try:
        s = Study(study_dir)
        token = s.tokens()[0][1]
        plan = [a["trial"] for a in s.answers()]
        s.close()
        assert [t.get("check") for t in plan].count("catch") == 2
        base = server.base
        request(base, "POST", f"/api/{token}/consent", {"consent": True})
        request(base, "POST", f"/api/{token}/instructions", {})
        for t in plan:
            status, body, _ = request(base, "GET", f"/api/{token}/video/{t['position']}")
            root = study_dir if t.get("video_root") == "study" else tiny_set
            with open(os.path.join(root, t["video"]), "rb") as f:
                assert status == 200 and body == f.read()
            answer = t.get("expect") or t["truth"]
            if t.get("check") == "catch" and t["expect"] == "yes":
                answer = "no"  # missed the dot
            assert (
                request(base, "POST", f"/api/{token}/answer", {"position": t["position"], "answer": answer})[0] == 200
            )
    finally:
        server.stop()
    info = export(study_dir, str(tmp_path / "run"))
    assert info["excluded"] == 1  # one catch check failed: more than --max-failed-checks 0
    assert [parse(t, "yes")[2] for t in plan if t.get("check") == "catch"] == [
        t["expect"] == "yes" for t in plan if t.get("check") == "catch"
    ]


def test_catch_videos_need_a_decodable_video(tmp_path):
    from humans_fixtures import make_plausibility_set

    from voebench.errors import UsageError
    from voebench.evaluate.humans import study
    from voebench.evaluate.humans.design import default_design

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 3}, videos=True)  # stand-in files, not mp4s
    d = default_design("grasp", 2, votes=1, catch_videos=2, familiarization=0)
    with pytest.raises(UsageError, match="cannot read this video to make a catch video"):
        study.create(root, str(tmp_path / "study"), d)
    assert not os.path.exists(os.path.join(tmp_path, "study", "study.sqlite3"))


def test_a_scripted_panel_passes_its_catch_videos(tiny_set, tmp_path):
    """Six scripted AVoE participants (humans_fixtures.Participant, as in the load test) through a study with two
    catch videos each: every catch answer is the one an attentive participant gives, nobody is excluded."""
    import json

    from humans_fixtures import Participant, Server, plans

    from voebench.evaluate.humans.export import export
    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    args = ("--protocol", "avoe", "--participants", "6", "--suite", "avoe", "--catch-videos", "2")
    with Server(tiny_set, study_dir, *args) as server:
        plan = plans(study_dir)
        s = Study(study_dir)
        tokens = s.tokens()
        s.close()
        for n, token in tokens:
            assert Participant(server.base, token, plan[n], seed=n, set_dir=tiny_set).run()
    info = export(study_dir, str(tmp_path / "run"))
    with open(tmp_path / "run" / "answers.jsonl") as f:
        catches = [
            r for r in map(json.loads, f) if r["question"] == "Attention check: did a red dot appear in this video?"
        ]
    assert len(catches) == 12 and all(r["correct"] for r in catches) and info["excluded"] == 0
