"""Issue 25, defects 8 and 9 and keyboard answers, at the study and HTTP level (the browser side is in
test_humans_browser.py): attention checks show a video the participant has already seen (8); the server counts
each showing of a trial, keeps the first showing's time across a reload and marks the reloaded trial's response
times invalid (9); a key-given answer must be the key of that answer; an older study file is migrated, a newer one
refused."""

from __future__ import annotations

import json
import os
import sqlite3
import time

import pytest

from voebench.errors import UsageError


def _plan(root, protocol, participants, **given):
    from voebench.evaluate.humans import design
    from voebench.evaluate.tasks import load_manifest

    d = design.default_design(protocol, participants, **given)
    main, held = design.eligible(load_manifest(root), d)
    return design.plan(d, main, held)


@pytest.mark.parametrize(
    ("protocol", "given", "pool"),
    [
        ("grasp", {"votes": 1, "per_participant": 4}, "practice"),  # practice videos first (never judged)
        ("grasp", {"votes": 1, "per_participant": 4, "familiarization": 0}, "main"),  # else an earlier judged one
        ("avoe", {"familiarization": 0, "attention_checks": 3}, "main"),
    ],
)
def test_attention_checks_show_a_video_already_seen(tmp_path, protocol, given, pool):
    """Defect 8: every attention check shows a video (it looked like no other trial and tested reading only), one
    the participant saw earlier in the session, so it adds no judgement and no new twin."""
    from humans_fixtures import make_plausibility_set

    from voebench.evaluate.humans.store import public_trial

    root = make_plausibility_set(
        str(tmp_path / "set"), {"t01": 6, "t02": 6}, suite="avoe" if protocol == "avoe" else "grasp-l2"
    )
    plans = _plan(root, protocol, 12, **given)
    checks = 0
    for trials in plans:
        for i, t in enumerate(trials):
            if t["phase"] != "attention":
                continue
            checks += 1
            earlier = [s for s in trials[:i] if s["phase"] == pool]
            assert t.get("video") and t["video"] in {s["video"] for s in earlier}, (i, t)
            public = public_trial(t)
            assert public["video"] is True and public["size"] == [64, 48]
            assert "video_id" not in public and "expect" not in public
    assert checks == 12 * (given.get("attention_checks", 2))


@pytest.fixture
def served(tiny_set, tmp_path):
    from humans_fixtures import Server

    study_dir = str(tmp_path / "study")
    server = Server(
        tiny_set, study_dir, "--protocol", "grasp", "--participants", "2", "--votes", "1", "--suite", "grasp-l2",
        "--familiarization", "0", "--twins",
    ).start()  # fmt: skip
    yield server, study_dir
    server.stop()


def _tokens(study_dir):
    from voebench.evaluate.humans.store import Study

    s = Study(study_dir)
    out = [t for _, t in s.tokens()]
    s.close()
    return out


def _rows(study_dir):
    from voebench.evaluate.humans.store import Study

    s = Study(study_dir)
    rows = s.answers()
    s.close()
    return rows


