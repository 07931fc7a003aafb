"""The data pipeline of `voebench evaluate` (issue 13): decoding in worker processes, the next batch prepared in the
background, per-video frame cache, per-stage timing. Its outputs must not depend on the number of workers."""

import json
import os

import pytest
from evaluate_fixtures import run_outputs

from voebench.evaluate import frames
from voebench.evaluate.models import make_adapter
from voebench.evaluate.report import write_report
from voebench.evaluate.run import EvalConfig, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select


def _run(adapter, tiny_set, out, strategy, workers, repeats=2, tests=None):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=tests), strategy)
    cfg = EvalConfig(strategy, repeats=repeats, num_frames=4, num_workers=workers)
    frames.clear_cache()  # every run decodes for itself
    EvalRunner(adapter, samples, str(out), cfg, progress=False).run()
    write_report(str(out), n_boot=50)
    return str(out)


def _info(run: str) -> dict:
    with open(os.path.join(run, "run.json")) as fh:
        return json.load(fh)


@pytest.mark.parametrize("strategy", ["zero-shot", "cot", "one-shot"])
def test_fake_model_same_outputs_with_and_without_workers(tiny_set, tmp_path, strategy):
    a = make_adapter("fake:random")
    base = run_outputs(_run(a, tiny_set, tmp_path / "w0", strategy, 0))
    assert base[0] and base[1]
    assert run_outputs(_run(a, tiny_set, tmp_path / "w2", strategy, 2)) == base


def test_frames_decoded_in_worker_processes_equal_in_process(tiny_set):
    m = load_manifest(tiny_set)
    paths = [os.path.join(tiny_set, e["video"]) for e in m.entries[:4]]
    frames.clear_cache()
    here = [frames.read_frames(p, [0, 3, 7]).copy() for p in paths]
    frames.clear_cache()
    frames.use_workers(2)
    try:
        assert frames.num_workers() == 2
        frames.prefetch((p, [0, 3, 7]) for p in paths)
        there = [frames.read_frames(p, [0, 3, 7]) for p in paths]
        with pytest.raises(RuntimeError, match="fewer frames"):
            frames.read_frames(paths[0], [99])
    finally:
        frames.use_workers(0)
        frames.clear_cache()
    assert frames.num_workers() == 0
    assert all((a == b).all() for a, b in zip(here, there))


def test_openai_bodies_built_ahead_off_the_connections(tiny_set):
    """The openai adapter builds the next batch's bodies (frames decoded and encoded) in its encode pool when told
    what comes next, once each, and a connection only ever sends a finished body."""
    import threading

    from voebench.evaluate.models.base import Request
    from voebench.evaluate.models.openai import OpenAIAdapter
    from voebench.evaluate.run import EvalJob

    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=["t09_gravity"]), "zero-shot")[:6]
    r = EvalRunner.__new__(EvalRunner)
    r.cfg, r._frames = EvalConfig("zero-shot", num_frames=3), {}
    reqs = [Request(r.messages(EvalJob(s, 0, 5), 0), 5, 0, 0, 1, s) for s in samples]

    a = OpenAIAdapter("m", "http://127.0.0.1:9/v1", video_mode="frames", concurrency=3, encode_workers=2)
    built: list[str] = []
    build = a.payload
    a.payload = lambda req: (built.append(threading.current_thread().name), build(req))[1]  # type: ignore[method-assign]
    sent: list[int] = []
    a.send = lambda body: (sent.append(len(body)), "Yes.")[1]  # type: ignore[method-assign]
    a.prefetch(reqs)
    assert a.generate(reqs) == ["Yes."] * len(reqs)
    a.close()
    assert len(built) == len(reqs)  # each body once: the prefetched one was used
    assert all(name.startswith("voebench-encode") for name in built)
    assert len(sent) == len(reqs) and min(sent) > 1000  # bodies carry the encoded frames


# below: the hf adapter (a tiny random Qwen2.5-VL on the CPU)
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("torchvision")


