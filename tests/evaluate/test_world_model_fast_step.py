"""The training step without device syncs (issue 30): the same weights as the step it replaced.

train.py's step was made to keep a GPU busy: the window draws travel in one non-blocking copy, the targets'
spread is computed only on logged steps, the EMA update is one foreach call per operation, the rotary tables are
computed once per shape (rope.py). None of this may change
what is learned: here the step as it was before (written out below, one device copy per draw, a float read of the
spread every step, a Python loop over the EMA parameters) is run beside `train_world_model` on the CPU, and every
weight of both encoders and the predictor must be equal, bit for bit, as must the logged losses and spreads.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from safetensors.torch import load_file  # noqa: E402

from voebench.evaluate.surprise import train  # noqa: E402
from voebench.evaluate.surprise.protocol import Protocol  # noqa: E402
from voebench.evaluate.surprise.vjepa2 import VJEPA2Scorer, prediction_error, random_model, targets  # noqa: E402

STEPS, BATCH, SEED, LR = 5, 3, 7, 5e-4


def _videos() -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.integers(0, 256, (n, 24, 32, 3), dtype=np.uint8) for n in (18, 20, 25)]


def _legacy(videos: list[np.ndarray], protocol: Protocol) -> tuple[dict, list[tuple[float, float]]]:
    """The training loop of commit 3355135 (before the sync-free step), reduced to what decides the weights."""
    model = random_model("tiny", SEED).train()
    scorer = VJEPA2Scorer(model, device="cpu")
    target = copy.deepcopy(model.encoder).eval()
    for p in target.parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.04, betas=(0.9, 0.95))
    warmup = max(1, STEPS // 10)
    lengths = np.array([len(v) for v in videos])
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    frames = torch.from_numpy(np.concatenate(videos))
    n_starts = lengths - protocol.window + 1
    p_video = n_starts / n_starts.sum()
    srng, rng = np.random.default_rng(SEED), np.random.default_rng(SEED + 1)
    log = []
    model.train()
    for i in range(STEPS):
        for g in opt.param_groups:
            g["lr"] = (
                LR * (i + 1) / warmup
                if i < warmup
                else LR * 0.5 * (1 + math.cos(math.pi * (i - warmup) / max(1, STEPS - warmup)))
            )
        v = srng.choice(len(lengths), size=BATCH, p=p_video)
        s = offsets[v] + (srng.random(BATCH) * n_starts[v]).astype(np.int64)
        clips = frames[torch.from_numpy(s[:, None] + np.arange(protocol.window)[None, :])]
        flip = torch.from_numpy(srng.random(BATCH) < 0.5)
        x = scorer.preprocess(torch.where(flip[:, None, None, None, None], clips.flip(3), clips))
        c = int(rng.choice(list(protocol.context_lengths)))
        with torch.no_grad():
            tgt = targets(target, x, scorer._autocast)
        loss = prediction_error(model, tgt, x, c, scorer._autocast).mean()
        spread = float(tgt.std(1).mean())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        m = 0.99 + (0.999 - 0.99) * i / max(1, STEPS - 1)
        with torch.no_grad():
            for pt, po in zip(target.parameters(), model.encoder.parameters()):
                pt.mul_(m).add_(po.detach(), alpha=1 - m)
        log.append((float(loss.detach()), spread))
    weights = {"online." + k: v for k, v in model.encoder.state_dict().items()}
    weights.update({"target." + k: v for k, v in target.state_dict().items()})
    weights.update({"predictor." + k: v for k, v in model.predictor.state_dict().items()})
    return weights, log


def test_the_sync_free_step_learns_the_same_weights_as_before(tmp_path):
    protocol = Protocol()
    old, old_log = _legacy(_videos(), protocol)
    info = train.train_world_model(
        _videos(), str(tmp_path), protocol, preset="tiny", steps=STEPS, batch=BATCH, lr=LR, device="cpu",
        seed=SEED, log_every=1,
    )  # fmt: skip
    saved = load_file(str(tmp_path / "model.safetensors"))  # EMA encoder + predictor
    new = {"online." + k: v for k, v in load_file(str(tmp_path / "online_encoder.safetensors")).items()}
    new.update({"target." + k[len("encoder.") :]: v for k, v in saved.items() if k.startswith("encoder.")})
    new.update({k: v for k, v in saved.items() if k.startswith("predictor.")})
    assert new.keys() == old.keys()
    differ = [k for k in old if not torch.equal(old[k], new[k])]
    assert not differ, differ[:5]
    assert [(e["loss"], e["target_spread"]) for e in info["log"]] == old_log
    assert info["adamw"] == "for-loop"  # fused AdamW is for CUDA only
    assert info["rotary"] == "cached"  # the rotary tables of rope.py were in use, and changed nothing


def test_a_logged_step_only_reads_the_spread(tmp_path):
    """With log_every=2 the spread is computed on steps 0, 2, 4 (and the last) and nowhere else."""
    info = train.train_world_model(
        _videos(), str(tmp_path), Protocol(), preset="tiny", steps=STEPS, batch=BATCH, device="cpu", seed=SEED,
        log_every=2,
    )  # fmt: skip
    assert [e["step"] for e in info["log"]] == [0, 2, 4]
    assert all(isinstance(e["target_spread"], float) and e["target_spread"] > 0 for e in info["log"])


def test_the_sampler_draws_what_it_gathers():
    """A batch is the windows its draws name: first frame, 16 consecutive frames, mirrored where flagged."""
    videos = _videos()
    a = train.WindowSampler(videos, 16, torch.device("cpu"), seed=5)
    b = train.WindowSampler(videos, 16, torch.device("cpu"), seed=5)
    draws = a.draw(64)
    clips = b.sample(64).numpy()
    frames = np.concatenate(videos)
    assert set(np.unique(draws[:, 1])) == {0, 1}  # both cases occur in 64 draws
    for (first, flip), clip in zip(draws, clips):
        want = frames[first : first + 16]
        assert np.array_equal(clip, want[:, :, ::-1] if flip else want)
    starts = np.concatenate([[0], np.cumsum([len(v) for v in videos])])
    video = np.searchsorted(starts, draws[:, 0], side="right") - 1
    assert np.all(draws[:, 0] + 16 <= starts[video + 1])  # no window runs into the next video
