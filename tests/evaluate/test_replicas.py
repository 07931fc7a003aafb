"""`voebench evaluate --replicas N` (evaluate/models/replicas.py): N processes answer the batches one process
would answer, so the outputs must not depend on N; a replica that dies stops the run with one line and the same
command resumes; bad values are refused in one line."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from evaluate_fixtures import run_outputs

from voebench.errors import UsageError
from voebench.evaluate.models import make_adapter
from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.models.replicas import ReplicaError, ReplicaPool
from voebench.evaluate.run import EvalConfig, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select


def _samples(tiny_set, strategy):
    m = load_manifest(tiny_set)
    return build_samples(m, select(m), strategy)


def _run(adapter, samples, out, strategy, repeats=2, warmup=False) -> EvalRunner:
    cfg = EvalConfig(strategy, repeats=repeats, num_frames=3, warmup=warmup)
    runner = EvalRunner(adapter, samples, str(out), cfg, progress=False)
    runner.run()
    return runner


class Recorder(Adapter):
    """Answers with its batch's first conversation, so answers change whenever the batches do; records them."""

    name = "recorder"

    def __init__(self, batch_size: int, replicas: int = 1):
        self.batch_size, self.replicas, self.batches = batch_size, replicas, []

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        self.batches.append([(r.sample.sample_id, r.repeat, r.turn) for r in requests])
        first = requests[0]
        return [f"yes {first.sample.sample_id} {first.repeat} {first.turn} {i}" for i in range(len(requests))]

    def generate_each(self, batches):
        for b in batches:  # in order, as the pool yields them
            yield self.generate(b)


@pytest.mark.parametrize("strategy", ["zero-shot", "cot"])
def test_the_runner_hands_out_the_batches_one_process_cuts(tiny_set, tmp_path, strategy):
    samples = _samples(tiny_set, strategy)
    one, three = Recorder(3), Recorder(3, replicas=3)
    _run(one, samples, tmp_path / "one", strategy)
    _run(three, samples, tmp_path / "three", strategy)
    assert len(one.batches) > 6 and all(len(b) <= 3 for b in one.batches)
    assert sorted(one.batches) == sorted(three.batches)  # the same batches (a later turn waits for its round)
    assert run_outputs(str(tmp_path / "one"))[0] == run_outputs(str(tmp_path / "three"))[0]
    with open(tmp_path / "three" / "run.json") as fh:
        assert json.load(fh)["replicas"] == 3


def _fake(batch_size: int = 4):
    """fake:random cut into batches of `batch_size` (fake answers any batch; 4 cuts these runs into many)."""
    a = make_adapter("fake:random")
    a.batch_size = batch_size
    return a


def test_two_replica_processes_answer_as_one_process(tiny_set, tmp_path):
    samples = _samples(tiny_set, "cot")
    _run(_fake(), samples, tmp_path / "one", "cot")
    pool = ReplicaPool("fake:random", {}, 2)
    try:
        pool.batch_size = 4  # as the one-process run's, so both replicas answer
        runner = _run(pool, samples, tmp_path / "two", "cot", warmup=True)  # fake has no warm-up: both say so
    finally:
        pool.close()
    assert runner.calls == 2 * 2 * len(samples) and runner.warmup_s is None
    (got, got_cache), (want, want_cache) = run_outputs(str(tmp_path / "two")), run_outputs(str(tmp_path / "one"))
    assert got == want
    # the same lines; a second turn comes after the round's first turns, so multi-turn lines may come in another order
    assert sorted(got_cache, key=lambda r: r["key"]) == sorted(want_cache, key=lambda r: r["key"])
    assert not any(p.is_alive() for p in pool._procs)


def test_a_killed_replica_stops_the_run_and_the_same_command_resumes(tiny_set, tmp_path):
    samples = _samples(tiny_set, "zero-shot")
    _run(_fake(), samples, tmp_path / "one", "zero-shot")
    out = tmp_path / "two"
    pool = ReplicaPool("fake:random", {}, 2)
    pool.batch_size = 4
    victim = pool._procs[1]
    os.kill(victim.pid, signal.SIGKILL)
    victim.join(10)
    try:
        with pytest.raises(ReplicaError, match=r"replica 1 \(pid \d+\) died \(killed by signal 9\).*same command"):
            _run(pool, samples, out, "zero-shot")
    finally:
        pool.close()
    with open(out / "cache.jsonl") as fh:
        assert len(fh.readlines()) == 4  # replica 0's batch, answered before replica 1's was found dead: kept
    with open(out / "run.json") as fh:
        assert json.load(fh)["state"] == "incomplete"
    pool = ReplicaPool("fake:random", {}, 2)
    try:
        pool.batch_size = 4
        runner = _run(pool, samples, out, "zero-shot")
    finally:
        pool.close()
    assert runner.calls == 2 * len(samples) - 4  # only what was missing
    got, want = run_outputs(str(out))[0], run_outputs(str(tmp_path / "one"))[0]
    assert sum(any(r["cached"]) for r in got) == 4  # the kept answers were read back, not asked again
    assert [{**r, "cached": None} for r in got] == [{**r, "cached": None} for r in want]