@pytest.fixture(scope="module")
def tiny_hf(tmp_path_factory):
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    folder = build_tiny_qwen25vl(str(tmp_path_factory.mktemp("tiny-qwen-pipeline")))
    a = make_adapter(f"hf:{folder}", batch_size=3, max_new_tokens=3, do_sample=False, device="cpu")
    yield a
    a.close()


@pytest.mark.parametrize("strategy", ["zero-shot", "cot"])
def test_tiny_model_same_outputs_with_and_without_workers(tiny_hf, tiny_set, tmp_path, strategy):
    tests = ["shape", "t09_gravity"]
    r0 = _run(tiny_hf, tiny_set, tmp_path / "w0", strategy, 0, tests=tests)
    r2 = _run(tiny_hf, tiny_set, tmp_path / "w2", strategy, 2, tests=tests)
    s0, c0 = run_outputs(r0)
    s2, c2 = run_outputs(r2)
    assert all(isinstance(r["response"], str) for r in s0)
    assert s2 == s0
    assert c2 == c0

    info = _info(r2)
    t = info["timing"]
    assert info["num_workers"] == 2 and t["num_workers"] == 2
    assert set(t["stages"]) >= {"decode", "preprocess", "wait", "generate", "parse", "write"}
    assert t["stages"]["generate"]["count"] > 0 and t["stages"]["preprocess"]["seconds"] > 0
    assert t["model_calls"] == len(c2)
    # every video is decoded once, however many questions, turns and repeats show it
    videos = {tr["video"] for r in s2 for tr in r["turns"] if tr.get("video")}
    assert t["clips_decoded"] == len(videos) < t["frame_reads"]
    assert t["gpu_utilisation"] is None  # CPU run: nothing sampled
    # the report carries the stage split: results.json (its run block) and report.md
    with open(os.path.join(r2, "results.json")) as fh:
        assert json.load(fh)["run"]["timing"]["stages"]["generate"]["count"] > 0
    with open(os.path.join(r2, "report.md")) as fh:
        md = fh.read()
    assert "| generate |" in md and "decoding worker(s)" in md


def test_processor_runs_a_batch_ahead(tiny_hf, tiny_set, tmp_path):
    """Pipelined, the runner hands the adapter the next batch before asking for this one, and the adapter's loop
    waits for the prepared inputs instead of preparing them itself (preprocess runs once per batch)."""
    tests = ["t09_gravity"]
    run = _run(tiny_hf, tiny_set, tmp_path / "w1", "zero-shot", 1, repeats=1, tests=tests)
    t = _info(run)["timing"]
    calls = t["stages"]["generate"]["count"]
    assert calls >= 2
    assert t["stages"]["preprocess"]["count"] == calls
    assert t["stages"]["wait"]["count"] >= calls - 1  # all batches but the first came from the background
    assert not tiny_hf.pipelined  # the runner hands the adapter back as it found it


@pytest.mark.parametrize("strategy", ["zero-shot", "one-shot"])
def test_processor_in_the_decoding_workers_gives_the_same_answers(tiny_hf, tiny_set, tmp_path, monkeypatch, strategy):
    """VOEBENCH_PREPROCESS=workers (issue 28): each batch's processor runs in the decoding worker processes, cut into
    one chunk per worker and joined here; samples and cache are those of the processor in the prefetch thread, and
    the clips are read (decoded once each) in the workers, not ahead in this process."""
    tests = ["shape", "t09_gravity"]
    monkeypatch.setenv("VOEBENCH_PREPROCESS", "thread")
    base = run_outputs(_run(tiny_hf, tiny_set, tmp_path / "thread", strategy, 2, repeats=1, tests=tests))
    assert frames._FUTURES  # the thread path reads clips decoded ahead into this process
    monkeypatch.setenv("VOEBENCH_PREPROCESS", "workers")
    run = _run(tiny_hf, tiny_set, tmp_path / "workers", strategy, 2, repeats=1, tests=tests)
    assert not frames._FUTURES  # ... the workers path read none here
    assert run_outputs(run) == base
    t = _info(run)["timing"]
    assert t["stages"]["preprocess"]["count"] == t["stages"]["generate"]["count"]
    assert t["clips_decoded"] >= 1 and t["frame_reads"] >= t["clips_decoded"]
    assert not tiny_hf.preprocesses_in_workers  # off again once the run is over


