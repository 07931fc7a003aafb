"""The V-JEPA 2 surprise scorer: transformers' `VJEPA2Model` (encoder + predictor).

For a batch of windows (B, T, H, W, 3) uint8 and each context length C:
- the target: the encoder's tokens of the whole window, layer-normalised over the feature dimension (the
  reference protocol normalises targets again although the encoder ends with a LayerNorm);
- the context: the encoder run on the first C frames alone, so the context tokens never saw the future (calling
  `VJEPA2Model.forward` with a `context_mask` would encode the whole window and pick tokens from it: every token
  would have attended to the frames it should predict);
- the prediction: the predictor given the context tokens (`context_mask` = their indices) asked for every token of
  the remaining frames (`target_mask`);
- surprise = mean L1 distance between prediction and target over those tokens and features.

Tokens are ordered tubelet-major (the patch embedding is a Conv3d whose output is flattened as T', H', W'), so the
first C / tubelet_size * (crop / patch)^2 tokens are exactly the first C frames; `tests/evaluate` checks this.
Frames: the central square of each frame (side = the shorter edge, offset (edge difference) // 2) is cut out, then
resized to the model's `crop_size` (bilinear, antialiased) and normalised with ImageNet's mean and std. This is the
reference's evaluation transform (random_resized_crop with scale 1 and ratio 1 falls back to that central square)
and, up to a margin, transformers' `VJEPA2VideoProcessor` (shorter edge to crop * 256/224, then the central crop:
it also drops the outer 12.5% of the square). A frame is never squashed: a 16:9 or 4:3 frame loses its left and
right borders, as with both.

Self-trained models have two encoders (checkpoint.py): the EMA (target) encoder, `model.encoder`, gives the
targets; the online encoder the predictor was trained with encodes the context (`context_encoder`).
"""

from __future__ import annotations

import os

import numpy as np
import torch
import torch.nn.functional as F

from voebench.evaluate.surprise.protocol import center_square, square_box  # noqa: F401  (square_box: re-exported)

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

#: A tiny configuration for tests and CPU smoke runs (a few hundred thousand parameters).
TINY = dict(
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    crop_size=32,
    patch_size=8,
    frames_per_clip=16,
    pred_hidden_size=32,
    pred_num_hidden_layers=2,
    pred_num_attention_heads=2,
    mlp_ratio=2.0,
    pred_mlp_ratio=2.0,
)
#: The released V-JEPA 2 ViT-L (transformers' default config, 326M parameters with its predictor) at 256 px.
VITL = dict(frames_per_clip=16)
#: The ViT-L architecture at 128 px (8 x 8 patches per frame): the random-weight control for 64-px renders, with
#: 4x fewer tokens than at 256 px (bench/world_model_seeds.py).
VITL_128 = dict(frames_per_clip=16, crop_size=128)
#: The small world model trained on voebench's plausible videos (bench/world_model_experiment.py).
SMALL = dict(
    hidden_size=192,
    num_hidden_layers=6,
    num_attention_heads=3,
    crop_size=64,
    patch_size=8,
    frames_per_clip=16,
    pred_hidden_size=128,
    pred_num_hidden_layers=4,
    pred_num_attention_heads=4,
)
#: The small world model at 128 px with 16-px patches (the same 8 x 8 tokens per frame as `small` at 64 px, from
#: frames with 4x the pixels): the self-trained model of issue 30 (bench/world_model_train.py).
SMALL_128 = dict(SMALL, crop_size=128, patch_size=16)
PRESETS: dict[str, dict] = {"tiny": TINY, "vitl": VITL, "vitl-128": VITL_128, "small": SMALL, "small-128": SMALL_128}


