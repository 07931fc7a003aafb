"""Host work taken out of the hf adapter's `generate` calls (issue 28): rotary positions computed on the CPU where
the batch is prepared, the packed vision attention's window layout made once per batch, and the static KV cache
option. Answers must not change: the same integers and the same maths, compared bit for bit on the tiny model."""

import os

import pytest

from voebench.evaluate.models import hf_positions, make_adapter
from voebench.evaluate.models import packed_attention as pa
from voebench.evaluate.run import EvalConfig, EvalJob, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    folder = build_tiny_qwen25vl(str(tmp_path_factory.mktemp("tiny-host-work")), max_pixels=224 * 224)
    a = make_adapter(f"hf:{folder}", batch_size=4, max_new_tokens=4, do_sample=False, device="cpu")
    yield a
    a.close()


def _requests(tiny_set, strategy="zero-shot", n=4):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m), strategy)[:n]
    r = EvalRunner.__new__(EvalRunner)
    r.cfg, r._frames = EvalConfig(strategy, num_frames=4), {}
    return [r._request(EvalJob(s, 0, 7)) for s in samples]


def _generate(model, inputs):
    import torch

    with torch.inference_mode():
        out = model.generate(
            **inputs, max_new_tokens=4, do_sample=False, output_scores=True, return_dict_in_generate=True
        )
    return out.sequences, torch.stack(out.scores)


@pytest.mark.parametrize("strategy", ["zero-shot", "one-shot"])
def test_cpu_positions_are_generates_own_and_answers_do_not_change(tiny, tiny_set, strategy, monkeypatch):
    import torch

    assert tiny.cpu_positions and hf_positions.supported(tiny.model)
    tiny.cpu_positions = False
    try:
        plain = tiny._inputs(_requests(tiny_set, strategy))
    finally:
        tiny.cpu_positions = True
    assert "position_ids" not in plain
    ours = tiny._inputs(_requests(tiny_set, strategy))
    pos = ours["position_ids"]
    assert pos.shape == (4, *plain["input_ids"].shape)  # text row + time, height, width
    assert not torch.equal(pos[1], pos[2])  # video tokens: 3D positions, not the text ones

    calls = []
    inner = tiny.model.model
    real = inner.get_rope_index
    monkeypatch.setattr(inner, "get_rope_index", lambda *a, **k: calls.append(1) or real(*a, **k))
    seq0, scores0 = _generate(tiny.model, plain)
    assert calls  # generate computed the positions itself ...
    calls.clear()
    seq1, scores1 = _generate(tiny.model, ours)
    assert not calls  # ... and not when given ours
    assert torch.equal(seq0, seq1)
    assert torch.equal(scores0, scores1)  # bit for bit: the same integers went in


def test_cpu_positions_can_be_turned_off(tiny_set, monkeypatch, tiny):
    monkeypatch.setenv("VOEBENCH_CPU_POSITIONS", "0")
    a = make_adapter(f"hf:{tiny.path}", max_new_tokens=2, device="cpu")
    try:
        assert a.cpu_positions is False
        assert "position_ids" not in a._inputs(_requests(tiny_set, n=2))
    finally:
        a.close()


def test_text_only_batch_gets_no_positions(tiny):
    inputs = tiny.processor(text=["hello there"], return_tensors="pt")
    assert hf_positions.cpu_position_ids(tiny.model, dict(inputs)) is None


def test_packed_layout_made_once_per_batch_and_identical(tiny, tiny_set, monkeypatch):
    """The packed attention's window layout is made once per `cu_seqlens` tensor (not once per layer), with the
    same output bit for bit as a layout made afresh in every layer."""
    import torch

    from voebench.evaluate.models.packed_attention import use_packed_vision_attention

    a = make_adapter(f"hf:{tiny.path}", max_new_tokens=2, device="cpu")
    try:
        assert use_packed_vision_attention(a.model)
        videos = torch.randint(
            0, 255, (3, 4, 96, 160, 3), dtype=torch.uint8, generator=torch.Generator().manual_seed(1)
        )
        out = a.processor.video_processor(videos=list(videos), return_tensors="pt", do_sample_frames=False)
        tower = a.model.model.visual
        made = []
        real_init = pa._Layout.__init__

        def counting(self, *args):
            made.append(1)
            real_init(self, *args)

        monkeypatch.setattr(pa._Layout, "__init__", counting)
        with torch.inference_mode():  # as in generate: inference tensors have no version counter
            cached = tower(out["pixel_values_videos"], grid_thw=out["video_grid_thw"]).last_hidden_state
            kinds = 1 + bool(tower.fullatt_block_indexes)  # windowed layers, and full-attention ones if any
            assert len(made) == kinds < len(tower.blocks) + 1
            made.clear()
            monkeypatch.setattr(pa, "_layout", lambda cu, n, dev, m: pa._Layout(cu, n, dev, m))  # afresh per layer
            fresh = tower(out["pixel_values_videos"], grid_thw=out["video_grid_thw"]).last_hidden_state
            assert len(made) == len(tower.blocks)
    finally:
        a.close()
    assert torch.equal(cached, fresh)


