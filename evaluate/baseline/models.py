"""OFPR-Net, OF-Net, the direct 3D-ResNet surprise classifier and the random baseline.

All networks are a 3D ResNet backbone (-> 700-d) followed by feed-forward heads 700 -> 350 -> 175 -> 87 -> k with
ReLU in between, as in the original:

- ``ofpr``: the object-file stage of OFPR-Net, one head per model feature (24): regression heads for scalars
  (target -1 when irrelevant), classification heads for classes (with the extra ``irrelevant`` class); plus 9
  posterior-rule heads as the original (used only for the non-oracle score). The physical-reasoning stage is in
  ``trees.py``.
- ``of``: OF-Net, the ablation without object files: 9 posterior-rule heads (3 classes each), compared with the
  observed posterior rules.
- ``direct``: one logit, trained with binary cross-entropy against expected (0) / surprising (1).
- ``random``: U(0, 1) scores, no network.

From epoch ``warmup_epochs`` on, only the heads relevant to the trained category enter the loss (the original
switched at epoch index 10).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from . import labels as L

MODELS = ("ofpr", "of", "direct", "random")
MODEL_TITLES = {"ofpr": "OFPR-Net", "of": "OF-Net", "direct": "3D-ResNet direct", "random": "Random"}


class MLPHead(nn.Module):
    """in -> in/2 -> in/4 -> in/8 -> out (700 -> 350 -> 175 -> 87 -> out), ReLU between layers."""

    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        d1, d2, d3 = in_dim // 2, in_dim // 4, in_dim // 8
        self.net = nn.Sequential(nn.Linear(in_dim, d1), nn.ReLU(inplace=True), nn.Linear(d1, d2),
                                 nn.ReLU(inplace=True), nn.Linear(d2, d3), nn.ReLU(inplace=True), nn.Linear(d3, out_dim))

    def forward(self, x):
        return self.net(x)


@dataclass(frozen=True)
class HeadSpec:
    name: str
    loss: str          # "mse", "ce" or "bce"
    n_out: int
    target: str        # "features", "posterior_rules" or "surprising"
    column: int        # column in the target tensor (0 for "surprising")
    categories: tuple[str, ...]


def head_specs(model: str) -> list[HeadSpec]:
    posterior = [HeadSpec(f"posterior:{r.name}", "ce", r.n_classes, "posterior_rules", i, r.categories)
                 for i, r in enumerate(L.POSTERIOR_RULES)]
    if model == "ofpr":
        feats = [HeadSpec(f"feature:{f.name}", "mse" if f.head == "regression" else "ce",
                          1 if f.head == "regression" else f.n_classes, "features", f.index, f.categories)
                 for f in L.MODEL_FEATURES]
        return feats + posterior
    if model == "of":
        return posterior
    if model == "direct":
        return [HeadSpec("surprise", "bce", 1, "surprising", 0, L.CATEGORIES)]
    raise ValueError(f"no network for model {model!r}")


class BaselineNet(nn.Module):
    """backbone -> heads. ``forward(clips)`` or ``forward_embedding(z)`` (for a frozen backbone's cached output)
    returns {head name: (B, n_out) float32}."""

    def __init__(self, model: str, backbone: nn.Module, embed_dim: int | None = None):
        super().__init__()
        self.model = model
        self.backbone = backbone
        dim = embed_dim or getattr(backbone, "out_dim", 700)
        self.specs = head_specs(model)
        self.heads = nn.ModuleDict({s.name.replace(":", "__"): MLPHead(dim, s.n_out) for s in self.specs})

    def forward_embedding(self, z: torch.Tensor) -> dict[str, torch.Tensor]:
        return {s.name: self.heads[s.name.replace(":", "__")](z).float() for s in self.specs}

    def forward(self, clips: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.forward_embedding(self.backbone(clips))


def compute_loss(net: BaselineNet, out: dict[str, torch.Tensor], batch: dict[str, torch.Tensor],
                 category: str | None = None) -> torch.Tensor:
    """Sum of MSE (regression), cross-entropy (classes) and BCE (direct) over heads; with ``category`` only the
    heads relevant to it."""
    total = 0.0
    for s in net.specs:
        if category is not None and category not in s.categories:
            continue
        pred = out[s.name]
        tgt = batch[s.target]
        tgt = tgt[:, s.column] if tgt.dim() == 2 else tgt
        if s.loss == "mse":
            total = total + F.mse_loss(pred[:, 0], tgt.float())
        elif s.loss == "ce":
            total = total + F.cross_entropy(pred, tgt.long())
        else:
            total = total + F.binary_cross_entropy_with_logits(pred[:, 0], tgt.float())
    return total


@torch.no_grad()
def predicted_features(out: dict[str, torch.Tensor]) -> torch.Tensor:
    """(B, 24) feature vectors in labels.feature_vector's encoding from an ``ofpr`` network's outputs."""
    cols = []
    for f in L.MODEL_FEATURES:
        o = out[f"feature:{f.name}"]
        cols.append(o[:, 0] if f.head == "regression" else o.argmax(1).float())
    return torch.stack(cols, 1)


@torch.no_grad()
def predicted_posteriors(out: dict[str, torch.Tensor]) -> torch.Tensor:
    """(B, 9) posterior-rule class indices from the posterior heads."""
    return torch.stack([out[f"posterior:{r.name}"].argmax(1) for r in L.POSTERIOR_RULES], 1)


def random_scores(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(int(seed))
    return torch.rand(n, generator=g, dtype=torch.float64)
