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

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from voebench.contract import avoe_labels as L

MODELS = ("ofpr", "of", "direct", "random")
MODEL_TITLES = {"ofpr": "OFPR-Net", "of": "OF-Net", "direct": "3D-ResNet direct", "random": "Random"}


class MLPHead(nn.Module):
    """in -> in/2 -> in/4 -> in/8 -> out (700 -> 350 -> 175 -> 87 -> out), ReLU between layers."""

    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        d1, d2, d3 = in_dim // 2, in_dim // 4, in_dim // 8
        self.net = nn.Sequential(
            nn.Linear(in_dim, d1),
            nn.ReLU(inplace=True),
            nn.Linear(d1, d2),
            nn.ReLU(inplace=True),
            nn.Linear(d2, d3),
            nn.ReLU(inplace=True),
            nn.Linear(d3, out_dim),
        )

    def forward(self, x):
        return self.net(x)


@dataclass(frozen=True)
class HeadSpec:
    name: str
    loss: str  # "mse", "ce" or "bce"
    n_out: int
    target: str  # "features", "posterior_rules" or "surprising"
    column: int  # column in the target tensor (0 for "surprising")
    categories: tuple[str, ...]


def head_specs(model: str) -> list[HeadSpec]:
    posterior = [
        HeadSpec(f"posterior:{r.name}", "ce", r.n_classes, "posterior_rules", i, r.categories)
        for i, r in enumerate(L.POSTERIOR_RULES)
    ]
    if model == "ofpr":
        feats = [
            HeadSpec(
                f"feature:{f.name}",
                "mse" if f.head == "regression" else "ce",
                1 if f.head == "regression" else f.n_classes,
                "features",
                f.index,
                f.categories,
            )
            for f in L.MODEL_FEATURES
        ]
        return feats + posterior
    if model == "of":
        return posterior
    if model == "direct":
        return [HeadSpec("surprise", "bce", 1, "surprising", 0, L.CATEGORIES)]
    raise ValueError(f"no network for model {model!r}")


