"""Issue 25: the minimum-viewing rule on the server (evaluate/humans/viewing.py). An answer sent before the trial's
video can have played through since the server first showed the trial is refused (425, the time left, nothing
stored) and accepted once that time has passed; a reload does not restart the clock; a trial never shown starts
its clock at the refused answer; catch videos and attention checks have their video's length, a trial without a
video none; the clock survives a server killed mid-trial; a study made before trials kept their video's length
gets it from the set; `--min-viewing off` turns the check off. The tiny set's videos last 1 s (8 frames, 8 fps).
"""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from voebench.errors import UsageError

VIDEO_MS = 1000  # the tiny set's videos: 8 frames at 8 fps


class Clock:
    """A settable clock for Study.clock (seconds)."""

    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _make(tiny_set, study_dir, **given):
    from voebench.evaluate.humans import study as study_mod

    given = {"votes": 1, "suites": ["grasp-l2"], "familiarization": 0, "twins": True, **given}
    return study_mod.open_or_create(tiny_set, study_dir, "grasp", 1, **given)


def _begin(s, clock):
    s.clock = clock
    token = s.tokens()[0][1]
    s.consent(token, True)
    s.instructions(token)
    return token


def _stored(study_dir) -> dict[int, object]:
    from voebench.evaluate.humans.store import Study

    s = Study(study_dir)
    out = {a["position"]: a["answer"] for a in s.answers()}
    s.close()
    return out


def test_an_answer_before_the_video_has_played_is_refused_and_not_stored(tiny_set, tmp_path):
    from voebench.evaluate.humans.store import Refused
    from voebench.evaluate.humans.viewing import TOLERANCE_MS

    study_dir = str(tmp_path / "study")
    s = _make(tiny_set, study_dir)
    clock = Clock()
    token = _begin(s, clock)
    trial = s.state(token, True)["trial"]  # shown at t
    assert trial["position"] == 0 and trial["video"]
    clock.t += 0.2
    with pytest.raises(Refused) as e:
        s.answer(token, 0, "yes", 100, None)
    assert e.value.status == 425 and e.value.retry_after_ms == VIDEO_MS - TOLERANCE_MS - 200
    assert "too early" in e.value.message
    assert _stored(study_dir)[0] is None
    # a reload shows the trial again: the clock keeps the first showing, so the wait only shrinks
    clock.t += 0.3
    assert s.state(token, True)["trial"]["position"] == 0
    with pytest.raises(Refused) as e:
        s.answer(token, 0, "yes", 100, None)
    assert e.value.retry_after_ms == VIDEO_MS - TOLERANCE_MS - 500
    clock.t += e.value.retry_after_ms / 1000 - 0.001  # a millisecond short
    with pytest.raises(Refused):
        s.answer(token, 0, "yes", 100, None)
    clock.t += 0.001
    assert s.answer(token, 0, "yes", 100, None)["saved"]
    assert _stored(study_dir)[0] == "yes"
    row = [a for a in s.answers() if a["position"] == 0][0]
    assert row["views"] == 2 and row["first_shown_at"] == 1_000_000.0
    s.close()


def test_a_trial_never_shown_starts_its_clock_at_the_refused_answer(tiny_set, tmp_path):
    """A client that answers without asking for the trial (or a showing lost to a power cut) waits the whole
    video from its first attempt; it is not locked out."""
    from voebench.evaluate.humans.store import Refused
    from voebench.evaluate.humans.viewing import TOLERANCE_MS

    s = _make(tiny_set, str(tmp_path / "study"))
    clock = Clock()
    token = _begin(s, clock)
    for _ in range(3):  # repeated attempts do not restart it
        with pytest.raises(Refused) as e:
            s.answer(token, 0, "no", None, None)
        assert e.value.retry_after_ms == VIDEO_MS - TOLERANCE_MS - round(1000 * (clock.t - 1_000_000.0))
        clock.t += 0.1
    clock.t = 1_000_000.0 + (VIDEO_MS - TOLERANCE_MS) / 1000
    assert s.answer(token, 0, "no", None, None)["saved"]
    s.close()


def test_the_clock_survives_a_server_killed_mid_trial(tiny_set, tmp_path):
    """The showing is committed before the state is sent: a server started again on the study (here: a second
    Study on the file while the first is never closed, as after kill -9) keeps the first showing's time."""
    from voebench.evaluate.humans import study as study_mod
    from voebench.evaluate.humans.store import Refused

    study_dir = str(tmp_path / "study")
    first = _make(tiny_set, study_dir)
    clock = Clock()
    token = _begin(first, clock)
    first.state(token, True)
    again = study_mod.open_for_serving(tiny_set, study_dir)
    again.clock = clock
    clock.t += 0.5
    assert again.state(token, True)["trial"]["position"] == 0  # the page reloads after the restart
    with pytest.raises(Refused):
        again.answer(token, 0, "yes", None, None)
    clock.t += 0.25
    assert again.answer(token, 0, "yes", None, None)["saved"]
    again.close()
    first.close()


