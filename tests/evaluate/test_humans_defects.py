"""Issue 25's defects of the human-study app, each pinned: AVoE familiarization shows expected videos only (1),
AVoE judges the test split only (2), GRASP practice is never judged and nobody judges both twins of a pair unless
the design asks (3), `serve` refuses a set that is not the one the study was made from (4), every request field is
checked by type and range (5), a slider brought back to the middle is a valid answer (6)."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter, defaultdict

import pytest

from voebench.errors import UsageError

SPLITS = ("train", "validation", "test")


def _avoe_set(root: str, pairs: int = 12) -> str:
    """A `--both-conditions` AVoE set: every pair (expected + surprising) in the train, validation or test split."""
    from humans_fixtures import make_plausibility_set

    from voebench.contract import manifest as mf

    make_plausibility_set(root, {"A1": pairs}, suite="avoe", videos=True)
    entries = mf.read_manifest(os.path.join(root, mf.NAME))
    for e in entries:
        e["split"] = SPLITS[int(e["index"]) % 3]
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    return root


def _plan(root, protocol, participants, **given):
    from voebench.evaluate.humans import design
    from voebench.evaluate.tasks import load_manifest

    d = design.default_design(protocol, participants, **given)
    main, held = design.eligible(load_manifest(root), d)
    return design.plan(d, main, held)


def _split(video_id: str) -> str:
    return SPLITS[int(video_id.rsplit("/", 1)[1][:5]) % 3]


def test_avoe_familiarization_is_expected_and_judged_is_test(tmp_path):
    root = _avoe_set(str(tmp_path / "set"))
    plans = _plan(root, "avoe", 20, familiarization=4)
    fam = [t for p in plans for t in p if t["phase"] == "practice"]
    judged = [t for p in plans for t in p if t["phase"] in ("main", "repeat")]
    assert len(fam) == 80
    assert [t["video_id"] for t in fam if t["truth"] != "yes"] == []  # defect 1: no surprising video
    assert all(_split(t["video_id"]) == "train" for t in fam)  # training videos (never judged) first
    assert Counter(_split(t["video_id"]) for t in judged) == {"test": len(judged)}  # defect 2: test split only
    # without training videos in the selection, familiarization falls back to validation videos, still expected
    from voebench.contract import manifest as mf

    entries = [e for e in mf.read_manifest(os.path.join(root, mf.NAME)) if e["split"] != "train"]
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    fam = [t for p in _plan(root, "avoe", 5, familiarization=4) for t in p if t["phase"] == "practice"]
    assert fam and all(t["truth"] == "yes" and _split(t["video_id"]) == "validation" for t in fam)


def test_avoe_without_a_test_split_is_refused(tmp_path):
    from voebench.contract import manifest as mf

    root = _avoe_set(str(tmp_path / "set"))
    entries = [e for e in mf.read_manifest(os.path.join(root, mf.NAME)) if e["split"] != "test"]
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    with pytest.raises(UsageError, match="no AVoE test-split video"):
        _plan(root, "avoe", 3)


def _pair(video_id: str) -> str:
    return video_id.rsplit("-", 1)[0]


def test_grasp_practice_never_judged_and_no_twins(tmp_path):
    from humans_fixtures import make_plausibility_set

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 10, "t02": 10})
    plans = _plan(root, "grasp", 50)
    practice_pairs = {_pair(t["video_id"]) for p in plans for t in p if t["phase"] == "practice"}
    judged = Counter(t["video_id"] for p in plans for t in p if t["phase"] == "main")
    assert practice_pairs and not practice_pairs & {_pair(v) for v in judged}  # practice is nobody's judged pair
    both = [
        n
        for n, p in enumerate(plans)
        if len({_pair(t["video_id"]) for t in p if t["phase"] == "main"}) < sum(t["phase"] == "main" for t in p)
    ]
    assert both == []  # nobody judges both videos of a pair
    assert len(judged) == 38 and min(judged.values()) >= 3  # the design's 3 votes per judged video hold
    assert max(judged.values()) - min(judged.values()) <= 1
    # a panel too small to avoid twins is refused, with the way out
    with pytest.raises(UsageError, match="both videos of a pair.*--twins"):
        _plan(root, "grasp", 5)


def test_twins_when_asked_are_counterbalanced_and_recorded(tmp_path):
    from humans_fixtures import make_plausibility_set

    root = make_plausibility_set(str(tmp_path / "set"), {"t01": 6})
    plans = _plan(root, "grasp", 8, twins=True, per_participant=10)
    first: dict[str, Counter] = defaultdict(Counter)
    for p in plans:
        main = [t for p_ in [p] for t in p_ if t["phase"] == "main"]
        by_pair = defaultdict(list)
        for t in main:
            by_pair[_pair(t["video_id"])].append(t)
        for ts in by_pair.values():
            if len(ts) == 2:
                assert sorted(t["twin_order"] for t in ts) == [1, 2]
                shown_first = min(ts, key=lambda t: t["position"])
                assert shown_first["twin_order"] == 1
                first[_pair(ts[0]["video_id"])][shown_first["entry"]["condition"]] += 1
            else:
                assert "twin_order" not in ts[0]
    assert first
    for counts in first.values():  # each pair's plausible-first and implausible-first orders within one
        assert abs(counts["plausible"] - counts["implausible"]) <= 1, counts


def test_serve_refuses_a_set_that_differs(tmp_path, tiny_set):
    from conftest import voebench

    from voebench.contract import dataset

    set_dir = str(tmp_path / "set")
    shutil.copytree(tiny_set, set_dir)
    ds_path = os.path.join(set_dir, "dataset.json")
    ds = json.load(open(ds_path))
    identity = {k: 0 for k in dataset.IDENTITY_KEYS} | {"suite": "avoe", "code": {"core": "c", "tests": "t"}}
    ds["suites"] = {"avoe": {"identity": identity, "tests": ["A1"], "trials_per_test": 2}}
    dataset.write_dataset(ds_path, ds)
    study = str(tmp_path / "study")
    args = ["humans", "serve", set_dir, "--study", study, "--create-only"]
    voebench(*args, "--protocol", "avoe", "--participants", "2", "--suite", "avoe")
    meta = json.loads(_meta(study))
    files = sorted(meta["set"]["check"]["files"])
    assert files and meta["set"]["check"]["fingerprint"]
    voebench(*args)  # the same set: served
    video = os.path.join(set_dir, files[0])
    original = open(video, "rb").read()

    def refused(why: str):
        r = voebench(*args, check=False)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert why in r.stderr, r.stderr

    os.remove(video)  # deleted
    refused(f"{files[0]} is missing")
    with open(video, "wb") as f:  # changed: same size, one byte flipped
        f.write(original[:-1] + bytes([original[-1] ^ 1]))
    refused(f"{files[0]} has changed")
    with open(video, "wb") as f:
        f.write(original)
    voebench(*args)
    ds["suites"]["avoe"]["identity"]["base_seed"] = 1  # re-rendered with another seed: same ids and paths
    dataset.write_dataset(ds_path, ds)
    refused("dataset.json names another render")
    ds["suites"]["avoe"]["identity"]["base_seed"] = 0
    dataset.write_dataset(ds_path, ds)
    voebench(*args)


def _meta(study_dir: str) -> str:
    import sqlite3

    con = sqlite3.connect(os.path.join(study_dir, "study.sqlite3"))
    try:
        return con.execute("SELECT value FROM meta WHERE key='study'").fetchone()[0]
    finally:
        con.close()


@pytest.fixture
def avoe_server(tiny_set, tmp_path):
    pytest.importorskip("starlette", reason="needs the humans extra (pip install 'voebench[humans]')")
    from humans_fixtures import Server

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = Server(
        tiny_set,
        study_dir,
        "--protocol",
        "avoe",
        "--participants",
        "1",
        "--suite",
        "avoe",
        "--familiarization",
        "0",
        "--attention-checks",
        "0",
        "--repeat-fraction",
        "0",
    ).start()
    s = Study(study_dir)
    token = s.tokens()[0][1]
    s.close()
    yield server, study_dir, token
    server.stop()


def _answers(study_dir: str) -> list[dict]:
    from voebench.evaluate.humans.store import Study

    s = Study(study_dir)
    try:
        return s.answers()
    finally:
        s.close()


def test_every_request_field_is_checked(avoe_server):
    from humans_fixtures import request

    server, study_dir, token = avoe_server
    base = f"/api/{token}"
    assert request(server.base, "POST", f"{base}/consent", {"consent": True})[0] == 200
    assert request(server.base, "POST", f"{base}/instructions", {})[0] == 200

    def refused(method, path, body=None):
        status, data, _ = request(server.base, method, path, body)
        assert status == 400 and isinstance(data, dict) and set(data) == {"error"}, (path, body, status, data)
        assert "\n" not in data["error"] and "Traceback" not in data["error"]

    for position in ("9223372036854775808", "99999999999999999999999", "1000001", "-1", "1e3", "0x1"):
        refused("GET", f"{base}/video/{position}")
    ok = {"position": 0, "answer": 70, "rt_ms": 100}
    for bad in (
        {"media": {"replays": True}},
        {"media": {"replays": 1.0}},
        {"media": {"replays": -1}},
        {"media": {"replays": 1001}},
        {"media": {"played": 1}},
        {"media": {"error": "no"}},
        {"media": {"other": 1}},
        {"position": 9223372036854775808},
        {"position": -1},
        {"position": 1.0},
        {"rt_ms": -5},
        {"rt_ms": True},
        {"answer": 101},
        {"answer": -1},
        {"answer": True},
        {"answer": 50.5},
        {"answer": "yes"},
    ):
        refused("POST", f"{base}/answer", {**ok, **bad})
    assert [a["answer"] for a in _answers(study_dir)] == [None] * len(_answers(study_dir))  # nothing stored
    status, body, _ = request(server.base, "GET", f"{base}/video/0")
    assert status == 200 and body
    ack = request(server.base, "POST", f"{base}/answer", {**ok, "media": {"played": True, "replays": 2}})
    assert ack[0] == 200
    stored = _answers(study_dir)[0]
    assert stored["answer"] == 70 and stored["media"] == {"played": True, "replays": 2}


def test_a_slider_brought_back_to_the_middle_is_valid(avoe_server, tmp_path):
    from humans_fixtures import request

    from voebench.evaluate.humans.export import export

    server, study_dir, token = avoe_server
    base = f"/api/{token}"
    request(server.base, "POST", f"{base}/consent", {"consent": True})
    request(server.base, "POST", f"{base}/instructions", {})
    n = len(_answers(study_dir))
    for position in range(n):
        status, _, _ = request(server.base, "POST", f"{base}/answer", {"position": position, "answer": 50})
        assert status == 200
    out = str(tmp_path / "run")
    export(study_dir, out)
    rows = [json.loads(line) for line in open(os.path.join(out, "answers.jsonl"))]
    assert len(rows) == n and all(r["answer"] == 50 and r["valid"] and r["parsed"] == "middle" for r in rows)
    assert sorted(r["twin_order"] for r in rows) == [1, 1, 2, 2]  # AVoE: both videos of each of the 2 pairs
    header = open(os.path.join(out, "answers.csv")).readline().strip().split(",")
    assert "twin_order" in header
    samples = [json.loads(line) for line in open(os.path.join(out, "samples.jsonl"))]
    assert samples and all(s["valid"] and not s["correct"] for s in samples)


def test_an_answer_to_a_video_that_did_not_play_is_not_scored(avoe_server, tmp_path):
    """Defect 4's other half: the page says so when a video fails, and the export leaves that answer unscored."""
    from humans_fixtures import request

    from voebench.evaluate.humans.export import export

    server, study_dir, token = avoe_server
    base = f"/api/{token}"
    request(server.base, "POST", f"{base}/consent", {"consent": True})
    request(server.base, "POST", f"{base}/instructions", {})
    n = len(_answers(study_dir))
    for position in range(n):
        media = {"played": position != 0, "error": position == 0}
        body = {"position": position, "answer": 80, "media": media}
        assert request(server.base, "POST", f"{base}/answer", body)[0] == 200
    out = str(tmp_path / "run")
    export(study_dir, out)
    rows = [json.loads(line) for line in open(os.path.join(out, "answers.jsonl"))]
    samples = [json.loads(line) for line in open(os.path.join(out, "samples.jsonl"))]
    assert len(rows) == n and rows[0]["video_error"] is True
    assert len(samples) == n - 1 and rows[0]["video_id"] not in {s["video_id"] for s in samples}
    run = json.load(open(os.path.join(out, "run.json")))
    assert run["dataset_info"]["files_hashed"] == n and "check" not in run["dataset_info"]
