"""The hf adapter on a tiny randomly initialised Qwen2.5-VL built from a config (no download), loaded through the
real AutoProcessor / AutoModelForImageTextToText.from_pretrained path, on CPU."""

import json
import os

import pytest


pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("torchvision")

from voebench.cli import main
from voebench.evaluate.models import make_adapter
from voebench.evaluate.models.base import Request
from voebench.evaluate.run import EvalJob, EvalConfig, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select


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


# ------------------------------------------------------------------------------------------------ image queries


@pytest.fixture(scope="module")
def predict_samples(tmp_path_factory):
    """The predict suite's two query forms (evaluate/predict/queries.py) over a stub predict set: per clip an image
    query (5 separate frames up to the cut) and a video query."""
    from contract_fixtures import write_dataset
    from evaluate_fixtures import write_mp4
    from test_predict_eval import N_FRAMES, SCENES, predict_entry

    from voebench.contract import manifest as mf
    from voebench.evaluate.predict.queries import build_samples

    root = tmp_path_factory.mktemp("predict") / "set"
    os.makedirs(root / "predict" / "collisions")
    entries = [predict_entry(i, labels, pairs) for i, (labels, pairs) in enumerate(SCENES[:2])]
    for e in entries:
        write_mp4(str(root / e["video"]), e["index"], n=N_FRAMES)
    mf.write_manifest(str(root / mf.NAME), entries)
    write_dataset(str(root))
    samples = build_samples(load_manifest(str(root)), ["image", "video"], image_count=5, video_frames=4)
    assert [s.form for s in samples] == ["image", "video", "image", "video"]
    return samples


class _SpyProcessor:
    """The adapter's processor, recording what each call of it received."""

    def __init__(self, processor):
        self._processor = processor
        self.calls: list[dict] = []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self._processor(**kwargs)

    def __getattr__(self, name):
        return getattr(self._processor, name)


def _predict_requests(samples):
    return [Request([s.message()], 11, 0, 0, 1, s) for s in samples]


@pytest.mark.parametrize("family", ["qwen", "smol"])
def test_an_image_query_reaches_the_processor_as_images(family, request, predict_samples):
    path = request.getfixturevalue({"qwen": "tiny_qwen", "smol": "tiny_smol"}[family])
    a = make_adapter(f"hf:{path}", batch_size=4, max_new_tokens=3, do_sample=False, device="cpu")
    spy = a.processor = _SpyProcessor(a.processor)
    image_q = next(s for s in predict_samples if s.form == "image")
    a._inputs(_predict_requests([image_q]))
    got = spy.calls[-1]
    assert "videos" not in got and len(got["images"]) == 1  # one conversation ...
    assert len(got["images"][0]) == len(image_q.frames) == 5  # ... showing its 5 frames as 5 images
    assert all(im.shape == (48, 64, 3) for im in got["images"][0])
    placeholder = {"qwen": "<|image_pad|>", "smol": "<image>"}[family]
    assert placeholder in got["text"][0]
    # a mixed batch (what a predict run sends): images for the image queries, videos for the video queries
    inputs = a._inputs(_predict_requests(predict_samples))
    got = spy.calls[-1]
    assert [len(ims) for ims in got["images"]] == [5, 0, 5, 0] and len(got["videos"]) == 2
    if family == "qwen":  # one grid per image (10) and per video (2); the video's 4 frames make 2 temporal steps
        assert inputs["image_grid_thw"].shape[0] == 10 and inputs["image_grid_thw"][:, 0].tolist() == [1] * 10
        assert inputs["video_grid_thw"][:, 0].tolist() == [2, 2]
    batched = a.generate(_predict_requests(predict_samples))
    assert all(isinstance(x, str) for x in batched)
    assert batched == [a.generate([r])[0] for r in _predict_requests(predict_samples)]


def test_the_cache_key_tells_images_from_a_video(predict_samples):
    from voebench.evaluate.run import cache_key

    s = next(s for s in predict_samples if s.form == "image")
    as_images = s.message()
    as_video = {**as_images, "video": {**as_images["video"], "as_images": False}}
    plain = {**as_images, "video": {k: v for k, v in as_images["video"].items() if k != "as_images"}}

    def key(m):
        return cache_key("hf:m", {}, s.sample_id, [m], 0)

    assert key(as_images) != key(as_video)  # answers given to a video are not reused for images
    assert key(as_video) == key(plain)  # video turns keep the keys they had before images existed
