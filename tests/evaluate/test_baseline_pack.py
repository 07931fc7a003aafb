"""Packs (mp4 bytes + labels per category), their one-time decoding, and the GPU-side augmentation, on synthetic
AVoE data on the CPU."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("h5py")

from voebench.contract import avoe_labels as L  # noqa: E402
from voebench.evaluate.baseline.augment import Augment, augment_clips, shift_clips  # noqa: E402
from voebench.evaluate.baseline.pack import (  # noqa: E402
    decode_pack,
    decoded_path,
    pack_category,
    read_pack,
    splits_from_pack,
)
from voebench.evaluate.baseline.splits import load_data  # noqa: E402
from evaluate_fixtures import synthetic_avoe  # noqa: E402
from voebench.evaluate.baseline.synthetic import write_synthetic_avoe  # noqa: E402
from voebench.evaluate.baseline.train import SeedTrainer, TrainConfig  # noqa: E402


@pytest.fixture(scope="module")
def avoe_dir(tmp_path_factory):
    return synthetic_avoe(tmp_path_factory, ("B",), {"train": 4, "validation": 2, "test": 3}, size=24, seed=5)


def test_pack_holds_every_video_and_label(avoe_dir, tmp_path):
    path = pack_category(avoe_dir, "B", tmp_path / "packs")
    p = read_pack(path)
    n = len(p["ids"])
    assert n == 18 and len(p["offsets"]) == n + 1 and p["offsets"][-1] == len(p["videos"])
    assert p["features"].shape == (n, 24) and p["prior_rules"].shape == (n, 13) and p["posterior_rules"].shape == (n, 9)
    assert int(p["n_frames"]) == 6 and sorted(np.unique(p["split"]).tolist()) == [0, 1, 2]
    # the bytes are the mp4 files themselves
    first = (avoe_dir / "avoe").rglob(p["ids"][0].split("/", 1)[1] + ".mp4")
    assert next(first).read_bytes() == p["videos"][p["offsets"][0] : p["offsets"][1]].tobytes()


def test_decoded_pack_equals_the_dataset_path_and_is_cached(avoe_dir, tmp_path):
    path = pack_category(avoe_dir, "B", tmp_path / "packs")
    clips = decode_pack(path, size=16, workers=2, cache_dir=tmp_path / "dec")
    assert clips.shape == (18, 3, 6, 16, 16) and clips.dtype == np.uint8
    assert decoded_path(path, 16, 6, tmp_path / "dec").is_file()
    again = decode_pack(path, size=16, cache_dir=tmp_path / "dec")
    assert isinstance(again, np.memmap) and np.array_equal(again, clips)  # memory-mapped, not decoded again

    from_pack = splits_from_pack(path, clips)
    from_files = load_data(avoe_dir, "B", size=16, cache_dir=tmp_path / "cache", progress=False)
    for name in ("train", "validation", "test"):
        a, b = from_pack[name], from_files[name]
        assert a is not None and b is not None
        order = [a.ids.index(i) for i in b.ids]
        assert torch.equal(a.clips[order], b.clips)
        for k in ("features", "prior_rules", "posterior_rules", "surprising"):
            assert torch.equal(getattr(a, k)[order], getattr(b, k)), k
        assert [a.pair_ids[i] for i in order] == b.pair_ids


def test_pack_limit_and_labels_only(avoe_dir, tmp_path):
    path = pack_category(avoe_dir, "B", tmp_path / "packs")
    s = splits_from_pack(path, None, limit=1)
    assert all(len(s[k]) == 2 for k in ("train", "validation", "test"))  # one trial = its two videos
    assert s["test"].clips.numel() == 0
    t = splits_from_pack(path, None, train_limit=2)
    assert len(t["train"]) == 4 and len(t["validation"]) == 4 and len(t["test"]) == 6
    r = SeedTrainer(TrainConfig(model="random", category="B", progress=False), s, None).train()
    assert r["test"]["n_pairs"] == 1


def test_shift_moves_every_frame_and_replicates_edges():
    x = torch.arange(2 * 1 * 3 * 4 * 5, dtype=torch.float32).view(2, 1, 3, 4, 5)
    y = shift_clips(x, torch.tensor([1, 0]), torch.tensor([0, -2]))
    assert torch.equal(y[0, :, :, 1:], x[0, :, :, :-1]) and torch.equal(y[0, :, :, 0], x[0, :, :, 0])
    assert torch.equal(y[1, ..., :3], x[1, ..., 2:]) and torch.equal(y[1, ..., 3], x[1, ..., 4])
    assert torch.equal(shift_clips(x, torch.zeros(2, dtype=torch.long), torch.zeros(2, dtype=torch.long)), x)


def test_augment_stays_in_range_is_seeded_and_same_for_all_frames():
    g = torch.Generator().manual_seed(0)
    frame = torch.rand(3, 1, 16, 16)
    x = frame.expand(3, 4, 16, 16).unsqueeze(0).repeat(4, 1, 1, 1, 1)  # 4 clips, 4 identical frames each
    y = augment_clips(x, Augment(max_shift=3, brightness=0.2, contrast=0.2), generator=g)
    assert y.shape == x.shape and float(y.min()) >= 0.0 and float(y.max()) <= 1.0
    assert not torch.equal(y, x)
    assert torch.equal(y[:, :, 0], y[:, :, 3])  # one draw per clip: frames stay identical
    cfg = Augment(max_shift=3, brightness=0.2, contrast=0.2)
    y2 = augment_clips(x, cfg, generator=torch.Generator().manual_seed(0))
    assert torch.equal(y, y2)
    assert torch.equal(augment_clips(x, Augment(max_shift=0, brightness=0.0, contrast=0.0)), x)


def test_training_with_augmentation_runs(avoe_dir, tmp_path):
    path = pack_category(avoe_dir, "B", tmp_path / "packs")
    s = splits_from_pack(path, decode_pack(path, size=16, workers=1))
    cfg = TrainConfig(
        model="of", category="B", epochs=1, augment=True, backbone="resnet10", width=4, device="cpu", progress=False
    )
    r = SeedTrainer(cfg, s, tmp_path / "run").train()
    assert r["epochs_run"] == 1 and 0.0 <= r["test"]["hit_rate"] <= 1.0


def test_oracle_reads_perfect_features_and_degrades_with_noise(tmp_path):
    from voebench.evaluate.baseline.oracle import CLASS_FEATURES, constant_metrics, noisy_features, oracle_metrics

    root = write_synthetic_avoe(
        tmp_path / "avoe",
        categories=("B",),
        trials={"train": 40, "validation": 2, "test": 20},
        n_frames=2,
        size=8,
        seed=2,
    )
    s = splits_from_pack(pack_category(root, "B", tmp_path / "packs"), None)
    perfect = oracle_metrics(s)
    assert perfect["hit_rate"] >= 0.9  # toy physics is a function of the features: the trees learn it
    assert oracle_metrics(s, scale=3.0, flip=0.5, seed=1)["hit_rate"] < perfect["hit_rate"]

    f = s["test"].features.numpy()
    g = noisy_features(f, 0.5, np.random.default_rng(0), flip=1.0)
    n_classes = np.array([len(m.classes) if m.head == "classification" else -1 for m in L.MODEL_FEATURES])
    irrelevant = (f < 0) | (f == n_classes[None, :])  # -1 scalars, the extra class index
    assert np.array_equal(g[irrelevant], f[irrelevant])  # irrelevant entries untouched
    scalars = ~irrelevant & ~CLASS_FEATURES[None, :]
    assert (g[scalars] >= 0).all() and not np.allclose(g[scalars], f[scalars])
    classes = ~irrelevant & CLASS_FEATURES[None, :]
    assert (g[classes] != f[classes]).all()  # flip 1.0: every relevant class changes

    # a constant prediction's hit rate is the share of test pairs whose expected outcome is the constant
    c = constant_metrics(s)
    tr, te = s["train"], s["test"]
    rows, counts = np.unique(tr.posterior_rules.numpy()[(tr.surprising == 0).numpy()], axis=0, return_counts=True)
    majority = rows[int(np.argmax(counts))]
    expected = te.posterior_rules.numpy()[(te.surprising == 0).numpy()]
    assert c["hit_rate"] == pytest.approx(float((expected == majority).all(1).mean()))