def test_layout_cache_follows_the_tensor():
    """A new tensor, or the same one changed in place, gets a new layout; a freed one is forgotten."""
    import torch

    cu = torch.tensor([0, 3, 5, 9], dtype=torch.int32)
    first = pa._layout(cu, 9, cu.device, None)
    assert pa._layout(cu, 9, cu.device, None) is first and first.max_len == 4 and first.n == 3
    cu[3] = 10
    again = pa._layout(cu, 10, cu.device, None)
    assert again is not first and again.max_len == 5
    other = torch.tensor([0, 9], dtype=torch.int32)
    assert pa._layout(other, 9, other.device, None).max_len == 9
    del cu
    third = torch.tensor([0, 2], dtype=torch.int32)
    pa._layout(third, 2, third.device, None)  # a miss sweeps the layouts of freed tensors
    assert all(ref() is not None for ref, *_ in pa._LAYOUTS.values())


def test_static_kv_cache_option(tiny, tiny_set, monkeypatch):
    """`VOEBENCH_KV_CACHE=static`: in the settings (so in the cache key: other kernels may move low bits) and
    passed to generate; on a CPU transformers does not compile, and the tiny model's greedy answers are the same."""
    monkeypatch.setenv("VOEBENCH_KV_CACHE", "static")
    a = make_adapter(f"hf:{tiny.path}", batch_size=4, max_new_tokens=4, do_sample=False, device="cpu")
    try:
        assert a.settings()["kv_cache"] == "static" and "kv_cache" not in tiny.settings()
        seen = {}
        real = a.model.generate
        monkeypatch.setattr(a.model, "generate", lambda **kw: seen.update(kw) or real(**kw))
        reqs = _requests(tiny_set)
        assert a.generate(reqs) == tiny.generate(reqs)
        assert seen["cache_implementation"] == "static"
    finally:
        a.close()


def test_blank_inputs_have_the_real_batchs_shapes(tiny, tiny_set):
    """The blank warm-up's batch (black frames of each video's size) has the real batch's tensors, shapes and dtypes:
    the kernels and memory it warms are the ones the first batch uses."""
    reqs = _requests(tiny_set)
    real, blank = tiny._inputs(reqs), tiny._blank_inputs(reqs)
    assert blank is not None and set(blank) == set(real)
    for k, v in real.items():
        assert blank[k].shape == v.shape and blank[k].dtype == v.dtype, k
    assert not blank["pixel_values_videos"].equal(real["pixel_values_videos"])  # not the real frames
    assert tiny.warm_up_blank(reqs) is False  # on a CPU there is nothing to warm


class _Warming:
    """A fake adapter that decodes videos and has a blank warm-up: records the clips sent for decoding by the time
    the warm-up ran."""

    decodes_video = True

    def __init__(self, inner, sent):
        self.inner, self.sent, self.calls = inner, sent, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def warm_up_blank(self, requests):
        paths = {m["video"]["path"] for r in requests for m in r.messages if m.get("video")}
        self.calls.append((len(requests), paths <= {p for p, _ in self.sent}))
        return True


@pytest.mark.parametrize("env", ["blank", "", "off"])
def test_runner_blank_warm_up(tiny_set, tmp_path, monkeypatch, env):
    """VOEBENCH_WARMUP=blank: the runner warms up once on the first batch, its clips already sent for decoding,
    answers unchanged, and says so in run.json; by default (or off) there is no blank warm-up."""
    import json

    from voebench.evaluate import frames

    monkeypatch.setenv("VOEBENCH_WARMUP", env)
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=["t09_gravity"]), "zero-shot")
    fake = make_adapter("fake:random")
    fake.batch_size = 2
    sent: list = []
    real_prefetch = frames.prefetch

    def recording(items):
        items = list(items)
        sent.extend(items)
        real_prefetch(items)

    monkeypatch.setattr(frames, "prefetch", recording)

    def run(adapter, out):
        frames.clear_cache()
        EvalRunner(adapter, samples, str(out), EvalConfig("zero-shot", repeats=1, num_frames=3), progress=False).run()
        with open(out / "samples.jsonl") as fh:
            got = [json.loads(line)["response"] for line in fh]
        with open(out / "run.json") as fh:
            return got, json.load(fh)["timing"]

    plain, _ = run(fake, tmp_path / "plain")
    warming = _Warming(fake, sent)
    got, timing = run(warming, tmp_path / "warm")
    assert got == plain and len(got) == len(samples) > 2
    if env != "blank":
        assert warming.calls == [] and timing["warmup"] is None
    else:
        assert warming.calls == [(2, True)] and timing["warmup"] == "blank" and timing["warmup_s"] is not None
