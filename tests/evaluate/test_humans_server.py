"""The study server over real HTTP on loopback (`voebench humans serve` in a subprocess): what it refuses and why,
range requests, that a token reads and writes only its own trials, and that a kill -9 loses no acknowledged
answer (10 concurrent participants here; 50 in the `slow` test and bench/bench_humans_load.py)."""

from __future__ import annotations

import http.client
import json
import os

import pytest

pytest.importorskip("starlette", reason="needs the humans extra (pip install 'voebench[humans]')")
pytest.importorskip("uvicorn", reason="needs the humans extra (pip install 'voebench[humans]')")


@pytest.fixture
def served(tiny_set, tmp_path):
    from humans_fixtures import Server, plans

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = Server(
        tiny_set, study_dir, "--protocol", "grasp", "--participants", "2", "--votes", "1", "--suite", "grasp-l2"
    ).start()
    s = Study(study_dir)
    tokens = [t for _, t in s.tokens()]
    s.close()
    yield server, tokens, plans(study_dir)
    server.stop()


def _raw(server, method, path, body=b"", headers=None, chunked=False):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    if chunked:
        conn.request(method, path, body=iter([body]), headers=headers or {}, encode_chunked=True)
    else:
        conn.request(method, path, body=body or None, headers=headers or {})
    r = conn.getresponse()
    out = r.status, r.read()
    conn.close()
    return out


def _start(server, token):
    from humans_fixtures import request

    assert request(server.base, "POST", f"/api/{token}/consent", {"consent": True})[0] == 200
    assert request(server.base, "POST", f"/api/{token}/instructions", {})[0] == 200


def test_refusals_are_clear(served):
    from humans_fixtures import request

    server, (a, b), plan = served
    base = server.base

    def call(method, path, body=None, **kw):
        status, data, _ = request(base, method, path, body, **kw)
        return status, (data.get("error") if isinstance(data, dict) else data)

    assert call("GET", f"/api/{'A' * 32}/state") == (404, "unknown link: check that you copied the whole address")
    assert call("GET", "/api/short/state")[0] == 404
    assert call("GET", f"/p/{'A' * 32}")[0] == 404
    # nothing before consent and instructions
    assert call("POST", f"/api/{a}/answer", {"position": 0, "answer": "yes"})[0] == 409
    assert call("GET", f"/api/{a}/video/0")[0] == 403
    _start(server, a)
    assert call("POST", f"/api/{a}/consent", {"consent": False}) == (409, "consent was already given or declined")
    # malformed bodies
    path = f"/api/{a}/answer"
    assert call("POST", path, raw=b'{"position": 0, "answer": "yes"}', headers={"Content-Type": "text/plain"})[0] == 415
    assert call("POST", path, raw=b'{"position": 0, "answer": ') == (400, "malformed JSON")
    assert call("POST", path, raw=b"[1, 2]") == (400, "the body must be a JSON object")
    assert call("POST", path, raw=b'{"position": NaN, "answer": "yes"}') == (400, "malformed JSON")
    assert call("POST", path, raw=b"[" * 1020 + b"]" * 1020)[0] == 400  # deep nesting
    assert call("POST", path, {"position": 0, "answer": "yes", "token": b}) == (400, "unknown field(s): token")
    assert call("POST", path, {"answer": "yes"}) == (400, "missing field: position")
    assert call("POST", path, {"position": True, "answer": "yes"}) == (400, "field position has the wrong type")
    assert call("POST", path, {"position": 0, "answer": "maybe"}) == (400, 'answer must be "yes" or "no"')
    assert call("POST", path, {"position": 0, "answer": "yes", "rt_ms": -5})[0] == 400
    assert call("POST", path, {"position": 0, "answer": "yes", "media": {"played": "yes"}})[0] == 400
    big = json.dumps({"position": 0, "answer": "yes", "pad": "x" * 5000}).encode()
    assert call("POST", path, raw=big) == (413, "request body over 2048 bytes")
    status, _ = _raw(server, "POST", path, big, {"Content-Type": "application/json"}, chunked=True)
    assert status == 413  # no Content-Length: counted while reading
    # order: only the current trial, once
    assert call("POST", path, {"position": 3, "answer": "yes"}) == (409, "trial 3 is not the current trial (0)")
    assert call("POST", path, {"position": 0, "answer": "yes", "rt_ms": 900})[0] == 200
    assert call("POST", path, {"position": 0, "answer": "no"}) == (
        409,
        "trial 0 was already answered (a replayed answer)",
    )
    # videos: none ahead of the current trial; a trial without video has none
    assert call("GET", f"/api/{a}/video/4")[0] == 403  # the last trial (2 practice, 1 video, 2 checks)
    assert call("GET", f"/api/{a}/video/999")[0] == 404


