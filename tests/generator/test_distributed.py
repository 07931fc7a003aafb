"""Ray backend, shards + merge and multi-worker runs give the same dataset as one local run.

What is exactly reproducible (checked here): every output file is byte-identical — each video's mp4 (x264
with one thread is deterministic), each HDF5 file (no timestamps; depth, segmentation and all states arrays),
manifest.jsonl and dataset.json. So the tests compare whole files, the strongest statement there is.
The Ray run also loses one worker mid-run (fault injection) and must still give the same files.
"""

from __future__ import annotations

import dataclasses
import filecmp
import importlib.util
import os

import pytest

from voebench.generator.runner import RunConfig, merge, run

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed")

# 4 videos: two still scenes (1 distinct frame each) and two moving ones (15 and 8 distinct frames).
BASE = dict(
    suite="grasp-l1", tests=["shape", "directionality"], trials=2, seconds=4.0, fps=5.0, width=64, height=48, workers=1
)


def files(root: str) -> dict[str, str]:
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = p
    return out


def assert_same_dataset(a: str, b: str, ignore=()):
    fa, fb = files(a), files(b)
    for k in ignore:
        fa.pop(k, None)
        fb.pop(k, None)
    assert sorted(fa) == sorted(fb)
    assert sum(k.endswith(".mp4") for k in fa) == 4 and sum(k.endswith(".h5") for k in fa) == 4
    differ = [k for k in fa if not filecmp.cmp(fa[k], fb[k], shallow=False)]
    assert not differ, f"files differ: {differ}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("single"))
    r = run(RunConfig(out=out, **BASE), progress=False)
    assert r.done == 4 and not r.failed
    return out


@needs_ray
@pytest.mark.heavy
def test_ray_run_matches_single_local_run(reference, tmp_path, monkeypatch):
    out = str(tmp_path / "ray")
    home_ray = os.path.expanduser("~/.ray")
    had_home_ray = os.path.exists(home_ray)
    crash = tmp_path / "crash"
    crash.mkdir()
    monkeypatch.setenv("VOEBENCH_RAY_CRASH_ONCE", str(crash))  # the first task's worker dies: Ray retries it
    r = run(RunConfig(out=out, **{**BASE, "workers": 2}), progress=False, backend="ray")
    assert (crash / "crashed").exists()
    assert r.done == 4 and not r.failed, r.failed
    assert_same_dataset(reference, out)
    # the private instance leaves nothing behind: no ~/.ray, environment restored
    assert os.path.exists(home_ray) == had_home_ray
    assert "RAY_AUTH_TOKEN_PATH" not in os.environ
    import ray

    assert not ray.is_initialized()


def test_two_shards_and_merge_match_single_run(reference, tmp_path):
    out = str(tmp_path / "shards")
    for i in range(2):
        r = run(RunConfig(out=out, **{**BASE, "shard": (i, 2)}), progress=False)
        assert r.done == 2 and not r.failed
    assert merge(out) == 4
    assert_same_dataset(reference, out, ignore=("manifest-shard-0-of-2.jsonl", "manifest-shard-1-of-2.jsonl"))


def test_two_workers_match_one_worker(reference, tmp_path):
    out = str(tmp_path / "two")
    r = run(RunConfig(out=out, **{**BASE, "workers": 2}), progress=False)
    assert r.done == 4 and not r.failed
    assert_same_dataset(reference, out)


@needs_ray
def test_ray_task_resources_follow_device_and_threads():
    from voebench.generator.distributed import task_resources

    cfg = RunConfig(out="x", **BASE)
    assert task_resources(cfg) == {"num_cpus": 1.0}
    assert task_resources(dataclasses.replace(cfg, threads=2, device="cuda")) == {"num_cpus": 2.0, "num_gpus": 1.0}
