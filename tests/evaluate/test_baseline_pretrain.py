"""Self-supervised backbone pretraining (evaluate/baseline/pretrain.py) and `voebench pretrain-baseline`."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from voebench.evaluate.baseline.backbone import build_backbone, load_pretrained  # noqa: E402
from voebench.evaluate.baseline.data import avoe_records  # noqa: E402
from voebench.evaluate.baseline.pretrain import (  # noqa: E402
    FrameDecoder,
    PretrainConfig,
    frame_loss,
    pretrain,
    save_backbone,
    split_clip,
    training_clips,
)
from evaluate_fixtures import synthetic_avoe  # noqa: E402

TINY = {"backbone": "resnet10", "width": 8, "target_frames": 3, "target_size": 8, "batch_size": 4, "device": "cpu"}


@pytest.fixture(scope="module")
def avoe_dir(tmp_path_factory):
    return synthetic_avoe(tmp_path_factory, ("A", "D"), {"train": 4, "validation": 2, "test": 2}, size=32, seed=3)


def test_decoder_and_targets_shapes():
    dec = FrameDecoder(dim=20, frames=5, size=16)
    with torch.no_grad():
        out = dec(torch.zeros(2, 20))
    assert out.shape == (2, 3, 5, 16, 16) and float(out.min()) >= 0 and float(out.max()) <= 1
    with pytest.raises(ValueError):
        FrameDecoder(dim=20, frames=5, size=12)
    clips = torch.randint(0, 256, (2, 3, 10, 32, 32), dtype=torch.uint8)
    inp, tgt = split_clip(clips, PretrainConfig(objective="future", context=4, target_frames=3, target_size=8))
    assert inp.shape == (2, 3, 4, 32, 32) and tgt.shape == (2, 3, 3, 8, 8)
    # the future targets are the last frames, area-averaged: the first target is frame 4, the last frame 9
    full = clips.float() / 255
    assert torch.allclose(tgt[:, :, 0], torch.nn.functional.avg_pool2d(full[:, :, 4], 4), atol=1e-6)
    assert torch.allclose(tgt[:, :, -1], torch.nn.functional.avg_pool2d(full[:, :, 9], 4), atol=1e-6)
    inp, tgt = split_clip(clips, PretrainConfig(objective="clip", target_frames=3, target_size=8))
    assert inp.shape == (2, 3, 10, 32, 32) and tgt.shape == (2, 3, 3, 8, 8)
    with pytest.raises(ValueError):
        split_clip(clips, PretrainConfig(objective="future", context=10))


def test_frame_loss_counts_motion():
    a = torch.zeros(1, 3, 4, 8, 8)
    b = a.clone()
    b[:, :, 2:] = 1.0  # a change between frames 1 and 2
    assert float(frame_loss(a, a, 1.0)) == 0.0
    assert float(frame_loss(a, b, 1.0)) > float(frame_loss(a, b, 0.0)) > 0


def test_pretrain_learns_and_saves_loadable_weights(tmp_path):
    # clips in which a bright square moves right: predictable from the first frames
    clips = torch.zeros(8, 3, 8, 32, 32, dtype=torch.uint8)
    for i in range(8):
        for t in range(8):
            x = 2 + i + 2 * t
            clips[i, :, t, 10:18, x : x + 6] = 255
    cfg = PretrainConfig(objective="future", context=4, epochs=15, lr=3e-3, **TINY)
    backbone, rec = pretrain(clips, cfg, log=lambda s: None)
    assert len(rec["history"]) == 15 and rec["clips"] == 8
    assert rec["history"][-1]["loss"] < rec["history"][0]["loss"]
    f = tmp_path / "bb.pt"
    save_backbone(f, backbone, rec)
    fresh = build_backbone("resnet10", 8)
    info = load_pretrained(fresh, str(f))
    assert info["skipped"] == [] and info["missing"] == []
    for k, v in backbone.state_dict().items():
        assert torch.equal(fresh.state_dict()[k], v), k
    assert torch.load(f, weights_only=False)["pretraining"]["config"]["objective"] == "future"


def test_training_clips_are_expected_training_videos_only(avoe_dir):
    clips = training_clips(avoe_dir, ["A", "D"], size=16, cache_dir=None)
    n = sum(1 for r in avoe_records(avoe_dir) if r.split == "train" and r.condition == "expected")
    assert clips.shape == (n, 3, 6, 16, 16) and clips.dtype == torch.uint8
    assert n < len(avoe_records(avoe_dir))  # validation and test videos exist and are left out
    assert len(training_clips(avoe_dir, ["A"], size=16, cache_dir=None, limit=2)) == 2


def test_cli_pretrain_then_frozen_training(avoe_dir, tmp_path, capsys):
    from voebench.cli import main

    out = tmp_path / "bb.pt"
    common = ["--backbone", "resnet10", "--width", "8", "--size", "32", "--device", "cpu"]
    rc = main(
        [
            "pretrain-baseline",
            str(avoe_dir),
            "--out",
            str(out),
            "--epochs",
            "1",
            "--context",
            "3",
            "--target-frames",
            "2",
            "--target-size",
            "8",
            "--batch-size",
            "4",
            *common,
        ]
    )
    assert rc == 0 and out.is_file()
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["epochs_run"] == 1 and summary["clips"] == 8
    run = tmp_path / "run"
    rc = main(
        [
            "train-baseline",
            str(avoe_dir),
            "--model",
            "of",
            "--category",
            "A",
            "--out",
            str(run),
            "--epochs",
            "1",
            "--pretrained",
            str(out),
            "--freeze-backbone",
            "--no-progress",
            *common,
        ]
    )
    assert rc == 0
    m = json.loads((run / "of-A" / "seed1" / "metrics.json").read_text())
    assert m["info"]["pretrained"]["skipped"] == [] and m["info"]["pretrained"]["missing"] == []


@pytest.mark.parametrize(
    "extra",
    [["--target-size", "12"], ["--context", "6"], ["--category", "Z"], ["--epochs", "0"], ["--device", "cudax"]],
)
def test_cli_refuses_bad_settings(avoe_dir, tmp_path, capsys, extra):
    from voebench.cli import main

    out = tmp_path / "bb.pt"
    assert main(["pretrain-baseline", str(avoe_dir), "--out", str(out), "--device", "cpu", *extra]) == 2
    assert not out.exists()
    assert "error" in capsys.readouterr().err.lower()