def test_showings_counted_and_a_reload_marks_the_rt(served, tmp_path):
    """Defect 9: the page's clock restarts on a reload, so the server counts showings: a trial shown once has
    valid RTs; one shown twice is exported with rt_valid false, reloads 1, and server_ms from its first showing
    (the original time base). POST instructions answers with the state but is no showing; a GET is."""
    from humans_fixtures import request

    from voebench.evaluate.humans.export import export

    server, study_dir = served
    a, _ = _tokens(study_dir)

    def api(method, what, body=None):
        status, data, _ = request(server.base, method, f"/api/{a}/{what}", body)
        assert status == 200, data
        return data

    api("POST", "consent", {"consent": True})
    assert api("POST", "instructions", {})["trial"]["position"] == 0  # not a showing
    t0 = api("GET", "state")["trial"]
    assert t0["keys"] == {"yes": "f", "no": "j"} and t0["size"] == [64, 48]
    # times inside what the server saw (a few ms here: the page measures within the server's span)
    api("POST", "answer", {"position": 0, "answer": "yes", "rt_ms": 1, "rt_start_ms": 2, "key": "f"})
    assert api("GET", "state")["trial"]["position"] == 1
    between = time.time()
    assert api("GET", "state")["trial"]["position"] == 1  # a reload: shown again
    api("POST", "answer", {"position": 1, "answer": "no", "rt_ms": 1, "rt_start_ms": 2})
    answered = time.time()
    # times the page cannot have measured: longer than the server's span, or from the end longer than from the start
    api("GET", "state")
    api("POST", "answer", {"position": 2, "answer": "no", "rt_ms": 1000, "rt_start_ms": 60_000})
    api("GET", "state")
    api("POST", "answer", {"position": 3, "answer": "no", "rt_ms": 3, "rt_start_ms": 1})
    rows = {r["position"]: r for r in _rows(study_dir) if r["participant"] == 0}
    assert (rows[0]["views"], rows[1]["views"], rows[2]["views"]) == (1, 2, 1)
    assert (rows[0]["response_key"], rows[1]["response_key"]) == ("f", None)
    assert rows[1]["first_shown_at"] <= between  # the first showing's time, not the reload's
    out = str(tmp_path / "run")
    export(study_dir, out)
    with open(os.path.join(out, "answers.jsonl")) as f:
        got = {r["position"]: r for r in map(json.loads, f) if r["participant"] == "P001"}
    assert {k: got[0][k] for k in ("rt_ms", "rt_start_ms", "rt_valid", "rt_invalid", "reloads", "response_key")} == {
        "rt_ms": 1, "rt_start_ms": 2, "rt_valid": True, "rt_invalid": None, "reloads": 0, "response_key": "f"
    }  # fmt: skip
    assert (got[1]["rt_valid"], got[1]["rt_invalid"], got[1]["reloads"]) == (False, "reloaded", 1)
    assert (got[2]["rt_valid"], got[2]["rt_invalid"]) == (False, "longer than the server saw")
    assert (got[3]["rt_valid"], got[3]["rt_invalid"]) == (False, "from the end longer than from the start")
    assert 0 <= got[1]["server_ms"] <= (answered - rows[1]["first_shown_at"]) * 1000 + 1
    with open(os.path.join(out, "answers.csv")) as f:
        header = f.readline().strip().split(",")
    assert {"rt_start_ms", "rt_valid", "rt_invalid", "reloads", "server_ms", "response_key"} <= set(header)


def test_keys_must_match_the_answer_and_are_counterbalanced(served):
    from humans_fixtures import request

    server, study_dir = served
    a, b = _tokens(study_dir)
    for tok in (a, b):
        request(server.base, "POST", f"/api/{tok}/consent", {"consent": True})
        request(server.base, "POST", f"/api/{tok}/instructions", {})
    assert request(server.base, "GET", f"/api/{b}/state")[1]["trial"]["keys"] == {"yes": "j", "no": "f"}

    def post(tok, body):
        status, data, _ = request(server.base, "POST", f"/api/{tok}/answer", body)
        return status, data.get("error") if isinstance(data, dict) else data

    bad = [
        ({"position": 0, "answer": "yes", "key": "j"}, "key 'j' does not give this answer (expected 'f')"),
        ({"position": 0, "answer": "yes", "key": "Enter"}, "key 'Enter' does not give this answer (expected 'f')"),
        ({"position": 0, "answer": "yes", "key": "f1"}, "key must be a key name of 1..16 letters"),
        ({"position": 0, "answer": "yes", "key": ""}, "key must be a key name of 1..16 letters"),
        ({"position": 0, "answer": "yes", "key": 70}, "field key has the wrong type"),
        ({"position": 0, "answer": "yes", "rt_start_ms": -1}, "rt_start_ms out of range"),
        ({"position": 0, "answer": "yes", "rt_start_ms": 1.5}, "field rt_start_ms has the wrong type"),
        ({"position": 0, "answer": "yes", "rt_start_ms": 24 * 3600 * 1000 + 1}, "rt_start_ms out of range"),
        *(
            ({"position": 0, "answer": "yes", "media": {"video_px": px}}, why)
            for px, why in (
                ([640], "media.video_px must be [width, height], integers 0..20000"),
                ([640, "360"], "media.video_px must be [width, height], integers 0..20000"),
                ([640, -1], "media.video_px must be [width, height], integers 0..20000"),
                ([True, 360], "media.video_px must be [width, height], integers 0..20000"),
                (
                    {"w": 1},
                    "field media must be {played: bool, error: bool, replays: int, focus_lost: int, "
                    "fullscreen: bool, video_px: [int, int]}",
                ),
            )
        ),
        ({"position": 0, "answer": "yes", "media": {"focus_lost": 1001}}, "media.focus_lost must lie in 0..1000"),
    ]
    for body, why in bad:
        assert post(a, body) == (400, why), body
    assert all(r["answer"] is None for r in _rows(study_dir))  # nothing stored
    assert post(b, {"position": 0, "answer": "yes", "key": "j"})[0] == 200  # participant 2: J is yes
    assert post(a, {"position": 0, "answer": "no", "key": "j"})[0] == 200


