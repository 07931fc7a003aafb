"""World models scored by surprise (evaluate/surprise/): protocol, the V-JEPA 2 scorer on a tiny random model,
pair metrics, the `voebench evaluate --model vjepa2:` command end to end, and training a tiny model.

The set written here has pairs whose two videos are identical (losslessly coded) before the onset frame and differ
after it, so the pre-onset gap must be exactly zero."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from contract_fixtures import complete_entry, write_dataset

from voebench.contract import manifest as mf
from voebench.evaluate.surprise import metrics
from voebench.evaluate.surprise.protocol import Protocol, auto_frame_step, window_ends

N_FRAMES, ONSET, SIZE = 16, 12, 32
SMALL = ["--window", "8", "--context-lengths", "2,4,6", "--fixed-context", "4", "--frame-step", "1"]


def test_frame_step_keeps_the_reference_rate_and_enough_windows():
    assert auto_frame_step(500, 50.0) == 10  # GRASP: 50 fps, frame_step 10
    assert auto_frame_step(200, 20.0) == 4
    assert auto_frame_step(50, 24.0) == 2  # AVoE's 2 s clips: a smaller step so that 5 windows fit
    p = Protocol()
    frames = p.frames(500, 50.0)
    starts = p.starts(len(frames))
    assert len(frames) == 50 and starts == list(range(0, 35, 2))
    assert window_ends(frames, starts, 16)[0] == 150
    with pytest.raises(ValueError):
        Protocol(fixed_context=3)
    with pytest.raises(ValueError):
        Protocol(context_lengths=(2, 16))


def _video(seed: int, violated: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = np.zeros((N_FRAMES, SIZE, SIZE, 3), np.uint8) + rng.integers(0, 200, 3).astype(np.uint8)
    for t in range(N_FRAMES):
        x = t if not (violated and t >= ONSET) else (t + 12) % (SIZE - 6)  # the square jumps at the onset
        v[t, 10:16, x : x + 6] = 255
    return v


def _write_lossless(path: str, frames: np.ndarray) -> None:
    import imageio.v2 as iio

    w = iio.get_writer(
        path,
        format="FFMPEG",
        fps=10,
        codec="libx264rgb",
        macro_block_size=1,
        output_params=["-qp", "0"],
        ffmpeg_log_level="error",
    )
    for f in frames:
        w.append_data(f)
    w.close()


def make_paired_set(root: str, pairs: int = 2, seed0: int = 0) -> str:
    entries = []
    for i in range(pairs):
        for cond in ("plausible", "implausible"):
            rel = f"grasp-l2/t09_gravity/{i:05d}-{cond}"
            os.makedirs(os.path.join(root, "grasp-l2/t09_gravity"), exist_ok=True)
            _write_lossless(os.path.join(root, rel + ".mp4"), _video(seed0 + i, cond == "implausible"))
            entries.append(
                complete_entry(
                    {
                        "id": f"grasp-l2/t09_gravity/{i:05d}-{cond}",
                        "suite": "grasp-l2",
                        "test": "t09_gravity",
                        "index": i,
                        "condition": cond,
                        "pair_id": f"grasp-l2/t09_gravity/{i:05d}",
                        "seed": seed0 + i,
                        "video": rel + ".mp4",
                        "states": rel + ".h5",
                        "n_frames": N_FRAMES,
                        "fps": 10.0,
                        "width": SIZE,
                        "height": SIZE,
                        "pair_conditions": ["plausible", "implausible"],
                        "violation": None
                        if cond == "plausible"
                        else {
                            "principles": ["gravity"],
                            "kind": "teleport",
                            "object": "ball",
                            "first_frame": ONSET,
                            "last_frame": ONSET,
                            "hidden": False,
                        },
                    }
                )
            )
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


@pytest.fixture(scope="module")
def paired_set(tmp_path_factory) -> str:
    return make_paired_set(str(tmp_path_factory.mktemp("pairs")))


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory) -> str:
    pytest.importorskip("transformers")
    from voebench.evaluate.surprise.vjepa2 import random_model

    d = str(tmp_path_factory.mktemp("tiny-vjepa2"))
    random_model("tiny").save_pretrained(d)
    return d


def test_tokens_are_tubelet_major():
    """The first C/2 * (crop/patch)^2 tokens are the first C frames: changing later frames leaves them alone."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from voebench.evaluate.surprise.vjepa2 import random_model

    model = random_model("tiny")
    x = torch.randn(1, 8, 3, 32, 32)
    y = x.clone()
    y[:, 4:] = torch.randn_like(y[:, 4:])
    emb = model.encoder.embeddings
    a, b = emb(x), emb(y)
    n = 2 * (32 // 8) ** 2  # two tubelets = four frames
    assert torch.equal(a[:, :n], b[:, :n]) and not torch.allclose(a[:, n:], b[:, n:])


def test_the_context_never_sees_the_frames_it_predicts():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from voebench.evaluate.surprise.vjepa2 import prediction_error, random_model, targets

    model = random_model("tiny")
    x = torch.randn(2, 8, 3, 32, 32)
    tgt = targets(model.encoder, x)
    y = x.clone()
    y[:, 4:] = 0
    with torch.no_grad():
        assert torch.allclose(prediction_error(model, tgt, x, 4), prediction_error(model, tgt, y, 4))
        # a longer context changes the prediction of the same (last) tokens
        assert not torch.allclose(prediction_error(model, tgt, x, 4), prediction_error(model, tgt, x, 2)[:, -32:])


def _rec(pid, plausible, s, onset=5, ends=(2, 4, 6, 8)):
    return {
        "id": f"{pid}-{plausible}",
        "suite": "s",
        "test": "t",
        "pair_id": pid,
        "plausible": plausible,
        "condition": "plausible" if plausible else "implausible",
        "onset": onset,
        "window_end": list(ends),
        "surprise": {"2": list(s), "4": list(s)},
    }


def test_pair_metrics():
    recs = []
    for i in range(10):  # violated twin more surprising after the onset in 8 pairs, tie in 1, less in 1
        late = {0: 0.0, 1: -1.0}.get(i, 1.0 + i)
        recs += [_rec(f"p{i}", True, [1, 1, 1, 1]), _rec(f"p{i}", False, [1, 1, 1 + late, 1 + late])]
    s = metrics.summarize(recs, [2, 4], fixed=4, n_boot=200)
    t = s["tests"][0]
    assert t["pairs"] == 10
    assert t["fixed"]["avg"]["relative"] == pytest.approx((8 + 0.5) / 10)
    lo, hi = t["fixed"]["avg"]["relative_ci"]
    assert lo <= 0.85 <= hi and hi <= 1.0
    assert t["pre_onset"]["exactly_equal"] == 1.0 and t["pre_onset"]["mean_abs_diff"] == 0.0
    assert t["fixed"]["onset"]["relative"] == pytest.approx(0.85)  # the windows that hold the onset (ends 6, 8)
    assert metrics.onset_windows(recs[0]) == [2, 3]
    # a window of 2 frames at step 1 ending at 6 spans frames 5-6 and holds onset 5; the one ending at 8 does not
    assert metrics.onset_windows(dict(recs[0], window=2)) == [2]
    assert metrics.onset_windows(dict(recs[0], onset=9)) == [3]  # none ends after the onset: the last window
    assert metrics.auroc([2, 3], [0, 1]) == 1.0 and metrics.auroc([1], [1]) == 0.5
    # a pre-onset difference is reported
    recs[1]["surprise"]["2"][0] = 1.5
    assert metrics.summarize(recs, [2, 4], fixed=4, n_boot=50)["tests"][0]["pre_onset"]["exactly_equal"] < 1.0


def test_absolute_accuracy_uses_only_plausible_videos_for_the_threshold():
    pairs = [(_rec(f"p{i}", True, [i / 10] * 4), _rec(f"p{i}", False, [5.0] * 4)) for i in range(10)]
    # every violated video (5.0) is above any threshold; the two highest plausible ones (0.8, 0.9) lie above the
    # 90% quantile of the other nine, so 8 of 10 plausible videos are called plausible
    assert metrics.absolute_accuracy(pairs, 2, "avg", 0.9) == pytest.approx(0.5 * (0.8 + 1.0))


def test_evaluate_vjepa2_end_to_end(paired_set, tiny_folder, tmp_path):
    from voebench.cli import main

    out = str(tmp_path / "run")
    assert (
        main(
            [
                "evaluate",
                paired_set,
                "--model",
                f"vjepa2:{tiny_folder}",
                "--out",
                out,
                "--no-progress",
                "--device",
                "cpu",
                "--windows-per-batch",
                "5",
                *SMALL,
            ]
        )
        == 0
    )
    lines = [json.loads(x) for x in open(os.path.join(out, "surprise.jsonl"))]
    assert len(lines) == 4
    for r in lines:
        assert r["onset"] == ONSET and r["frame_step"] == 1
        assert len(r["window_end"]) == len(range(0, N_FRAMES - 8 + 1, 2))
        assert set(r["surprise"]) == {"2", "4", "6"}
        assert all(len(v) == len(r["window_end"]) for v in r["surprise"].values())
    res = json.load(open(os.path.join(out, "results.json")))
    t = res["tests"][0]
    assert t["pairs"] == 2 and 0 <= t["fixed"]["avg"]["relative"] <= 1
    assert t["pre_onset"]["pairs"] == 2 and t["pre_onset"]["exactly_equal"] == 1.0  # same frames, same surprise
    assert res["run"]["model"]["kind"] == "vjepa2" and res["run"]["throughput"]["pairs_per_s"] > 0
    assert os.path.isfile(os.path.join(out, "report.md"))
    pytest.importorskip("matplotlib")
    assert os.path.isfile(os.path.join(out, "curves.png"))
    # batching packs windows of several videos: the numbers do not depend on the batch size
    out1 = str(tmp_path / "run1")
    assert (
        main(
            [
                "evaluate",
                paired_set,
                "--model",
                f"vjepa2:{tiny_folder}",
                "--out",
                out1,
                "--no-progress",
                "--device",
                "cpu",
                "--windows-per-batch",
                "1",
                *SMALL,
            ]
        )
        == 0
    )
    again = {json.loads(x)["id"]: json.loads(x) for x in open(os.path.join(out1, "surprise.jsonl"))}
    for r in lines:
        np.testing.assert_allclose(r["surprise"]["4"], again[r["id"]]["surprise"]["4"], rtol=1e-4, atol=1e-6)
    # `voebench report` recomputes a surprise run's tables
    assert main(["report", out]) == 0


def test_evaluate_vjepa2_refusals(paired_set, tmp_path):
    from voebench.cli import main

    out = str(tmp_path / "r")
    base = ["evaluate", paired_set, "--out", out, "--no-progress", "--device", "cpu"]
    assert main([*base, "--model", "vjepa2-random:huge"]) == 2
    assert (
        main(
            [
                *base,
                "--model",
                "vjepa2-random:tiny",
                "--context-lengths",
                "3",
                "--fixed-context",
                "3",
                "--window",
                "8",
                "--frame-step",
                "1",
            ]
        )
        == 2
    )  # 3 frames do not fill whole tubelets
    assert main([*base, "--model", "vjepa2-random:tiny", "--frame-step", "4"]) == 2  # 6 frames < one window
    assert not os.path.exists(os.path.join(out, "results.json"))


def test_train_tiny_world_model(paired_set, tmp_path):
    pytest.importorskip("transformers")
    from voebench.evaluate.surprise import train
    from voebench.evaluate.surprise.vjepa2 import VJEPA2Scorer
    from voebench.evaluate.tasks import load_manifest

    m = load_manifest(paired_set)
    es = train.plausible_entries(m.entries)
    assert {e["condition"] for e in es} == {"plausible"}
    with pytest.raises(ValueError, match="both the training and the test set"):
        train.check_disjoint(es, m.entries)
    proto = Protocol(window=8, context_lengths=(2, 4, 6), fixed_context=4, frame_step=1)
    videos = train.load_videos(m, es, proto)
    assert len(videos) == 2 and videos[0].shape == (N_FRAMES, SIZE, SIZE, 3)
    info = train.train_world_model(
        videos, str(tmp_path / "wm"), proto, preset="tiny", steps=4, batch=2, device="cpu", log_every=1
    )
    assert info["steps"] == 4 and len(info["log"]) == 4 and np.isfinite(info["log"][-1]["loss"])
    scorer = VJEPA2Scorer.from_pretrained(str(tmp_path / "wm"), device="cpu")
    s = scorer.surprise(videos[0][None, :8], [2, 4])
    assert s.shape == (1, 2) and np.isfinite(s).all()