def test_declining_ends_the_session(served):
    from humans_fixtures import request

    server, (_, b), _ = served
    assert request(server.base, "POST", f"/api/{b}/consent", {"consent": False})[1]["stage"] == "declined"
    status, body, _ = request(server.base, "POST", f"/api/{b}/answer", {"position": 0, "answer": "yes"})
    assert status == 409 and body == {"error": "consent and read the instructions first"}
    assert request(server.base, "POST", f"/api/{b}/instructions", {})[0] == 409
    assert request(server.base, "GET", f"/api/{b}/video/0")[0] == 403


def test_no_file_outside_the_set(served, tiny_set, tmp_path):
    server, (a, _), _ = served
    _start(server, a)
    for path in (
        "/static/../../../../etc/passwd",
        "/static/..%2f..%2f..%2fstudy.sqlite3",
        "/static/%2e%2e/%2e%2e/humans/store.py",
        f"/api/{a}/video/..%2f..%2fmanifest.jsonl",
        f"/api/{a}/video/-1",
        "/p/../static/app.js/../../store.py",
    ):
        status, body = _raw(server, "GET", path)
        assert status in (400, 403, 404), (path, status)
        assert b"root:" not in body and b"SQLite" not in body and b"import" not in body


def test_manifest_paths_cannot_escape_the_set(tmp_path):
    """A manifest whose video path leaves the set (edited by hand) makes no study: refused in one line (the
    server's own check, that a video resolves inside the set, stays as a second guard)."""
    from conftest import voebench
    from humans_fixtures import make_plausibility_set

    from voebench.contract import manifest as mf

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 2})
    (tmp_path / "secret.mp4").write_bytes(b"secret")
    entries = mf.read_manifest(os.path.join(root, mf.NAME))
    for e in entries:
        e["video"] = "../secret.mp4"
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    study_dir = str(tmp_path / "study")
    args = ["--protocol", "grasp", "--participants", "2", "--votes", "1", "--create-only"]
    r = voebench("humans", "serve", root, "--study", study_dir, *args, check=False)
    assert r.returncode == 2 and "leaves the set" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not os.path.exists(os.path.join(study_dir, "study.sqlite3"))


def test_browser_never_learns_the_condition(served):
    """The state sent to the page names no video, path, condition or truth (the file names do)."""
    from humans_fixtures import Participant, request

    server, (a, _), plan = served
    p = Participant(server.base, a, plan[0], accuracy=1.0)
    leaks = []
    while True:
        status, state, _ = request(server.base, "GET", f"/api/{a}/state")
        text = json.dumps(state)
        leaks += [w for w in ('plausible"', "implausible", "grasp-l2", ".mp4", "truth", "video_id") if w in text]
        if not p.run(stop_after=1):
            continue
        break
    assert not leaks


def test_range_requests_and_own_videos(served, tiny_set):
    """Each participant receives, in byte ranges, exactly the video of its own trial."""
    from humans_fixtures import Participant

    server, tokens, plan = served
    people = [Participant(server.base, t, plan[n], seed=n, set_dir=tiny_set) for n, t in enumerate(tokens)]
    for p in people:
        assert p.run()
    assert sum(p.videos for p in people) >= 4
    assert not [f for p in people for f in p.foreign]


def test_concurrent_participants_survive_kill9(tmp_path):
    from humans_fixtures import load_run, make_plausibility_set

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 5, "t02": 5}, videos=True)
    out = load_run(root, str(tmp_path / "study"), participants=10, per_participant=6)
    assert out["killed"] and out["acked_before_kill"] > 0
    assert out["lost"] == 0 and out["foreign"] == 0
    assert out["unanswered"] == 0 and out["finished"] == 10
    assert out["videos_checked"] > 0


@pytest.mark.slow
def test_fifty_participants_survive_kill9(tmp_path):
    from humans_fixtures import load_run, make_plausibility_set

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 20, "t02": 20}, videos=True)
    out = load_run(root, str(tmp_path / "study"), participants=50, per_participant=10)
    assert out["killed"] and out["lost"] == 0 and out["foreign"] == 0
    assert out["unanswered"] == 0 and out["finished"] == 50
