"""The folder of a self-trained world model: both encoders of V-JEPA, saved so that scoring uses each in its role.

V-JEPA trains an *online* (context) encoder by gradient and keeps an *EMA* (target) encoder, a moving average of
it that gives the targets. The predictor learns to map the online encoder's context tokens to the EMA encoder's
target tokens, so scoring must do the same (facebookresearch/jepa-intuitive-physics: `encoder` for the context,
`target_encoder` for the targets). A folder written by `save` holds:

- `config.json` + `model.safetensors` (transformers' `save_pretrained`): the EMA encoder and the predictor, as the
  released V-JEPA checkpoints hold one encoder; any `VJEPA2Model.from_pretrained` reads it.
- `online_encoder.safetensors`: the online encoder's weights (keys of `VJEPA2Model.encoder.state_dict()`).

`load` returns the model and the context encoder:
- both files: the online encoder scores the context, the EMA encoder the targets (`encoders` = "online+ema");
- a folder voebench trained before both encoders were saved (a `train.json`, no online file): loaded with an
  `OldCheckpointWarning`, the EMA encoder serving both roles as before ("ema-only"); its numbers are those
  docs/world-models.md reported before the fix. Loading (rather than refusing) keeps those runs reproducible;
  the warning and run.json's `encoders` say that the context encoder is not the one the predictor was trained on;
- any other folder or Hub id (released checkpoints, random models saved with `save_pretrained`): one encoder for
  both roles, as published ("single").
"""

from __future__ import annotations

import copy
import os
import warnings

import torch

ONLINE_ENCODER = "online_encoder.safetensors"
#: The training log train.py writes beside the model; its presence marks a folder voebench trained.
TRAIN_LOG = "train.json"


class OldCheckpointWarning(UserWarning):
    """A self-trained folder saved before the online encoder was kept: its context is encoded by the EMA encoder."""


def save(model, online_encoder, target_encoder, out: str) -> None:
    """Write `model` with `target_encoder`'s weights as its encoder (save_pretrained) and `online_encoder`'s
    weights to ONLINE_ENCODER. `model.encoder` is left holding the target weights."""
    from safetensors.torch import save_file

    online = {k: v.detach().to("cpu").contiguous() for k, v in online_encoder.state_dict().items()}
    model.encoder.load_state_dict(target_encoder.state_dict())
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)
    save_file(online, os.path.join(out, ONLINE_ENCODER))


def load(path_or_id: str):
    """(model, context_encoder or None, encoders): `model.encoder` is the target encoder; `context_encoder` is
    the online encoder where the folder has one, else None (the target encoder serves both roles)."""
    from transformers import VJEPA2Model

    model = VJEPA2Model.from_pretrained(path_or_id)
    online_path = os.path.join(path_or_id, ONLINE_ENCODER)
    if os.path.isfile(online_path):
        from safetensors.torch import load_file

        online = copy.deepcopy(model.encoder)
        missing, unexpected = online.load_state_dict(load_file(online_path), strict=False)
        if missing or unexpected:
            raise ValueError(
                f"{online_path}: not an encoder of this model (missing {len(missing)} weights, "
                f"{len(unexpected)} unexpected)"
            )
        return model, online.eval(), "online+ema"
    if os.path.isfile(os.path.join(path_or_id, TRAIN_LOG)):
        warnings.warn(
            f"{path_or_id}: trained by voebench before both encoders were saved (no {ONLINE_ENCODER}); the EMA "
            "encoder encodes the context too, not the online encoder the predictor was trained on: retrain for "
            "scores by the reference protocol",
            OldCheckpointWarning,
            stacklevel=2,
        )
        return model, None, "ema-only"
    return model, None, "single"


def encoder_gap(a: torch.nn.Module, b: torch.nn.Module) -> float:
    """The largest absolute difference between two encoders' weights (0 for the same weights)."""
    sb = b.state_dict()
    return max(float((v.float() - sb[k].float()).abs().max()) for k, v in a.state_dict().items())