def random_model(preset: str | dict = "tiny", seed: int = 0):
    """A randomly initialised VJEPA2Model from a preset name or config keywords (no download)."""
    from transformers import VJEPA2Config, VJEPA2Model

    kw = PRESETS[preset] if isinstance(preset, str) else preset
    torch.manual_seed(seed)
    return VJEPA2Model(VJEPA2Config(**kw)).eval()


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class VJEPA2Scorer:
    """Surprise of windows under a V-JEPA 2 model. `dtype`: bfloat16 autocast on CUDA by default (the reference
    protocol runs in bf16); float32 on CPU."""

    def __init__(
        self,
        model,
        device: str = "auto",
        dtype: str = "auto",
        name: str = "vjepa2",
        context_encoder=None,
        encoders: str = "single",
    ):
        self.device = resolve_device(device)
        if dtype == "auto":
            dtype = "bfloat16" if self.device.type == "cuda" else "float32"
        self.autocast_dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": None}[dtype]
        self.dtype_name = dtype
        self.model = model.to(self.device).eval()
        #: the online encoder for the context (None: `model.encoder` serves both roles); see checkpoint.py
        self.context_encoder = context_encoder.to(self.device).eval() if context_encoder is not None else None
        self.encoders = encoders
        cfg = model.config
        self.crop = int(cfg.crop_size)
        self.tubelet = int(cfg.tubelet_size)
        self.patch = int(cfg.patch_size)
        self.name = name
        self.mean = torch.tensor(IMAGENET_MEAN, device=self.device).view(1, 1, 3, 1, 1)
        self.std = torch.tensor(IMAGENET_STD, device=self.device).view(1, 1, 3, 1, 1)

    @classmethod
    def from_pretrained(cls, path_or_id: str, device: str = "auto", dtype: str = "auto") -> VJEPA2Scorer:
        """A checkpoint folder or a Hub id (e.g. facebook/vjepa2-vitl-fpc64-256); a self-trained folder's online
        encoder encodes the context (checkpoint.load, which warns about an old folder without it)."""
        from voebench.evaluate.surprise import checkpoint

        model, online, encoders = checkpoint.load(path_or_id)
        return cls(
            model,
            device=device,
            dtype=dtype,
            name=os.path.basename(os.path.normpath(path_or_id)),
            context_encoder=online,
            encoders=encoders,
        )

    def check(self, window: int, context_lengths) -> None:
        """Refuse a protocol the model cannot run (frames that do not fill whole tubelets)."""
        bad = [c for c in (window, *context_lengths) if c % self.tubelet]
        if bad:
            raise ValueError(f"window and context lengths must be multiples of the tubelet size {self.tubelet}: {bad}")

    def info(self) -> dict:
        n = sum(p.numel() for p in self.model.parameters())
        return {
            "kind": "vjepa2",
            "name": self.name,
            "parameters": n,
            "crop_size": self.crop,
            "patch_size": self.patch,
            "tubelet_size": self.tubelet,
            "dtype": self.dtype_name,
            "device": str(self.device),
            "encoders": self.encoders,
            "preprocess": "center-square-crop+resize",
        }

    def preprocess(self, clips: np.ndarray | torch.Tensor) -> torch.Tensor:
        """(B, T, H, W, 3) uint8 -> (B, T, 3, crop, crop) normalised float on the device: the central square of
        each frame (`square_box`), resized to the model's crop size."""
        x = center_square(torch.as_tensor(clips)).to(self.device, non_blocking=True)
        b, t, side, _, _ = x.shape
        x = x.permute(0, 1, 4, 2, 3).float().div_(255.0)
        if side != self.crop:
            x = F.interpolate(
                x.flatten(0, 1), size=(self.crop, self.crop), mode="bilinear", antialias=True, align_corners=False
            ).view(b, t, 3, self.crop, self.crop)
        return (x - self.mean) / self.std

    def visible(self, video):
        """What of a (T, H, W, 3) video the model sees before resizing: the central square of each frame."""
        return center_square(video)

    def _autocast(self):
        if self.autocast_dtype is None:
            return torch.autocast(self.device.type, enabled=False)
        return torch.autocast(self.device.type, dtype=self.autocast_dtype)

    @torch.no_grad()
    def surprise(self, clips, context_lengths) -> np.ndarray:
        """(B, len(context_lengths)) surprise of each window for each context length."""
        x = self.preprocess(clips)
        s = window_surprise(self.model, x, context_lengths, self._autocast, context_encoder=self.context_encoder)
        return s.float().cpu().numpy()


def _no_autocast(device_type: str):
    return lambda: torch.autocast(device_type, enabled=False)


def targets(encoder, x: torch.Tensor, autocast=None) -> torch.Tensor:
    """The target encoder's tokens of whole windows x (B, T, 3, H, W), layer-normed over features, float32."""
    with (autocast or _no_autocast(x.device.type))():
        full = encoder(pixel_values_videos=x).last_hidden_state
    return F.layer_norm(full.float(), (full.shape[-1],))


def prediction_error(
    model, target: torch.Tensor, x: torch.Tensor, context: int, autocast=None, encoder=None
) -> torch.Tensor:
    """(B, N_target) mean L1 error per predicted token: the context encoder (`encoder`, default `model.encoder`)
    sees the first `context` frames alone, `model.predictor` predicts every token of the remaining frames,
    compared with `target` (from `targets`, the target encoder's tokens)."""
    B, T = x.shape[:2]
    per_step = target.shape[1] // (T // model.config.tubelet_size)  # tokens per tubelet (time step)
    n_ctx = (context // model.config.tubelet_size) * per_step
    idx = torch.arange(target.shape[1], device=x.device)
    with (autocast or _no_autocast(x.device.type))():
        ctx = (encoder or model.encoder)(pixel_values_videos=x[:, :context]).last_hidden_state
        pred = model.predictor(
            encoder_hidden_states=ctx,
            context_mask=[idx[:n_ctx].unsqueeze(0).expand(B, -1)],
            target_mask=[idx[n_ctx:].unsqueeze(0).expand(B, -1)],
        ).last_hidden_state
    return (pred.float() - target[:, n_ctx:]).abs().mean(-1)


def window_surprise(model, x: torch.Tensor, context_lengths, autocast=None, context_encoder=None) -> torch.Tensor:
    """(B, len(context_lengths)) surprise of preprocessed windows x (B, T, 3, H, W): the mean over predicted tokens
    of `prediction_error`. The targets come from `model.encoder` (the EMA encoder of a self-trained model; one pass
    per window, shared by all context lengths), the context from `context_encoder` (the online encoder; None: the
    same `model.encoder`). Training (train.py) minimises the same `prediction_error` with the same two roles."""
    tgt = targets(model.encoder, x, autocast)
    return torch.stack(
        [prediction_error(model, tgt, x, c, autocast, encoder=context_encoder).mean(1) for c in context_lengths], 1
    )
