"""A cold run's fixed costs overlapped with the model's load (evaluate/cold_start.py, issue 28): the switch, the clips
decoded early are the run's first ones, held until the imports are done and never left for another run, the
answers do not change, the timeline in run.json, the direct load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from voebench.errors import UsageError
from voebench.evaluate import cold_start
from voebench.evaluate.run import EvalConfig, EvalJob, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select


@pytest.mark.parametrize(
    ("raw", "parts"),
    [
        (None, {"decode", "cuda", "direct", "exit"}),  # all four (early decoding since bench/results/issue28-cold4)
        ("cuda,direct,exit", {"cuda", "direct", "exit"}),
        ("on", {"decode", "cuda", "direct", "exit"}),
        ("off", set()),
        ("decode", {"decode"}),
        ("cuda, direct", {"cuda", "direct"}),
    ],
)
def test_the_switch(monkeypatch, raw, parts):
    if raw is None:
        monkeypatch.delenv("VOEBENCH_COLD_START", raising=False)
    else:
        monkeypatch.setenv("VOEBENCH_COLD_START", raw)
    assert cold_start.mode() == parts


def test_an_unknown_part_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("VOEBENCH_COLD_START", "decode,warp")
    with pytest.raises(UsageError, match="warp"):
        cold_start.mode()


def test_process_age_counts_from_the_process_start():
    code = "from voebench.evaluate import cold_start; import time; time.sleep(0.3); print(cold_start.process_age())"
    age = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 0.3 <= age < 30  # includes the interpreter's start and the imports, not only the sleep
    a = cold_start.process_age()
    time.sleep(0.05)
    assert 0.03 <= cold_start.process_age() - a < 1


EXIT_PROBE = """
import atexit, gc
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))  # runs after those registered later
from voebench.evaluate import cold_start
print("registered:", cold_start.light_exit(), cold_start.light_exit())
"""


@pytest.mark.parametrize(("raw", "on"), [(None, True), ("cuda,direct", False), ("off", False), ("exit", True)])
def test_the_exit_skips_the_last_collection_only_when_on(raw, on):
    env = {k: v for k, v in os.environ.items() if k != "VOEBENCH_COLD_START"}
    if raw is not None:
        env["VOEBENCH_COLD_START"] = raw
    p = subprocess.run([sys.executable, "-c", EXIT_PROBE], capture_output=True, text=True, env=env, check=True)
    assert p.stdout.split() == ["registered:", str(on), str(on), "frozen", "at", "exit:", str(on)]


def test_the_early_clips_are_the_ones_the_run_asks_first(tiny_set):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m), "one-shot", seed=0)  # two videos per question
    runner = EvalRunner.__new__(EvalRunner)
    runner.cfg, runner._frames = EvalConfig("one-shot", num_frames=4), {}
    asked: list[tuple[str, list[int]]] = []
    for s in samples[:3]:
        job = EvalJob(s, 0, 1, responses=[""] * (len(s.turns) - 1))
        for msg in runner.messages(job, len(s.turns) - 1):
            v = msg.get("video")
            if v and (v["path"], v["indices"]) not in asked:
                asked.append((v["path"], v["indices"]))
    got = cold_start.first_clips(samples, 4, None, 3)
    assert got == asked and len(got) == len(set(map(str, got)))
    assert cold_start.first_clips(samples, 4, None, 0) == []


@pytest.fixture
def early(monkeypatch):
    """Early decoding on, and nothing of it left behind: no workers, no held or decoded clips."""
    from voebench.evaluate import frames

    monkeypatch.setenv("VOEBENCH_COLD_START", "decode")
    cold_start.drop_decoding()
    frames.clear_cache()
    yield frames
    cold_start.drop_decoding()
    frames.use_workers(0)
    frames.clear_cache()
    frames.use_store(None)


def _first(tiny_set, n=3):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m), "one-shot", seed=0)
    return samples, cold_start.first_clips(samples, 4, None, n)


def _queued(frames, clips) -> int:
    """How many of `clips` the decoding workers were given (frames keeps a future per clip asked for)."""
    return sum((os.path.abspath(p), tuple(i)) in frames._FUTURES for p, i in clips)


def test_the_early_clips_are_held_until_released(tiny_set, early):
    frames = early
    _, clips = _first(tiny_set)
    assert cold_start.start_decoding(clips, 1, None) == len(clips) > 0
    assert frames.num_workers() == 1  # the worker is forked now, and idle
    assert _queued(frames, clips) == 0
    assert cold_start.release_decoding() == len(clips)
    assert _queued(frames, clips) == len(clips) and "decoding_released" in cold_start.MARKS
    path, idx = clips[0]
    assert (frames.read_frames(path, idx) == frames._decode_now(path, tuple(idx))).all()
    assert cold_start.release_decoding() == 0  # once


def test_the_runner_releases_what_is_held_and_drops_what_is_not_its(tiny_set, tmp_path, early):
    """A model that never reaches the adapter's release (here one that needs no pixels): the runner queues the held
    clips as it starts. A run that did not start early decoding (a second command in one process, after one whose
    adapter failed) drops them instead of decoding clips that are not its own."""
    from voebench.evaluate.models.fake import FakeAdapter

    frames = early
    samples, clips = _first(tiny_set)
    cold_start.start_decoding(clips, 1, None)
    cfg = EvalConfig("one-shot", num_frames=4, decoding_started=True)
    EvalRunner(FakeAdapter("yes"), samples, str(tmp_path / "a"), cfg, progress=False).run()
    assert _queued(frames, clips) == len(clips) and cold_start.release_decoding() == 0
    frames.clear_cache()
    cold_start.start_decoding(clips, 1, None)
    EvalRunner(FakeAdapter("yes"), samples, str(tmp_path / "b"), EvalConfig("one-shot"), progress=False).run()
    assert _queued(frames, clips) == 0 and cold_start.release_decoding() == 0


def test_no_cuda_warm_up_on_a_cpu_or_when_off(monkeypatch):
    torch = pytest.importorskip("torch")
    assert cold_start.warm_cuda(torch.device("cpu"), torch.float32) is None
    monkeypatch.setenv("VOEBENCH_COLD_START", "decode")
    assert cold_start.warm_cuda(torch.device("cuda"), torch.bfloat16) is None


# below: the hf adapter (a tiny random Qwen2.5-VL on the CPU) through the command line
@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("transformers")
    pytest.importorskip("torchvision")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    return build_tiny_qwen25vl(str(tmp_path_factory.mktemp("tiny-qwen-cold")))


def _evaluate(tiny_set, model, out, store, monkeypatch, mode):
    from voebench.cli import main
    from voebench.evaluate import frames

    frames.clear_cache()  # a fresh process's module state: no clips of an earlier run in memory, no marks
    cold_start.MARKS.clear()
    monkeypatch.setenv("VOEBENCH_COLD_START", mode)
    args = ["evaluate", tiny_set, "--model", f"hf:{model}", "--out", str(out), "--tests", "shape,t09_gravity"]
    args += ["--batch-size", "3", "--num-frames", "4", "--max-new-tokens", "3", "--repeats", "2", "--num-workers", "2"]
    args += ["--frame-store", str(store), "--no-progress", "--device", "cpu"]
    assert main(args) in (0, 1)  # 1: the random model's answers may fail to parse, which is no error here
    with open(os.path.join(out, "run.json")) as fh:
        info = json.load(fh)
    with open(os.path.join(out, "samples.jsonl")) as fh:
        samples = [{k: r[k] for k in ("sample_id", "repeat", "responses", "turns")} for r in map(json.loads, fh)]
    return info, samples


def test_same_answers_with_and_without_it_and_the_timeline(tiny_model, tiny_set, tmp_path, monkeypatch):
    from voebench.evaluate import frames

    off, s_off = _evaluate(tiny_set, tiny_model, tmp_path / "off", tmp_path / "store-off", monkeypatch, "off")
    queued, prefetch = [], frames.prefetch

    def recorded(items):  # which of the process's points were passed when clips were first queued
        queued.append({k for k in ("imports_done", "processor_loaded", "runner_start") if k in cold_start.MARKS})
        prefetch(items)

    monkeypatch.setattr(frames, "prefetch", recorded)
    on, s_on = _evaluate(tiny_set, tiny_model, tmp_path / "on", tmp_path / "store-on", monkeypatch, "on")
    assert queued[0] == {"imports_done"}  # held while torch and transformers import, queued before the load
    assert not cold_start._HELD  # nothing held for a later command in this process
    assert s_on == s_off and all(isinstance(r, str) for s in s_on for r in s["responses"])
    with open(tmp_path / "off" / "cache.jsonl") as a, open(tmp_path / "on" / "cache.jsonl") as b:
        assert [json.loads(x)["response"] for x in a] == [json.loads(x)["response"] for x in b]
    t_on, t_off = on["timing"], off["timing"]
    assert t_on["process"]["decoding_started_early"] and not t_off["process"]["decoding_started_early"]
    # the clips decoded before the run started are counted as the run's: every video once either way
    assert t_on["clips_decoded"] == t_off["clips_decoded"] > 0
    assert os.listdir(tmp_path / "store-on")  # the early clips went into the store too
    ages = t_on["process"]["ages_s"]
    for k in ("cli_start", "workers_started", "imports_done", "weights_loaded", "runner_start", "first_generate_done"):
        assert k in ages
    assert ages["workers_started"] <= ages["imports_done"] <= ages["runner_start"] <= ages["first_generate_done"]
    assert ages["imports_done"] <= ages["decoding_released"] <= ages["processor_loaded"]
    assert t_on["time_to_first_answer_from_start_s"] >= ages["runner_start"]
    assert t_on["process"]["adapter_load_s"]["weights_direct_to_device"] is False  # CPU: loaded as before


def test_a_whole_process_with_the_light_exit_writes_the_same_answers(tiny_model, tiny_set, tmp_path, monkeypatch):
    """`voebench evaluate` as its own process, the default (`exit` on: gc.freeze at the interpreter's exit), against
    the same command in this process with everything off: the same samples, the run's files complete."""
    _, s_off = _evaluate(tiny_set, tiny_model, tmp_path / "off", tmp_path / "store-off", monkeypatch, "off")
    out = tmp_path / "process"
    args = ["evaluate", tiny_set, "--model", f"hf:{tiny_model}", "--out", str(out), "--tests", "shape,t09_gravity"]
    args += ["--batch-size", "3", "--num-frames", "4", "--max-new-tokens", "3", "--repeats", "2", "--num-workers", "2"]
    args += ["--frame-store", str(tmp_path / "store"), "--no-progress", "--device", "cpu"]
    env = {k: v for k, v in os.environ.items() if k != "VOEBENCH_COLD_START"}
    p = subprocess.run([sys.executable, "-m", "voebench", *args], capture_output=True, text=True, env=env)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    with open(out / "samples.jsonl") as fh:
        s_proc = [{k: r[k] for k in ("sample_id", "repeat", "responses", "turns")} for r in map(json.loads, fh)]
    assert s_proc == s_off
    for name in ("results.json", "report.md"):
        assert (out / name).stat().st_size > 0


def test_a_resumed_run_decodes_nothing_early(tiny_model, tiny_set, tmp_path, monkeypatch):
    info, first = _evaluate(tiny_set, tiny_model, tmp_path / "run", tmp_path / "store", monkeypatch, "on")
    assert info["timing"]["process"]["decoding_started_early"]
    with open(tmp_path / "run" / "cache.jsonl") as fh:
        lines = fh.readlines()
    with open(tmp_path / "run" / "cache.jsonl", "w") as fh:  # as if killed half-way
        fh.writelines(lines[: len(lines) // 2])
    info, again = _evaluate(tiny_set, tiny_model, tmp_path / "run", tmp_path / "store", monkeypatch, "on")
    assert not info["timing"]["process"]["decoding_started_early"]
    assert again == first


def test_an_adapter_that_fails_to_load_leaves_nothing_held(tiny_set, tmp_path, monkeypatch):
    from voebench.cli import main
    from voebench.evaluate import frames
    from voebench.evaluate.models import hf

    def fails(self, *a, **kw):  # before the imports are done, so before the adapter's own release
        raise MemoryError("no room for the model")

    monkeypatch.setenv("VOEBENCH_COLD_START", "on")
    monkeypatch.setattr(hf.HFAdapter, "__init__", fails)
    held, start = [], cold_start.start_decoding
    monkeypatch.setattr(cold_start, "start_decoding", lambda *a: held.append(start(*a)) or held[-1])
    args = ["evaluate", tiny_set, "--model", f"hf:{tmp_path}", "--out", str(tmp_path / "run"), "--batch-size", "3"]
    args += ["--num-frames", "4", "--num-workers", "1", "--device", "cpu", "--no-progress", "--frame-store", "off"]
    try:
        with pytest.raises(MemoryError):
            main(args)
        assert held[0] > 0 and not cold_start._HELD and frames.num_workers() == 0
    finally:
        cold_start.drop_decoding()
        frames.use_workers(0)


def test_a_bad_switch_exits_2_with_nothing_written(tiny_model, tiny_set, tmp_path, monkeypatch, capsys):
    from voebench.cli import main

    monkeypatch.setenv("VOEBENCH_COLD_START", "fast")
    out = tmp_path / "run"
    args = ["evaluate", tiny_set, "--model", f"hf:{tiny_model}", "--out", str(out), "--device", "cpu"]
    assert main([*args, "--frame-store", str(tmp_path / "store"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "VOEBENCH_COLD_START" in err[0]
    assert not out.exists() and not (tmp_path / "store").exists()


def test_weights_read_straight_onto_the_device_are_the_same(tiny_model):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForImageTextToText

    from voebench.evaluate.models.hf import _load

    plain, direct = _load(AutoModelForImageTextToText, tiny_model, torch.float32, None, {})
    # device_map="cpu": read straight onto the device where this transformers can (with accelerate), else as before
    mapped, _ = _load(AutoModelForImageTextToText, tiny_model, torch.float32, torch.device("cpu"), {})
    assert direct is False
    a, b = plain.state_dict(), mapped.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_transformers_that_refuses_device_map_loads_as_before():
    from voebench.evaluate.models.hf import _load

    asked = []

    class Auto:  # refuses device_map as transformers without accelerate does
        @staticmethod
        def from_pretrained(path, **kw):
            asked.append(sorted(kw))
            if "device_map" in kw:
                raise ValueError("Using a `device_map` ... requires `accelerate`")
            return "model"

    assert _load(Auto, "p", "bf16", "cuda:0", {"trust_remote_code": False}) == ("model", False)
    assert asked == [["device_map", "dtype", "trust_remote_code"], ["dtype", "trust_remote_code"]]

    class Mapped(Auto):
        @staticmethod
        def from_pretrained(path, **kw):
            return ("on", kw["device_map"])

    assert _load(Mapped, "p", "bf16", "cuda:1", {}) == (("on", "cuda:1"), True)