def test_workers_that_fail_hand_the_processor_back_to_this_process(tiny_hf, tiny_set, tmp_path, monkeypatch, capsys):
    """A batch the workers cannot make (here: every submit fails, as with a full /dev/shm) is made in this process,
    and so is the rest of the run: the answers are those of the thread path, and the switch is said once."""
    tests = ["t09_gravity"]
    monkeypatch.setenv("VOEBENCH_PREPROCESS", "thread")
    base = run_outputs(_run(tiny_hf, tiny_set, tmp_path / "thread", "zero-shot", 2, repeats=1, tests=tests))

    def boom(*args):
        raise RuntimeError("unable to write to file </torch_1>: No space left on device")

    monkeypatch.setattr(frames, "submit", boom)
    monkeypatch.setenv("VOEBENCH_PREPROCESS", "workers")
    try:
        assert run_outputs(_run(tiny_hf, tiny_set, tmp_path / "failed", "zero-shot", 2, repeats=1, tests=tests)) == base
        assert tiny_hf._workers_failed
    finally:
        tiny_hf._workers_failed = False
    assert capsys.readouterr().err.count("failed in the decoding workers") == 1


def test_hf_adapter_takes_part_in_the_batch_size_search(tiny_hf, tiny_set, monkeypatch):
    """`--batch-size auto` with the hf adapter: no GPU name on a CPU (so the small default), a trial batch runs at
    the full answer length, and an out-of-memory error comes back as a fresh one (other errors as they are)."""
    import torch

    from voebench.evaluate import batch_size
    from voebench.evaluate.run import EvalJob

    m = load_manifest(tiny_set)
    r = EvalRunner.__new__(EvalRunner)
    r.cfg, r._frames = EvalConfig("zero-shot", num_frames=3), {}
    reqs = [r._last_turn(EvalJob(s, 0, 1)) for s in build_samples(m, select(m, tests=["shape"]), "zero-shot")[:3]]
    assert tiny_hf.gpu_name() is None
    seen = []
    real = tiny_hf._run
    monkeypatch.setattr(tiny_hf, "_run", lambda reqs, **kw: (seen.append(kw), real(reqs, **kw))[1])
    tiny_hf.try_batch([reqs[0]] * 2)
    assert seen == [{"min_new_tokens": tiny_hf.max_new_tokens}]
    old = tiny_hf.batch_size
    try:
        assert batch_size.choose(tiny_hf, reqs, 3, None, None) == {"batch_size": 4, "source": "cpu-default"}
    finally:
        tiny_hf.batch_size = old

    def oom(reqs, **kw):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(tiny_hf, "_run", oom)
    with pytest.raises(torch.cuda.OutOfMemoryError, match="Tried to allocate"):
        tiny_hf.try_batch(reqs)
    monkeypatch.setattr(tiny_hf, "_run", lambda reqs, **kw: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        tiny_hf.try_batch(reqs)


def test_preprocess_mode_and_auto_rule(monkeypatch):
    from voebench.evaluate.models import hf_inputs

    for value, want in [
        ("workers", "workers"),
        ("THREAD", "thread"),
        ("Auto", "auto"),
        ("", "thread"),
        ("bogus", "thread"),
    ]:
        monkeypatch.setenv("VOEBENCH_PREPROCESS", value)
        assert hf_inputs.mode() == want
    assert not hf_inputs.workers_pay_off(hf_inputs.AUTO_MIN_WORKERS - 1)
    monkeypatch.setattr(hf_inputs, "AUTO_MIN_SHM", 0)
    assert hf_inputs.workers_pay_off(hf_inputs.AUTO_MIN_WORKERS)
    monkeypatch.setattr(hf_inputs, "AUTO_MIN_SHM", 2**80)  # more shared memory than any machine has
    assert hf_inputs.workers_pay_off(hf_inputs.AUTO_MIN_WORKERS) == (not os.path.isdir("/dev/shm"))


def test_chunks_joined_equal_the_whole_batch(tiny_hf, tiny_set):
    """`collate` of per-chunk processor outputs (left-padded token rows, concatenated patches) is the processor's
    own output for the whole batch, tensor for tensor."""
    import torch

    from voebench.evaluate.models import hf_inputs
    from voebench.evaluate.run import EvalJob

    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=["shape", "t09_gravity"]), "cot")[:5]
    r = EvalRunner.__new__(EvalRunner)
    r.cfg, r._frames = EvalConfig("cot", num_frames=3), {}
    convs = [hf_inputs.conversation(r._last_turn(EvalJob(s, 0, 1)).messages) for s in samples]
    convs[1][0][-1]["content"][-1]["text"] += " a much longer question than the others" * 3

    def read(v):
        return frames.read_frames(v["path"], v["indices"])

    whole = hf_inputs.run_processor(tiny_hf.processor, convs, read)
    parts = [hf_inputs.run_processor(tiny_hf.processor, c, read) for c in hf_inputs.chunks(convs, 3)]
    assert [len(c) for c in hf_inputs.chunks(convs, 3)] == [2, 2, 1]
    assert len({p["input_ids"].shape[1] for p in parts}) > 1  # the chunks were padded to different lengths
    joined = hf_inputs.collate(parts, tiny_hf.processor.tokenizer.pad_token_id)
    assert set(joined) == set(whole)
    for k, v in whole.items():
        assert torch.equal(joined[k], v), k
    with pytest.raises(ValueError, match="cannot join"):
        hf_inputs.collate([{"input_ids": torch.ones(1, 2), "odd": 1}] * 2, 0)


