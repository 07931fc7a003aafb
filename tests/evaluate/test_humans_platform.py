"""The recruiting-platform flow and the researcher's monitor over real HTTP (`voebench humans serve` in a
subprocess, evaluate/humans/platform.py, monitor.py): the study URL assigns slots and refuses a second session,
every outcome ends with its own code, ids are validated and escaped, an idle participant times out, the monitor
has its own token and shows aggregates only, and a bad platform.json is refused in one line."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("starlette", reason="needs the humans extra (pip install 'voebench[humans]')")
pytest.importorskip("uvicorn", reason="needs the humans extra (pip install 'voebench[humans]')")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUIZ = [{"question": "What do you judge?", "choices": ["colours", "whether it could happen"], "answer": 1}]


@pytest.fixture(scope="module")
def stand_in_set(tmp_path_factory):
    from humans_fixtures import make_plausibility_set

    return make_plausibility_set(str(tmp_path_factory.mktemp("pset")), {"t01": 6, "t02": 6}, videos=True)


def _served(set_dir, study_dir, participants=6, quiz=True, **platform):
    from humans_fixtures import Server, write_platform

    server = Server(
        set_dir,
        study_dir,
        "--protocol",
        "grasp",
        "--participants",
        str(participants),
        "--votes",
        "1",
        "--per-participant",
        "4",
        "--familiarization",
        "1",
        "--attention-checks",
        "1",
    )
    write_platform(study_dir, server.base, study_id="STUDY0001", **platform)
    if quiz:
        os.makedirs(os.path.join(study_dir, "texts"))
        with open(os.path.join(study_dir, "texts", "quiz.json"), "w") as f:
            json.dump(QUIZ, f)
    return server.start()


def _person(server, set_dir, pid, session="S1", **kw):
    from humans_fixtures import PlatformParticipant, stand_in_videos

    return PlatformParticipant(server.base, pid, session, stand_in_videos(set_dir), quiz=[1], **kw)


def test_the_study_url_assigns_slots_refuses_a_second_session_and_ends_with_each_outcomes_code(stand_in_set, tmp_path):
    from humans_fixtures import request

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = _served(stand_in_set, study_dir, participants=6, max_failed_checks=0)
    try:
        done = _person(server, stand_in_set, "PID000000001")
        assert done.start()[0] == 303
        first = done.token
        assert done.start() == (303, f"/p/{first}")  # the same session again: its own slot (a reload)
        status, body = _person(server, stand_in_set, "PID000000001", session="S2").start()
        assert status == 409 and "already taken part" in body  # another session of that id: one clear page
        final = done.run()
        assert final["stage"] == "done" and final["completion"] == {
            "outcome": "completed",
            "code": "DONE1234",
            "url": f"{server.base}/?cc=DONE1234",
        }
        cases = {
            "decline": ("returned", "declined consent", "RETN9012"),
            "withdraw": ("returned", "withdrew", "RETN9012"),
            "fail_quiz": ("screened_out", "failed the quiz 3 times", "SCRN5678"),
            "fail_checks": ("screened_out", "failed 1 attention check", "SCRN5678"),
        }
        people = {}
        for i, behaviour in enumerate(cases):
            p = people[behaviour] = _person(server, stand_in_set, f"PID00000001{i}", behaviour=behaviour)
            assert p.start()[0] == 303 and p.token != first
            p.run()
        for behaviour, (outcome, reason, code) in cases.items():
            final = people[behaviour].final
            assert final["stage"] == "ended" and final["outcome"] == outcome and final["reason"] == reason
            assert final["completion"]["code"] == code and final["completion"]["url"].endswith(code)
        # an ended session takes no more answers and serves no video
        gone = people["withdraw"]
        status, body, _ = gone.api("POST", "answer", {"position": 3, "answer": "yes"})
        assert status == 409 and body == {"error": "this session has ended"}
        assert gone.api("GET", "video/0")[0] == 403
        # 5 slots taken, 1 left: the next id gets it, the one after is told the study is full
        assert _person(server, stand_in_set, "PID000000099").start()[0] == 303
        status, body = _person(server, stand_in_set, "PID000000100").start()
        assert status == 503 and "full" in body
        # ids are validated before the store is asked, and shown escaped
        for query, why in (
            ("PROLIFIC_PID=<script>x</script>&STUDY_ID=STUDY0001&SESSION_ID=S", "participant id"),
            ("PROLIFIC_PID=" + "a" * 65 + "&STUDY_ID=STUDY0001&SESSION_ID=S", "participant id"),
            ("PROLIFIC_PID=abc&STUDY_ID=STUDY0001", "session id"),
            ("PROLIFIC_PID=abc&STUDY_ID=OTHER&SESSION_ID=S", "another study"),
            ("PROLIFIC_PID=abc&PROLIFIC_PID=abd&STUDY_ID=STUDY0001&SESSION_ID=S", "repeats a parameter"),
        ):
            status, body, _ = request(server.base, "GET", "/start?" + query)
            assert status == 400 and why in body.decode(), (query, body)
            assert b"<script>" not in body
    finally:
        server.stop()
    s = Study(study_dir)
    try:
        refusals = [(r["platform_pid"], r["platform_session"], r["reason"]) for r in s.refusals()]
        assert refusals == [("PID000000001", "S2", "second session"), ("PID000000100", "S1", "study full")]
        assert len(s.tokens()) == 6 and len(s.lab_tokens()) == 0  # every slot went to the platform
    finally:
        s.close()
    # the export: outcomes, reasons and platform ids per participant; ended sessions excluded from scoring
    out = str(tmp_path / "run")
    r = subprocess.run(
        [sys.executable, "-m", "voebench", "humans", "export", study_dir, "--out", out, "--no-report"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    with open(os.path.join(out, "participants.csv"), newline="") as f:
        rows = {row["platform_pid"]: row for row in csv.DictReader(f)}
    assert rows["PID000000001"]["outcome"] == "completed" and rows["PID000000001"]["excluded"] == ""
    assert rows["PID000000013"]["outcome"] == "screened_out"
    assert rows["PID000000011"]["excluded"] == "returned: withdrew"
    with open(os.path.join(out, "samples.jsonl")) as f:
        scored = {json.loads(line)["participant"] for line in f}
    excluded = {row["participant"] for row in rows.values() if row["excluded"]}
    assert scored and not scored & excluded


def test_an_idle_participant_times_out_as_returned(stand_in_set, tmp_path):
    server = _served(stand_in_set, str(tmp_path / "study"), participants=6, quiz=False, idle_timeout_s=1)
    try:
        p = _person(server, stand_in_set, "PIDIDLE00001")
        assert p.start()[0] == 303
        assert p.api("POST", "consent", {"consent": True})[0] == 200
        assert p.api("GET", "state")[1]["rules"] == {"min_window": [800, 600], "fullscreen": True, "idle_timeout_s": 1}
        time.sleep(1.3)
        state = p.api("GET", "state")[1]
        assert state["stage"] == "ended" and state["reason"] == "timeout"
        assert state["completion"]["code"] == "RETN9012"
        assert p.api("POST", "instructions", {})[0] == 409
    finally:
        server.stop()


def test_the_monitor_has_its_own_token_and_shows_aggregates_only(stand_in_set, tmp_path):
    from humans_fixtures import request

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = _served(stand_in_set, study_dir, participants=6)
    try:
        log = server.read_log()
        s = Study(study_dir)
        mtoken = s.monitor_token()
        s.close()
        assert f"/monitor/{mtoken}" in log and "/start?PROLIFIC_PID={{%PROLIFIC_PID%}}" in log
        a = _person(server, stand_in_set, "PIDMONITOR01")
        b = _person(server, stand_in_set, "PIDMONITOR02", behaviour="withdraw")
        for p in (a, b):
            p.start()
            p.run()
        _person(server, stand_in_set, "PIDMONITOR01", session="again").start()
        before = os.path.getsize(os.path.join(study_dir, "study.sqlite3-wal"))
        status, snap, _ = request(server.base, "GET", f"/monitor/{mtoken}/data")
        assert status == 200
        counts = snap["participants"]
        assert (counts["started"], counts["finished"], counts["returned"], counts["in_progress"]) == (2, 1, 1, 0)
        assert counts["second_sessions_refused"] == 1 and counts["returned_by_reason"] == {"withdrew": 1}
        assert snap["time_per_trial"]["all"]["n"] == len(a.acked) + len(b.acked)
        s = Study(study_dir)
        main = sum(1 for r in s.answers() if r["answer"] is not None and r["trial"]["phase"] == "main")
        s.close()
        assert sum(c["answered"] for c in snap["cells"].values()) == main >= 4
        assert "PIDMONITOR" not in json.dumps(snap)  # no platform ids
        assert "Humans" in snap["report"] or "humans" in snap["report"]  # the current report, made on the fly
        status, page, _ = request(server.base, "GET", f"/monitor/{mtoken}")
        assert status == 200 and b"Study monitor" in page
        assert os.path.getsize(os.path.join(study_dir, "study.sqlite3-wal")) == before  # read-only
        # the tokens do not cross: a participant's opens no monitor, the monitor's no participant page
        assert request(server.base, "GET", f"/monitor/{a.token}/data")[0] == 404
        assert request(server.base, "GET", f"/api/{mtoken}/state")[0] == 404
        assert request(server.base, "GET", f"/p/{mtoken}")[0] == 404
    finally:
        server.stop()


@pytest.mark.parametrize(
    "config, problem",
    [
        ({}, "completion must be an object"),
        ({"completion": {"completed": {}}}, "completion must be an object"),
        ("codes", "must be a JSON object"),
        ({"extra": 1}, "unknown key(s): extra"),
    ],
)
def test_a_bad_platform_json_is_refused_in_one_line(tiny_set, tmp_path, config, problem):
    study_dir = tmp_path / "study"
    study_dir.mkdir()
    (study_dir / "platform.json").write_text(json.dumps(config))
    r = subprocess.run(
        [sys.executable, "-m", "voebench", "humans", "serve", tiny_set, "--study", str(study_dir)]
        + ["--protocol", "grasp", "--participants", "6", "--create-only"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and problem in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr and sorted(os.listdir(study_dir)) == ["platform.json"]  # no study made


def test_platform_values_are_checked():
    from voebench.errors import UsageError
    from voebench.evaluate.humans import platform

    good = {
        o: {"code": "ABC123", "url": "https://app.prolific.com/submissions/complete?cc=ABC123"}
        for o in platform.OUTCOMES
    }
    assert platform.check("p", {"completion": good})["params"] == platform.DEFAULT_PARAMS
    for url in ("javascript:alert(1)", "http://example.com/x", 'https://x/"onload', "data:text/html,x", "ftp://x/"):
        with pytest.raises(UsageError, match="url must be an https URL"):
            platform.check("p", {"completion": {**good, "returned": {"code": "R1", "url": url}}})
    for bad, match in (
        ({"code": "a b", "url": "https://x.org/"}, "code must be"),
        ({"code": "", "url": "https://x.org/"}, "code must be"),
    ):
        with pytest.raises(UsageError, match=match):
            platform.check("p", {"completion": {**good, "completed": bad}})
    with pytest.raises(UsageError, match="idle_timeout_s must be an integer"):
        platform.check("p", {"completion": good, "idle_timeout_s": True})
    with pytest.raises(UsageError, match="three different"):
        platform.check("p", {"completion": good, "params": {"study": "PROLIFIC_PID"}})
    config = platform.check("p", {"completion": good, "params": {"participant": "workerId"}})
    assert platform.ids(config, {"workerId": "W1", "STUDY_ID": "S", "SESSION_ID": "x-1"}) == ("W1", "S", "x-1")


def test_slots_survive_a_kill_9_during_concurrent_arrivals(stand_in_set, tmp_path):
    """30 ids arrive at once at the study URL and the server is killed with SIGKILL after 10 were sent on: after a
    restart every id that was sent to a slot comes back to that same slot, the others get fresh ones, and no slot
    is held by two ids."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = _served(stand_in_set, study_dir, participants=40, quiz=False)
    people = [_person(server, stand_in_set, f"PIDKILL{i:05d}") for i in range(30)]
    sent = threading.Semaphore(0)

    def arrive(p):
        try:
            status, _ = p.start()
        except OSError:  # the server died under this request
            return None
        if status == 303:
            sent.release()
        return p.token

    try:
        with ThreadPoolExecutor(30) as pool:
            futures = [pool.submit(arrive, p) for p in people]
            for _ in range(10):
                assert sent.acquire(timeout=30)
            server.kill9()
            first = {p.pid: f.result() for p, f in zip(people, futures)}
        server.start()
        for p in people:
            p.token = None
            assert p.start()[0] == 303
            if first[p.pid] is not None:
                assert p.token == first[p.pid]  # an id sent to a slot before the kill keeps it
    finally:
        server.stop()
    assert sum(t is not None for t in first.values()) >= 10
    s = Study(study_dir)
    held = [r[0] for r in s.con.execute("SELECT platform_pid FROM participants WHERE platform_pid IS NOT NULL")]
    s.close()
    assert sorted(held) == sorted(p.pid for p in people)  # one slot per id, none given twice
    assert len({p.token for p in people}) == 30
