"""Long runs lose nothing: resume after a kill, verify finds broken files, repair redoes exactly those,
and bad input is refused with one line before anything is written."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, TINY, voebench


def entries(out):
    return {e["id"]: e for e in map(json.loads, open(out / "manifest.jsonl"))}


def test_killed_run_resumes_to_a_complete_verified_set(tmp_path):
    out = tmp_path / "set"
    cmd = [
        sys.executable,
        "-m",
        "voebench",
        "render",
        "grasp-l1",
        "--out",
        str(out),
        "--videos-per-test",
        "3",
        *TINY,
        "--workers",
        "1",
        "--quiet",
        "--tests",
        "shape,directionality,ordering",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    manifest = out / "manifest.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline:
        if manifest.exists() and len(manifest.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(manifest.read_text().splitlines())
    assert 2 <= done_before < 9, "the kill must land mid-run"
    # nothing half-written under a final name: every final file belongs to a finished video
    finals = sorted(p.name for p in (out / "grasp-l1").rglob("*.h5"))
    assert len(finals) >= done_before
    result = voebench(
        "render",
        "grasp-l1",
        "--out",
        out,
        "--videos-per-test",
        3,
        *TINY,
        "--workers",
        1,
        "--quiet",
        "--tests",
        "shape,directionality,ordering",
    )
    assert f"{len(finals)} already there" in result.stderr
    assert len(entries(out)) == 9
    assert not list(out.rglob("*.tmp-*"))
    assert voebench("verify", out).returncode == 0


def test_verify_finds_broken_files_and_render_redoes_exactly_those(level1_set, tmp_path):
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(level1_set, out)
    es = sorted(entries(out).values(), key=lambda e: e["id"])
    truncated, missing, corrupt = es[0], es[1], es[2]
    with open(out / truncated["video"], "r+b") as f:
        f.truncate(os.path.getsize(out / truncated["video"]) // 2)
    os.remove(out / missing["states"])
    with open(out / corrupt["states"], "r+b") as f:
        f.seek(0)
        f.write(b"\0" * 64)
    mtimes = {e["id"]: os.path.getmtime(out / e["states"]) for e in es if e is not missing and e is not corrupt}

    proc = voebench("verify", out, check=False)
    assert proc.returncode == 1
    for e in (truncated, missing, corrupt):
        assert e["id"].split("/")[-1] in proc.stdout and e["test"] in proc.stdout
    assert len(proc.stdout.strip().splitlines()) == 3

    assert voebench("verify", out, "--repair", check=False).returncode == 1
    result = voebench("render", "grasp-l1", "--out", out, "--videos-per-test", 2, *TINY, "--workers", 1, "--quiet")
    assert "3 made" in result.stderr and "9 already there" in result.stderr
    assert voebench("verify", out).returncode == 0
    for e in es[3:]:
        assert os.path.getmtime(out / e["states"]) == mtimes[e["id"]], "finished videos are not redone"


@pytest.mark.parametrize(
    "args,message",
    [
        (["render", "grasp-l9"], "unknown suite 'grasp-l9'"),
        (["render", "grasp-l1", "--tests", "shape,colour"], "unknown test 'colour'"),
        (["render", "grasp-l1", "--resolution", "64by48"], "--resolution"),
        (["render", "grasp-l1", "--resolution", "65x48"], "even"),
        (["render", "grasp-l1", "--set", "shape.size=2:1"], "grasp-l1/shape: size: empty range"),
        (["render", "grasp-l1", "--set", "camera.zoom=2"], "unknown parameter 'camera.zoom'"),
        (["render", "grasp-l1", "--set", "shape.size=big"], "shape: size: expected a number"),
        (["render", "grasp-l1", "--shard", "2/2"], "--shard"),
        (["render", "grasp-l1", "--passes", "rgb,normals"], "unknown pass 'normals'"),
        (["render", "grasp-l1", "--videos-per-test", "0"], "at least 1"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "out"
    proc = voebench(*args, "--out", out, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not out.exists()


def test_unwritable_output_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = voebench("render", "grasp-l1", "--out", blocker / "sub", *TINY, check=False)
    assert proc.returncode == 2 and "--out" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_set_made_with_other_settings_is_refused(level1_set):
    before = (level1_set / "dataset.json").read_text()
    proc = voebench(
        "render",
        "grasp-l1",
        "--out",
        level1_set,
        "--videos-per-test",
        2,
        "--resolution",
        "80x60",
        "--seconds",
        "1",
        "--fps",
        "10",
        check=False,
    )
    assert proc.returncode == 2 and "other settings" in proc.stderr and "width" in proc.stderr
    assert (level1_set / "dataset.json").read_text() == before


def test_params_prints_the_space_and_applies_overrides():
    import yaml

    out = voebench("params", "grasp-l1/shape", "--set", "shape.size=1:1.5").stdout
    space = yaml.safe_load(out)["grasp-l1/shape"]
    assert space["size"] == "1:1.5" and space["shape"] == ["ball", "cube"]
    assert "camera" in space


def test_config_file_overrides_are_recorded(tmp_path):
    cfg = tmp_path / "ranges.yaml"
    cfg.write_text("grasp-l1/color:\n  size: 1.2\n'*':\n  camera.fov: 60\n")
    out = tmp_path / "set"
    voebench(
        "render",
        "grasp-l1",
        "--out",
        out,
        "--videos-per-test",
        1,
        *TINY,
        "--workers",
        1,
        "--quiet",
        "--tests",
        "color,shape",
        "--config",
        cfg,
    )
    es = entries(out)
    color = es["grasp-l1/color/00000"]["params"]
    assert color["sampled"]["size"] == 1.2 and color["config"]["space"]["size"] == "1.2"
    assert color["sampled"]["camera"]["fov"] == 60 == es["grasp-l1/shape/00000"]["params"]["sampled"]["camera"]["fov"]
    ident = json.load(open(out / "dataset.json"))["suites"]["grasp-l1"]["identity"]
    assert ident["spaces"]["color"]["size"] == "1.2"


def _worker_pids():
    """Our spawned worker processes (children running multiprocessing's spawn_main)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"spawn_main" in cmd:
            pids.append(int(pid))
    return pids


def test_a_worker_that_dies_does_not_hang_the_run(tmp_path):
    """A Blender crash or an OOM kill of one worker: the run goes on, retries the videos that were in
    flight, and ends complete."""
    import threading

    from voebench.generator.runner import RunConfig, run

    out = tmp_path / "set"
    cfg = RunConfig(
        out=str(out),
        suite="grasp-l1",
        tests=["shape", "color", "relational"],
        trials=2,
        seconds=1,
        fps=10,
        width=64,
        height=48,
        workers=2,
    )
    results = []
    thread = threading.Thread(target=lambda: results.append(run(cfg, progress=False)))
    thread.start()
    killed = None
    deadline = time.time() + 120
    while killed is None and thread.is_alive() and time.time() < deadline:
        pids = _worker_pids()
        if pids:
            time.sleep(1.0)  # let it start rendering
            os.kill(pids[0], signal.SIGKILL)
            killed = pids[0]
        time.sleep(0.05)
    thread.join(300)
    assert killed is not None and not thread.is_alive(), "the run must finish after a worker dies"
    assert results[0].failed == [] and results[0].done + results[0].skipped == 6
    assert voebench("verify", out).returncode == 0


def test_a_build_whose_violation_disagrees_with_its_condition_is_refused(monkeypatch):
    """An implausible video without a recorded violation (or a plausible one with one) would be mislabelled."""
    from voebench.generator.suite import Job, Timing
    from voebench.scenes import REGISTRY

    suite = REGISTRY.get("grasp-l2")
    test = "t09_gravity_incline"
    module = suite.module(test)
    seed, p = suite.sample(test, suite.space(test), 0, 0)
    build = module.build

    def forgetful(scene, p, condition):
        build(scene, p, condition)
        scene.violation = None

    monkeypatch.setattr(module, "build", forgetful)
    with pytest.raises(RuntimeError, match="implausible build recorded no violation"):
        suite.make_scene(Job("grasp-l2", test, 0, "implausible", seed, "x"), p, Timing(10, 50))
    monkeypatch.setattr(module, "build", build)
    scene = suite.make_scene(Job("grasp-l2", test, 0, "implausible", seed, "x"), p, Timing(10, 50))
    monkeypatch.setattr(module, "build", lambda sc, p, c: build(sc, p, "implausible"))
    with pytest.raises(RuntimeError, match="plausible build recorded a violation"):
        suite.make_scene(Job("grasp-l2", test, 0, "plausible", seed, "x"), p, Timing(10, 50))
    assert scene.violation is not None
