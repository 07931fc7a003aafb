"""Baseline models on tiny synthetic AVoE data on the CPU: dataset, shapes, one training step per model, the CLI."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("h5py")

from voebench.contract import avoe_labels as L  # noqa: E402
from voebench.evaluate.baseline.backbone import ResNet3D, build_backbone, load_pretrained  # noqa: E402
from voebench.evaluate.baseline.data import AVoEDataset, resize_nearest  # noqa: E402
from voebench.evaluate.baseline.models import (  # noqa: E402
    BaselineNet,
    MLPHead,
    compute_loss,
    compute_loss_per_head,
    predicted_features,
)
from evaluate_fixtures import synthetic_avoe  # noqa: E402
from voebench.evaluate.baseline.splits import load_data  # noqa: E402
from voebench.evaluate.baseline.tables import write_tables  # noqa: E402
from voebench.evaluate.baseline.train import SeedTrainer, TrainConfig  # noqa: E402

TINY = dict(backbone="resnet10", width=4, device="cpu", progress=False)


@pytest.fixture(scope="module")
def avoe_dir(tmp_path_factory):
    return synthetic_avoe(tmp_path_factory, ("A", "D"), {"train": 4, "validation": 2, "test": 2}, size=32, seed=3)


def test_dataset_shapes_labels_and_cache(avoe_dir, tmp_path):
    ds = AVoEDataset(avoe_dir, "D", "train", size=16, cache_dir=tmp_path / "cache")
    assert len(ds) == 8 and ds.n_frames == 6
    item = ds[0]
    assert item["clip"].shape == (3, 6, 16, 16) and item["clip"].dtype == torch.float32
    assert float(item["clip"].min()) >= 0.0 and float(item["clip"].max()) <= 1.0
    assert item["features"].shape == (24,) and item["prior_rules"].shape == (13,)
    assert item["posterior_rules"].shape == (9,)
    # irrelevant encoding in the tensors: object_height (-1), object_shape (class 7), a rule of A (2)
    assert item["features"][0] == -1.0 and item["features"][20] == 7
    assert item["prior_rules"][0] == 2 and item["posterior_rules"][0] == 2
    assert set(ds.surprising.tolist()) == {0, 1}
    assert len(set(ds.pair_ids)) == 4
    assert len(list((tmp_path / "cache").glob("*.npy"))) == 1  # decoded once, cached
    clips = ds.stacked()
    assert clips.shape == (8, 3, 6, 16, 16) and clips.dtype == torch.uint8
    assert len(list((tmp_path / "cache").glob("*.npy"))) == 8
    again = AVoEDataset(avoe_dir, "D", "train", size=16, cache_dir=tmp_path / "cache", as_uint8=True)
    assert torch.equal(again[3]["clip"], clips[3])


def test_resize_nearest_matches_torch():
    x = np.random.default_rng(0).integers(0, 255, (2, 30, 50, 3), dtype=np.uint8)
    ref = torch.nn.functional.interpolate(torch.from_numpy(x).permute(0, 3, 1, 2).float(), size=(16, 16))
    assert np.array_equal(resize_nearest(x, 16), ref.permute(0, 2, 3, 1).numpy().astype(np.uint8))


@pytest.mark.parametrize("model,n_heads", [("ofpr", 33), ("of", 9), ("direct", 1)])
def test_network_shapes_and_fused_loss(model, n_heads):
    torch.manual_seed(0)
    net = BaselineNet(model, build_backbone("resnet10", width=4))
    x = torch.rand(2, 3, 4, 16, 16)
    out = net(x)
    assert len(net.specs) == n_heads
    if model == "ofpr":
        assert out["feature:object_height"].shape == (2, 1)
        assert out["feature:object_shape"].shape == (2, 8)
        assert out["posterior:object_fit"].shape == (2, 3)
        assert predicted_features(out).shape == (2, 24)
    batch = {
        "features": torch.tensor([L.feature_vector(_labels_d()["features"])] * 2),
        "posterior_rules": torch.tensor([[2, 2, 2, 2, 1, 0, 0, 0, 2]] * 2),
        "surprising": torch.tensor([0, 1]),
    }
    for cat in (None, "A", "D"):
        assert torch.allclose(
            compute_loss(net, out, batch, cat), compute_loss_per_head(net, out, batch, cat), rtol=1e-5, atol=1e-5
        )


def test_head_bank_equals_separate_mlps():
    torch.manual_seed(0)
    net = BaselineNet("of", build_backbone("resnet10", width=4))
    z = torch.randn(3, 700)
    packed = net.forward_embedding(z)
    for h in (0, 4):
        mlp = MLPHead(700, 3)
        linears = [m for m in mlp.net if isinstance(m, torch.nn.Linear)]
        for lin, w, b in zip(linears, net.heads.weights, net.heads.biases):
            lin.weight.data = w[h].T.clone()
            lin.bias.data = b[h, 0].clone()
        assert torch.allclose(mlp(z), packed[net.specs[h].name], atol=1e-5)


def _labels_d():
    return L.make_labels(
        "D",
        {
            "left_size": 1,
            "right_size": 1,
            "left_prior_velocity": 1,
            "right_prior_velocity": -2,
            "left_posterior_velocity": -1,
            "right_posterior_velocity": -1,
            "left_shape": "cube",
            "right_shape": "sphere",
        },
        {
            "right_object_larger": False,
            "objects_same_size": True,
            "right_object_faster": True,
            "objects_same_speed": False,
        },
        {
            "right_object_changed_direction": False,
            "left_object_changed_direction": True,
            "right_object_sped_up": False,
            "left_object_sped_up": False,
        },
    )


@pytest.mark.parametrize("model", ["ofpr", "of", "direct", "random"])
def test_one_training_step_each_model(avoe_dir, tmp_path, model):
    data = load_data(avoe_dir, "A", size=16, cache_dir=tmp_path / "cache", progress=False)
    cfg = TrainConfig(model=model, category="A", epochs=1, batch_size=4, lr=1e-3, optimizer="adam", seed=1, **TINY)
    r = SeedTrainer(cfg, data, tmp_path / "run" / f"{model}-A" / "seed1").train()
    assert r["test"]["n_pairs"] == 2 and r["test"]["n_videos"] == 4
    assert 0.0 <= r["test"]["hit_rate"] <= 1.0
    saved = json.loads((tmp_path / "run" / f"{model}-A" / "seed1" / "metrics.json").read_text())
    assert saved["model"] == model
    if model != "random":
        assert r["epochs_run"] == 1 and r["throughput"]["clips_fed"] > 0
        assert (tmp_path / "run" / f"{model}-A" / "seed1" / "best.pt").is_file()
    if model == "ofpr":
        assert r["info"]["tree_backend"] in ("sklearn", "numpy")
    text, js = write_tables(tmp_path / "run")
    assert "Support (A)" in text and model in js["models"]


def test_resume_and_frozen_backbone(avoe_dir, tmp_path):
    data = load_data(avoe_dir, "D", size=16, cache_dir=tmp_path / "cache", progress=False)
    out = tmp_path / "ofpr-D" / "seed2"
    cfg = TrainConfig(
        model="ofpr",
        category="D",
        epochs=1,
        batch_size=4,
        lr=1e-3,
        optimizer="sgd",
        seed=2,
        checkpoint_every_s=0,
        **TINY,
    )
    SeedTrainer(cfg, data, out).train()
    first = torch.load(out / "last.pt", weights_only=False)
    assert first["epoch"] == 0
    (out / "metrics.json").unlink()
    r = SeedTrainer(TrainConfig(**{**cfg.__dict__, "epochs": 2}), data, out).train()
    assert r["info"]["resumed_from_epoch"] == 1 and r["epochs_run"] == 2
    # frozen backbone: backbone unchanged, heads trained on cached embeddings
    cfg2 = TrainConfig(
        model="of",
        category="D",
        epochs=2,
        batch_size=4,
        lr=1e-2,
        optimizer="adam",
        seed=2,
        freeze_backbone=True,
        **TINY,
    )
    runner = SeedTrainer(cfg2, data, None)
    runner.build()
    before = {k: v.clone() for k, v in runner.net.backbone.state_dict().items()}
    runner = SeedTrainer(cfg2, data, None)
    runner.train()
    after = runner.net.backbone.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert "embedding_clips_per_s" in runner.info


def test_pretrained_weights_load(tmp_path):
    src = ResNet3D(depth=10, width=4, out_dim=700)
    torch.save({"state_dict": {f"module.{k}": v for k, v in src.state_dict().items()}}, tmp_path / "w.pth")
    dst = ResNet3D(depth=10, width=4, out_dim=700)
    info = load_pretrained(dst, str(tmp_path / "w.pth"))
    assert info["missing"] == [] and info["loaded"] == len(src.state_dict())
    assert torch.equal(dst.conv1.weight, src.conv1.weight)


def test_cli(avoe_dir, tmp_path, capsys):
    from voebench.cli import main

    rc = main(
        [
            "train-baseline",
            str(avoe_dir),
            "--model",
            "of",
            "--category",
            "A",
            "--epochs",
            "1",
            "--backbone",
            "resnet10",
            "--width",
            "4",
            "--size",
            "16",
            "--seeds",
            "1-2",
            "--device",
            "cpu",
            "--batch-size",
            "4",
            "--no-progress",
            "--out",
            str(tmp_path / "run"),
            "--cache-dir",
            str(tmp_path / "cache"),
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "OF-Net Hit Rate" in out and "| 2 |" in out
    table = json.loads((tmp_path / "run" / "table4.json").read_text())
    assert set(table["models"]["of"]["per_category"]["A"]["hit_rate"]["per_seed"]) == {"1", "2"}
    assert main(["train-baseline", str(avoe_dir), "--category", "Q", "--out", str(tmp_path / "x")]) == 2
    assert main(["train-baseline", str(tmp_path), "--category", "A", "--out", str(tmp_path / "x")]) == 2
    assert main(["train-baseline", str(avoe_dir), "--category", "B", "--out", str(tmp_path / "x")]) == 2
    assert main(["train-baseline", str(avoe_dir), "--category", "A", "--seeds", "x", "--out", str(tmp_path / "x")]) == 2


def test_cli_refuses_what_it_cannot_train(avoe_dir, tmp_path):
    """Train split rendered expected-only (the generator's default): direct needs --train-on expected; a
    states-only render (no mp4) cannot train a network."""
    import shutil

    from voebench.cli import main

    lines = [json.loads(x) for x in (avoe_dir / "manifest.jsonl").read_text().splitlines()]
    copy = tmp_path / "set"
    shutil.copytree(avoe_dir, copy, ignore=shutil.ignore_patterns(".baseline-cache"))
    kept = [e for e in lines if not (e["split"] == "train" and e["condition"] == "surprising")]
    (copy / "manifest.jsonl").write_text("".join(json.dumps(e) + "\n" for e in kept))
    common = [
        "--category",
        "A",
        "--epochs",
        "1",
        "--backbone",
        "resnet10",
        "--width",
        "4",
        "--size",
        "16",
        "--device",
        "cpu",
        "--no-progress",
        "--out",
        str(tmp_path / "run"),
    ]
    assert main(["train-baseline", str(copy), "--model", "direct"] + common) == 2
    assert (
        main(["train-baseline", str(copy), "--model", "direct", "--train-on", "expected", "--batch-size", "4"] + common)
        == 0
    )
    for e in kept:
        e["video"] = None
    (copy / "manifest.jsonl").write_text("".join(json.dumps(e) + "\n" for e in kept))
    assert main(["train-baseline", str(copy), "--model", "of"] + common) == 2