def test_packed_vision_attention_equals_the_window_loop(tiny_set):
    """All windows in one attention call per layer gives the vision tower's own per-window result."""
    import torch

    from voebench.evaluate.models.packed_attention import use_packed_vision_attention
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    folder = build_tiny_qwen25vl(str(os.path.join(os.path.dirname(tiny_set), "tiny-packed")), max_pixels=224 * 224)
    a = make_adapter(f"hf:{folder}", device="cpu")
    videos = torch.randint(0, 255, (2, 4, 96, 160, 3), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    out = a.processor.video_processor(videos=list(videos), return_tensors="pt", do_sample_frames=False)
    tower = a.model.model.visual
    with torch.no_grad():
        ref = tower(out["pixel_values_videos"], grid_thw=out["video_grid_thw"]).last_hidden_state
        assert use_packed_vision_attention(a.model)
        got = tower(out["pixel_values_videos"], grid_thw=out["video_grid_thw"]).last_hidden_state
    assert a.model.config.text_config._attn_implementation == "sdpa"  # the language model keeps its attention
    assert torch.allclose(ref, got, atol=1e-5)
    assert not use_packed_vision_attention(a.model)  # already packed: nothing to do


def test_packed_vision_attention_auto_is_on_for_cuda_only(tiny_set):
    """The command line's default, "auto", packs on CUDA only (measured identical in bf16 there and 3.2x faster);
    on a CPU it stays off, so the adapter's settings, and with them the cache keys, stay as they were."""
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    folder = build_tiny_qwen25vl(str(os.path.join(os.path.dirname(tiny_set), "tiny-auto")), max_pixels=224 * 224)
    auto = make_adapter(f"hf:{folder}", device="cpu", packed_vision_attention="auto")
    assert auto.packed_vision_attention is False
    assert "packed_vision_attention" not in auto.settings()
    forced = make_adapter(f"hf:{folder}", device="cpu", packed_vision_attention="on")
    assert forced.packed_vision_attention is True
    assert forced.settings()["packed_vision_attention"] is True