class HeadBank(nn.Module):
    """H independent heads, each an MLP in -> in/2 -> in/4 -> in/8 -> n_out[h] with ReLU between layers (the same
    maths as H separate :class:`MLPHead` modules), evaluated together with one batched matmul per layer instead
    of 4 x H small kernels. Head h's output is ``forward(z)[:, h, :n_out[h]]``; the padding columns of the last
    layer are never read, so they get no gradient."""

    def __init__(self, in_dim: int, n_outs: list[int]):
        super().__init__()
        self.n_outs = list(n_outs)
        h = len(n_outs)
        dims = [in_dim, in_dim // 2, in_dim // 4, in_dim // 8, max(n_outs)]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for a, b in zip(dims[:-1], dims[1:]):
            bound = 1.0 / math.sqrt(a)  # nn.Linear's default initialisation
            self.weights.append(nn.Parameter(torch.empty(h, a, b).uniform_(-bound, bound)))
            self.biases.append(nn.Parameter(torch.empty(h, 1, b).uniform_(-bound, bound)))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """z: (B, in) -> (B, H, max n_out)."""
        x = z.unsqueeze(0).expand(len(self.n_outs), -1, -1)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = torch.baddbmm(b, x, w)
            if i < last:
                x = F.relu(x)
        return x.transpose(0, 1)


class BaselineNet(nn.Module):
    """backbone -> heads. ``forward(clips)`` or ``forward_embedding(z)`` (for a frozen backbone's cached output)
    returns {head name: (B, n_out) float32} plus ``"_all"``, the packed (B, H, K) output the loss uses."""

    def __init__(self, model: str, backbone: nn.Module, embed_dim: int | None = None):
        super().__init__()
        self.model = model
        self.backbone = backbone
        dim = embed_dim if embed_dim is not None else int(getattr(backbone, "out_dim", 700))
        self.specs = head_specs(model)
        self.heads = HeadBank(dim, [s.n_out for s in self.specs])
        # index tensors that let compute_loss treat all heads of one loss type at once
        groups = {}
        for loss in ("mse", "ce", "bce"):
            hs = [i for i, s in enumerate(self.specs) if s.loss == loss]
            groups[loss] = hs
        self._groups = groups
        k = max(s.n_out for s in self.specs)
        valid = torch.zeros(len(groups["ce"]), k, dtype=torch.bool)
        for j, i in enumerate(groups["ce"]):
            valid[j, : self.specs[i].n_out] = True
        self.register_buffer("_ce_valid", valid, persistent=False)
        for loss, hs in groups.items():
            self.register_buffer(f"_{loss}_heads", torch.tensor(hs, dtype=torch.long), persistent=False)
            for key in ("features", "posterior_rules", "surprising"):
                cols = [self.specs[i].column for i in hs if self.specs[i].target == key]
                self.register_buffer(f"_{loss}_{key}_cols", torch.tensor(cols, dtype=torch.long), persistent=False)
        # the CE targets are gathered as [feature columns, posterior columns]: heads must come in that order
        ce_keys = [self.specs[i].target for i in groups["ce"]]
        assert ce_keys == sorted(ce_keys, key=lambda t: t != "features")
        self._relevance_cache: dict = {}

    def relevance(self, category: str | None, device) -> torch.Tensor:
        """(H,) 1.0 for heads whose loss counts (all, or those relevant to ``category``)."""
        key = (category, str(device))
        if key not in self._relevance_cache:
            self._relevance_cache[key] = torch.tensor(
                [1.0 if category is None or category in s.categories else 0.0 for s in self.specs], device=device
            )
        return self._relevance_cache[key]

    def forward_embedding(self, z: torch.Tensor) -> dict[str, torch.Tensor]:
        packed = self.heads(z).float()
        out = {s.name: packed[:, i, : s.n_out] for i, s in enumerate(self.specs)}
        out["_all"] = packed
        return out

    def forward(self, clips: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.forward_embedding(self.backbone(clips))


def compute_loss(
    net: BaselineNet, out: dict[str, torch.Tensor], batch: dict[str, torch.Tensor], category: str | None = None
) -> torch.Tensor:
    """Sum over heads of MSE (regression), cross-entropy (classes) and BCE (direct), each averaged over the
    batch; with ``category`` only the heads relevant to it count."""
    packed = out["_all"]
    rel = net.relevance(category, packed.device)
    total = packed.new_zeros(())
    if len(net._mse_heads):
        pred = packed[:, net._mse_heads, 0]
        tgt = batch["features"][:, net._mse_features_cols].float()
        total = total + (((pred - tgt) ** 2).mean(0) * rel[net._mse_heads]).sum()
    if len(net._ce_heads):
        logits = packed[:, net._ce_heads, :].masked_fill(~net._ce_valid, -1e4)
        tgt = torch.cat(
            [
                batch["features"][:, net._ce_features_cols].long(),
                batch["posterior_rules"][:, net._ce_posterior_rules_cols].long(),
            ],
            1,
        )
        b, h, k = logits.shape
        ce = F.cross_entropy(logits.reshape(b * h, k), tgt.reshape(b * h), reduction="none").view(b, h).mean(0)
        total = total + (ce * rel[net._ce_heads]).sum()
    if len(net._bce_heads):
        pred = packed[:, net._bce_heads, 0]
        tgt = batch["surprising"].float().unsqueeze(1).expand_as(pred)
        bce = F.binary_cross_entropy_with_logits(pred, tgt, reduction="none").mean(0)
        total = total + (bce * rel[net._bce_heads]).sum()
    return total


def compute_loss_per_head(
    net: BaselineNet, out: dict[str, torch.Tensor], batch: dict[str, torch.Tensor], category: str | None = None
) -> torch.Tensor:
    """The same loss written head by head (the readable reference; tests check the two agree)."""
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