def test_a_replica_that_cannot_build_its_adapter_says_why_and_leaves_nothing_running():
    with pytest.raises(UsageError, match="fake:nope"):
        ReplicaPool("fake:nope", {}, 2)
    import multiprocessing

    time.sleep(0.2)
    assert not [p for p in multiprocessing.active_children() if p.name.startswith("voebench-replica")]


def _cli(*args, **env):
    cmd = [sys.executable, "-m", "voebench", "evaluate", *map(str, args), "--no-progress"]
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, timeout=300)


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--model", "fake:yes", "--replicas", "0"], "--replicas must be at least 1"),
        (["--model", "fake:yes", "--replicas", "two"], "--replicas must be an integer"),
        (["--model", "openai:m@http://127.0.0.1:9/v1", "--replicas", "2"], "nothing to replicate"),
        (["--model", "fake:yes", "--replicas", "2", "--batch-size", "auto"], "--batch-size auto"),
        pytest.param(  # the replicas load the model, and say why they cannot (import torch: about a minute here)
            ["--model", "hf:/nonexistent/voebench-model", "--replicas", "2"], "cannot load", marks=pytest.mark.heavy
        ),
    ],
)
def test_bad_values_one_line_exit_2_nothing_written(tiny_set, tmp_path, extra, said):
    out = tmp_path / "run"
    p = _cli(tiny_set, "--out", out, *extra, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    assert p.returncode == 2, p.stderr
    lines = [x for x in p.stderr.splitlines() if x.strip() and not x.startswith("Loading")]
    assert len(lines) == 1 and said in lines[0], p.stderr
    assert not out.exists()


def test_cli_records_replicas_and_matches_one_process(tiny_set, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for out, n in ((one, "1"), (two, "2")):
        t = time.perf_counter()
        p = _cli(tiny_set, "--out", out, "--model", "fake:random", "--strategy", "one-shot", "--replicas", n)
        assert p.returncode == 0, p.stderr
        assert time.perf_counter() - t < 120
    assert run_outputs(str(one)) == run_outputs(str(two))
    with open(two / "run.json") as fh:
        info = json.load(fh)
    assert info["replicas"] == 2 and info["adapter_stats"]["replicas"] == 2
    assert info["settings"] == {"kind": "random"}  # the count is no setting: the cache keys are one process's


def test_a_device_list_starts_one_replica_per_device(tiny_set, tmp_path):
    p = _cli(tiny_set, "--out", tmp_path / "run", "--model", "fake:yes", "--device", "cpu,cpu", "--tests", "A1")
    assert p.returncode == 0, p.stderr
    with open(tmp_path / "run" / "run.json") as fh:
        assert json.load(fh)["adapter_stats"]["replicas"] == 2


@pytest.mark.heavy
def test_tiny_hf_model_same_answers_with_two_replicas(tiny_set, tmp_path):
    """The real adapter: two processes each loading the tiny random Qwen2.5-VL, frames from the store."""
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    model = build_tiny_qwen25vl(str(tmp_path / "tiny"))
    common = ["--model", f"hf:{model}", "--device", "cpu", "--batch-size", "3", "--max-new-tokens", "4"]
    common += ["--num-frames", "4", "--repeats", "2", "--tests", "t09_gravity", "--strategy", "cot"]
    common += ["--num-workers", "2", "--frame-store", tmp_path / "store"]
    assert _cli(tiny_set, "--out", tmp_path / "one", *common).returncode == 0
    p = _cli(tiny_set, "--out", tmp_path / "two", *common, "--replicas", "2")
    assert p.returncode == 0, p.stderr
    a, b = run_outputs(str(tmp_path / "one")), run_outputs(str(tmp_path / "two"))
    assert a[0] == b[0] and len(a[1]) > 6
    assert sorted(a[1], key=lambda r: r["key"]) == sorted(b[1], key=lambda r: r["key"])
