"""What OFPR-Net's reasoning stage can reach with perfect (or noisy) perception: its decision trees fed the
ground-truth features of the test videos instead of the network's predictions. No network, no GPU.

This splits a gap between our hit rates and the published ones into perception (the object-file heads reading
features from pixels) and reasoning (the trees and what the labels let them learn): where the oracle itself is
low, no backbone closes the gap; where the oracle is high and the trained model is not, perception is the cause.
"""

from __future__ import annotations

import numpy as np

from voebench.contract import avoe_labels as L

from .metrics import all_metrics
from .splits import Splits
from .trees import PhysicalReasoning

# Which of the 24 model features are classes (shapes, directions, booleans); the rest are scalars (-1 irrelevant).
CLASS_FEATURES = np.array([f.head == "classification" for f in L.MODEL_FEATURES])


def noisy_features(features: np.ndarray, scale: float, rng: np.random.Generator, flip: float = 0.0) -> np.ndarray:
    """Ground-truth features with perception errors: relevant scalars get Gaussian noise of ``scale`` times the
    feature's spread over the given videos (kept >= 0); relevant class features are replaced by another class
    with probability ``flip``. Irrelevant entries stay as they are (the heads learn those easily)."""
    f = features.astype(np.float64).copy()
    scalar = ~CLASS_FEATURES
    relevant = f >= 0
    sd = np.array([f[relevant[:, j], j].std() if relevant[:, j].any() else 0.0 for j in range(f.shape[1])])
    noise = rng.normal(size=f.shape) * sd[None, :] * scale
    mask = relevant & scalar[None, :]
    f[mask] = np.maximum(f[mask] + noise[mask], 0.0)
    if flip > 0:
        for j in np.nonzero(CLASS_FEATURES)[0]:
            n_cls = len(L.MODEL_FEATURES[j].classes)
            irrelevant = n_cls  # the extra class index (AVoEDataset's encoding)
            rows = np.nonzero((f[:, j] != irrelevant) & (rng.random(len(f)) < flip))[0]
            for i in rows:
                choices = [k for k in range(n_cls) if k != int(f[i, j])]
                if choices:
                    f[i, j] = choices[int(rng.integers(len(choices)))]
    return f


def oracle_metrics(data: Splits, scale: float = 0.0, flip: float = 0.0, seed: int = 0) -> dict:
    """Test metrics of the trees (fitted as OFPR-Net fits them: ground truth of the expected training videos)
    fed the test videos' ground-truth features, with perception noise ``scale`` / ``flip`` (0 = perfect)."""
    train, test = data["train"], data["test"]
    if train is None or test is None:
        raise ValueError("oracle needs train and test videos")
    exp = (train.surprising == 0).numpy()
    trees = PhysicalReasoning(random_state=seed).fit(
        train.features.numpy()[exp], train.prior_rules.numpy()[exp], train.posterior_rules.numpy()[exp]
    )
    feats = test.features.numpy()
    if scale > 0 or flip > 0:
        feats = noisy_features(feats, scale, np.random.default_rng(seed), flip)
    scores = trees.surprise(feats, test.posterior_rules.numpy())
    return all_metrics(scores, test.surprising.numpy(), test.pair_ids)


def constant_metrics(data: Splits) -> dict:
    """Test metrics of a collapsed object-file stage: every test video gets the posterior rules most common among
    the expected training videos (what OF-Net or OFPR-Net output when their heads ignore the pixels). A video is
    surprising when its observed rules differ, so the hit rate is the share of test pairs whose expected outcome
    is that most common one."""
    train, test = data["train"], data["test"]
    if train is None or test is None:
        raise ValueError("needs train and test videos")
    exp = train.posterior_rules.numpy()[(train.surprising == 0).numpy()]
    rows, counts = np.unique(exp, axis=0, return_counts=True)
    constant = rows[int(np.argmax(counts))]
    scores = (test.posterior_rules.numpy() != constant[None, :]).any(1).astype(np.float64)
    return all_metrics(scores, test.surprising.numpy(), test.pair_ids)
