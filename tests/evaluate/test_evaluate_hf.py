"""The hf adapter on a tiny randomly initialised Qwen2.5-VL built from a config (no download), loaded through the
real AutoProcessor / AutoModelForImageTextToText.from_pretrained path, on CPU."""

import json
import os

import pytest


pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("torchvision")

from voebench.cli import main  # noqa: E402
from voebench.evaluate.models import make_adapter  # noqa: E402
from voebench.evaluate.models.base import Request  # noqa: E402
from voebench.evaluate.run import EvalJob, EvalConfig, EvalRunner  # noqa: E402
from voebench.evaluate.tasks import build_samples, load_manifest, select  # noqa: E402


@pytest.fixture(scope="session")
def tiny_qwen(tmp_path_factory):
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    return build_tiny_qwen25vl(str(tmp_path_factory.mktemp("tiny-qwen25vl")))


@pytest.fixture(scope="session")
def adapter(tiny_qwen):
    return make_adapter(f"hf:{tiny_qwen}", batch_size=3, max_new_tokens=4, do_sample=False, device="cpu")


def _requests(tiny_set, strategy, n=3, num_frames=4):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m), strategy)[:n]
    r = EvalRunner.__new__(EvalRunner)
    r.cfg = EvalConfig(strategy, num_frames=num_frames)
    r._frames = {}
    return [Request(r.messages(EvalJob(s, 0, 11), 0), 11, 0, 0, len(s.turns), s) for s in samples]


def test_loads_through_auto_classes(adapter, tiny_qwen):
    assert type(adapter.model).__name__ == "Qwen2_5_VLForConditionalGeneration"
    assert adapter.processor.tokenizer.padding_side == "left"
    assert adapter.settings()["dtype"] == "float32"
    assert adapter.name == f"hf:{tiny_qwen}"


def test_frames_reach_the_processor(adapter, tiny_set):
    reqs = _requests(tiny_set, "zero-shot", n=2, num_frames=4)
    inputs = adapter._inputs(reqs)
    # 4 frames / temporal patch 2 = 2 temporal grid steps per video, one video per conversation
    assert inputs["video_grid_thw"].shape[0] == 2
    assert inputs["video_grid_thw"][:, 0].tolist() == [2, 2]
    # 4 frames over a 1 s clip of 8 frames -> 4 fps sampled -> 2/4 s per temporal grid step
    assert [round(float(x), 3) for x in inputs["second_per_grid_ts"]] == [0.5, 0.5]


def test_batched_equals_one_by_one(adapter, tiny_set):
    reqs = _requests(tiny_set, "one-shot", n=3)  # two videos per conversation, prompts of different lengths
    batched = adapter.generate(reqs)
    single = [adapter.generate([r])[0] for r in reqs]
    assert all(isinstance(x, str) for x in batched)
    assert batched == single


def test_evaluate_cli_with_hf(tiny_qwen, tiny_set, tmp_path):
    run = str(tmp_path / "run")
    args = [
        "evaluate",
        tiny_set,
        "--model",
        f"hf:{tiny_qwen}",
        "--out",
        run,
        "--strategy",
        "cot",
        "--tests",
        "shape,t09_gravity",
        "--repeats",
        "2",
        "--num-frames",
        "4",
        "--max-new-tokens",
        "3",
        "--batch-size",
        "4",
        "--sampling",
        "greedy",
        "--device",
        "cpu",
        "--no-progress",
    ]
    assert main(args) == 0
    with open(os.path.join(run, "samples.jsonl")) as fh:
        recs = [json.loads(line) for line in fh]
    assert len(recs) == 8 * 2
    assert all(len(r["responses"]) == 2 and isinstance(r["response"], str) for r in recs)
    assert all(r["valid"] in (True, False) and r["turns"][0]["frames"] == [0, 2, 5, 7] for r in recs)
    with open(os.path.join(run, "run.json")) as fh:
        info = json.load(fh)
    assert info["state"] == "complete" and info["model_calls_this_run"] == 32
    assert info["settings"]["do_sample"] is False
    # resumed: nothing left to ask
    assert main(args) == 0
    with open(os.path.join(run, "run.json")) as fh:
        assert json.load(fh)["model_calls_this_run"] == 0


@pytest.fixture(scope="session")
def tiny_smol(tmp_path_factory):
    pytest.importorskip("num2words")
    os.environ["HF_HUB_OFFLINE"] = "1"
    from voebench.evaluate.models.tiny import build_tiny_smolvlm2

    return build_tiny_smolvlm2(str(tmp_path_factory.mktemp("tiny-smolvlm2")))


def test_smolvlm2_through_the_same_path(tiny_smol, tiny_set):
    a = make_adapter(f"hf:{tiny_smol}", batch_size=3, max_new_tokens=3, do_sample=False, device="cpu")
    assert type(a.model).__name__ == "SmolVLMForConditionalGeneration"
    reqs = _requests(tiny_set, "one-shot", n=3)
    batched = a.generate(reqs)
    assert all(isinstance(x, str) for x in batched)
    assert batched == [a.generate([r])[0] for r in reqs]