def test_every_trial_with_a_video_has_its_length_and_one_without_none(tiny_set):
    """Practice, judged, repeated trials, attention checks and catch videos (the source with a dot: same length)
    all wait for their video; a trial without one (an attention check of an older study) waits for nothing."""
    from voebench.evaluate.humans import design
    from voebench.evaluate.humans.viewing import trial_ms, wait_ms
    from voebench.evaluate.tasks import load_manifest

    d = design.default_design("grasp", 2, votes=1, suites=["grasp-l2"], twins=True, catch_videos=2)
    main, held = design.eligible(load_manifest(tiny_set), d)
    plans = design.plan(d, main, held)
    phases = set()
    for trials in plans:
        for t in trials:
            assert t.get("video") and trial_ms(t, {}) == VIDEO_MS, t
            phases.add(t.get("check") or t["phase"])
    assert {"practice", "main", "attention", "catch"} <= phases
    no_video = {"position": 0, "phase": "attention", "response": "yesno", "question": "q", "expect": "yes"}
    assert trial_ms(no_video, {"x": 5000}) is None and wait_ms(None, None, 0.0) == 0


def test_a_study_made_before_trials_kept_their_length_gets_it_from_the_set(tiny_set, tmp_path):
    from voebench.evaluate.humans import study as study_mod
    from voebench.evaluate.humans.store import Refused, study_path

    study_dir = str(tmp_path / "study")
    _make(tiny_set, study_dir).close()
    con = sqlite3.connect(study_path(study_dir))
    for token, position, spec in con.execute("SELECT token, position, spec FROM trials").fetchall():
        t = json.loads(spec)
        for k in ("n_frames", "fps"):
            t["entry"].pop(k)
        con.execute("UPDATE trials SET spec=? WHERE token=? AND position=?", (json.dumps(t), token, position))
    con.commit()
    con.close()
    s = study_mod.open_for_serving(tiny_set, study_dir)
    clock = Clock()
    token = _begin(s, clock)
    s.state(token, True)
    clock.t += 0.5
    with pytest.raises(Refused) as e:
        s.answer(token, 0, "yes", None, None)
    assert e.value.retry_after_ms == 250
    s.close()


def test_min_viewing_off_accepts_at_once_and_the_option_is_part_of_the_design(tiny_set, tmp_path):
    from voebench.evaluate.humans import design

    study_dir = str(tmp_path / "study")
    s = _make(tiny_set, study_dir, min_viewing="off")
    token = _begin(s, Clock())
    assert s.answer(token, 0, "yes", None, None)["saved"]  # never shown, no time passed
    s.close()
    with pytest.raises(UsageError, match="another design: --min-viewing video"):
        _make(tiny_set, study_dir, min_viewing="video")
    with pytest.raises(UsageError, match="--min-viewing sometimes"):
        design.default_design("grasp", 1, min_viewing="sometimes")


def test_over_http_too_early_is_a_425_with_the_time_left_then_accepted(tiny_set, tmp_path):
    pytest.importorskip("starlette", reason="needs the humans extra (pip install 'voebench[humans]')")
    pytest.importorskip("uvicorn", reason="needs the humans extra (pip install 'voebench[humans]')")
    from humans_fixtures import Server, request

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    args = ["--protocol", "grasp", "--participants", "1", "--votes", "1", "--suite", "grasp-l2"]
    args += ["--familiarization", "0", "--twins", "--min-viewing", "video"]  # the fixture turns it off unless named
    with Server(tiny_set, study_dir, *args) as server:
        s = Study(study_dir)
        token = s.tokens()[0][1]
        s.close()
        api = f"/api/{token}/"
        assert request(server.base, "POST", api + "consent", {"consent": True})[0] == 200
        assert request(server.base, "POST", api + "instructions", {})[0] == 200
        t0 = time.monotonic()
        status, state, _ = request(server.base, "GET", api + "state")
        assert status == 200 and state["trial"]["position"] == 0
        body = {"position": 0, "answer": "yes", "rt_ms": 5, "media": {"played": True}}
        status, data, headers = request(server.base, "POST", api + "answer", body)
        assert status == 425, data
        assert 0 < data["retry_after_ms"] <= 750 and headers.get("retry-after") == "1"
        assert data["error"].startswith("too early")
        assert _stored(study_dir)[0] is None
        time.sleep(max(0.0, 0.75 - (time.monotonic() - t0)) + 0.05)
        status, ack, _ = request(server.base, "POST", api + "answer", body)
        assert status == 200 and ack["saved"], ack
        assert _stored(study_dir)[0] == "yes"