def test_a_showing_survives_kill_9(served):
    """The showing is written with synchronous=NORMAL (not fsynced) but before the state is returned: a kill -9
    of the server keeps it (only a power cut could lose it)."""
    from humans_fixtures import request

    server, study_dir = served
    a, _ = _tokens(study_dir)
    request(server.base, "POST", f"/api/{a}/consent", {"consent": True})
    request(server.base, "POST", f"/api/{a}/instructions", {})
    assert request(server.base, "GET", f"/api/{a}/state")[0] == 200
    server.kill9()
    first = [r for r in _rows(study_dir) if r["participant"] == 0 and r["position"] == 0][0]
    assert first["views"] == 1 and first["first_shown_at"] is not None


_V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE participants (
    token TEXT PRIMARY KEY, number INTEGER UNIQUE NOT NULL, seed INTEGER NOT NULL,
    consent INTEGER, consent_at REAL, instructions_at REAL, finished_at REAL);
CREATE TABLE trials (
    token TEXT NOT NULL REFERENCES participants(token), position INTEGER NOT NULL, spec TEXT NOT NULL,
    answer TEXT, rt_ms INTEGER, media TEXT, answered_at REAL,
    PRIMARY KEY (token, position));
"""


def _v1_study(study_dir: str) -> str:
    """A study file as the first schema wrote it (no schema row, no timing columns), one answer given."""
    os.makedirs(study_dir)
    path = os.path.join(study_dir, "study.sqlite3")
    con = sqlite3.connect(path)
    con.executescript(_V1_SCHEMA)
    meta = {"design": {"protocol": "grasp", "response": "yesno", "seed": 0}, "set": {"root": "x"}}
    con.execute("INSERT INTO meta VALUES ('study', ?)", (json.dumps(meta),))
    con.execute("INSERT INTO participants VALUES ('T' || hex(randomblob(4)), 0, 7, 1, 1.0, 2.0, NULL)")
    token = con.execute("SELECT token FROM participants").fetchone()[0]
    for pos in range(2):
        spec = {"position": pos, "phase": "attention", "response": "yesno", "question": "q", "expect": "yes"}
        con.execute("INSERT INTO trials (token, position, spec) VALUES (?, ?, ?)", (token, pos, json.dumps(spec)))
    con.execute("UPDATE trials SET answer='\"yes\"', rt_ms=5000, answered_at=3.0 WHERE position=0")
    con.commit()
    con.close()
    return token


def test_an_older_study_file_is_migrated_and_a_newer_refused(tmp_path):
    from voebench.evaluate.humans.store import SCHEMA_VERSION, Study

    study_dir = str(tmp_path / "old")
    token = _v1_study(study_dir)
    s = Study(study_dir)
    try:
        rows = s.answers()
        assert rows[0]["answer"] == "yes" and rows[0]["rt_ms"] == 5000  # kept
        assert rows[0]["views"] is None and rows[0]["rt_start_ms"] is None  # not measured then
        assert rows[0]["quiz_attempts"] is None  # the participants' quiz columns, too
        assert rows[0]["outcome"] is None and rows[0]["platform_pid"] is None  # and the platform's (schema 4)
        assert s.refusals() == [] and len(s.monitor_token()) == 32  # its table made, a monitor token stored
        assert s.state(token, shown=True)["trial"]["keys"] == {"yes": "f", "no": "j"}
        s.answer(token, 1, "yes", 200, None, 900, "f")
        assert s.answers()[1]["views"] == 1 and s.answers()[1]["response_key"] == "f"
        assert s.con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == str(SCHEMA_VERSION)
    finally:
        s.close()
    Study(study_dir).close()  # opened again: nothing to migrate
    con = sqlite3.connect(os.path.join(study_dir, "study.sqlite3"))
    con.execute("UPDATE meta SET value='99' WHERE key='schema'")
    con.commit()
    con.close()
    with pytest.raises(UsageError, match=rf"study schema 99 is newer than this voebench reads \({SCHEMA_VERSION}\)"):
        Study(study_dir)
