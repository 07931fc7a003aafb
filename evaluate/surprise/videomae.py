"""The VideoMAE surprise scorer: pixel-reconstruction error of transformers' `VideoMAEForPreTraining`.

VideoMAE predicts pixels, not latents. For a window (16 frames) and a context length C, every token of the last
16 - C frames is masked (`bool_masked_pos`): VideoMAE's encoder drops masked tokens before its first layer, so it
sees the first C frames alone (as the V-JEPA context does), and the decoder reconstructs the masked tokens. The
target is what VideoMAE is trained on (`norm_pix_loss`): each tubelet patch of the frames in [0, 1], normalised by
its own mean and (unbiased) standard deviation per colour channel, flattened (tubelet, row, column, channel), as
`VideoMAEForPreTraining` builds its labels. A window's surprise is the mean L1 distance between reconstruction
and target over the masked tokens and their values (the reference's V-JEPA loss, applied to pixels).

The reference (jepa-intuitive-physics, eval.py, `is_mae`) computes the same targets, but then sets the predictions
to zero (`preds = torch.zeros_like(preds)`) before the loss, so its VideoMAE "surprise" is the mean absolute value
of the normalised target patches: a property of the video alone, not of the model. voebench scores the decoder's
reconstruction; `--model motion-energy` is the model-free control.

Frames are preprocessed as for V-JEPA 2 (vjepa2.VJEPA2Scorer.preprocess: the central square, resized to the
model's `image_size`, ImageNet mean and std). `tests/evaluate/test_surprise_videomae.py` checks the targets
against the labels transformers builds (its MSE loss) and that the context is the first C frames.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from voebench.evaluate.surprise.vjepa2 import IMAGENET_MEAN, IMAGENET_STD, VJEPA2Scorer, resolve_device

#: A tiny configuration for tests and CPU smoke runs.
TINY = dict(
    image_size=32,
    patch_size=8,
    num_frames=16,
    tubelet_size=2,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=128,
    decoder_hidden_size=32,
    decoder_num_hidden_layers=1,
    decoder_num_attention_heads=2,
    decoder_intermediate_size=64,
)
#: VideoMAE-B (transformers' default config: 224 px, patch 16, 16 frames; 94M parameters with its decoder).
BASE = dict(num_frames=16)
#: VideoMAE-B's architecture at 128 px (8 x 8 patches per frame), for 64-px renders: 3.5x fewer tokens.
BASE_128 = dict(num_frames=16, image_size=128)
PRESETS: dict[str, dict] = {"tiny": TINY, "base": BASE, "base-128": BASE_128}


def random_model(preset: str | dict = "tiny", seed: int = 0):
    """A randomly initialised VideoMAEForPreTraining (norm_pix_loss on, as VideoMAE is trained) from a preset."""
    from transformers import VideoMAEConfig, VideoMAEForPreTraining

    kw = PRESETS[preset] if isinstance(preset, str) else preset
    torch.manual_seed(seed)
    return VideoMAEForPreTraining(VideoMAEConfig(**{"norm_pix_loss": True, **kw})).eval()


def pixel_targets(x: torch.Tensor, tubelet: int, patch: int) -> torch.Tensor:
    """(B, N, tubelet * patch * patch * 3) normalised patches of ImageNet-normalised windows x (B, T, 3, H, W):
    back to [0, 1], cut into tubelet patches (tubelet-major token order), each normalised by its own mean and
    unbiased std per channel (+1e-6), as VideoMAEForPreTraining's labels with norm_pix_loss."""
    mean = torch.tensor(IMAGENET_MEAN, device=x.device, dtype=x.dtype).view(1, 1, 3, 1, 1)
    std = torch.tensor(IMAGENET_STD, device=x.device, dtype=x.dtype).view(1, 1, 3, 1, 1)
    f = x * std + mean
    b, t, c, h, w = f.shape
    f = f.view(b, t // tubelet, tubelet, c, h // patch, patch, w // patch, patch)
    f = f.permute(0, 1, 4, 6, 2, 5, 7, 3).reshape(b, -1, tubelet * patch * patch, c)
    f = (f - f.mean(dim=-2, keepdim=True)) / (f.var(dim=-2, unbiased=True, keepdim=True).sqrt() + 1e-6)
    return f.reshape(b, f.shape[1], -1)


def future_mask(n_tokens: int, frames: int, context: int, tubelet: int, batch: int, device) -> torch.Tensor:
    """(batch, n_tokens) bool: True for the tokens of frames context..frames-1 (masked, to reconstruct)."""
    n_ctx = (context // tubelet) * (n_tokens // (frames // tubelet))
    m = torch.arange(n_tokens, device=device) >= n_ctx
    return m.unsqueeze(0).expand(batch, -1)


def window_surprise(model, x: torch.Tensor, context_lengths, autocast) -> torch.Tensor:
    """(B, len(context_lengths)) mean L1 reconstruction error of the masked future tokens of windows x."""
    cfg = model.config
    tgt = pixel_targets(x.float(), int(cfg.tubelet_size), int(cfg.patch_size))
    b, n = tgt.shape[:2]
    out = []
    for c in context_lengths:
        mask = future_mask(n, x.shape[1], c, int(cfg.tubelet_size), b, x.device)
        with autocast():
            logits = model(pixel_values=x, bool_masked_pos=mask).logits
        target = tgt[mask].reshape(b, -1, tgt.shape[-1])
        out.append(F.l1_loss(logits.float(), target, reduction="none").mean((1, 2)))
    return torch.stack(out, 1)


class VideoMAEScorer(VJEPA2Scorer):
    """Surprise of windows under a VideoMAE model (the scorer interface of score.py); preprocessing, autocast and
    the visible crop are V-JEPA 2's (VJEPA2Scorer)."""

    def __init__(self, model, device: str = "auto", dtype: str = "auto", name: str = "videomae"):
        self.device = resolve_device(device)
        if dtype == "auto":
            dtype = "bfloat16" if self.device.type == "cuda" else "float32"
        self.autocast_dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": None}[dtype]
        self.dtype_name = dtype
        self.model = model.to(self.device).eval()
        self.context_encoder = None
        self.encoders = "single"
        cfg = model.config
        self.crop = int(cfg.image_size)
        self.tubelet = int(cfg.tubelet_size)
        self.patch = int(cfg.patch_size)
        self.frames = int(cfg.num_frames)
        self.name = name
        self.mean = torch.tensor(IMAGENET_MEAN, device=self.device).view(1, 1, 3, 1, 1)
        self.std = torch.tensor(IMAGENET_STD, device=self.device).view(1, 1, 3, 1, 1)

    @classmethod
    def from_pretrained(cls, path_or_id: str, device: str = "auto", dtype: str = "auto") -> VideoMAEScorer:
        """A VideoMAEForPreTraining folder or Hub id (e.g. MCG-NJU/videomae-base)."""
        import os

        from transformers import VideoMAEForPreTraining

        model = VideoMAEForPreTraining.from_pretrained(path_or_id)
        return cls(model, device=device, dtype=dtype, name=os.path.basename(os.path.normpath(path_or_id)))

    def check(self, window: int, context_lengths) -> None:
        """Refuse a protocol the model cannot run: a window other than its num_frames (fixed position
        embeddings) or frames that do not fill whole tubelets."""
        if window != self.frames:
            raise ValueError(f"this VideoMAE takes windows of {self.frames} frames (--window {self.frames})")
        super().check(window, context_lengths)

    def info(self) -> dict:
        return {**super().info(), "kind": "videomae", "surprise": "pixel reconstruction L1 (norm_pix targets)"}

    @torch.no_grad()
    def surprise(self, clips, context_lengths):
        x = self.preprocess(clips)
        return window_surprise(self.model, x, context_lengths, self._autocast).float().cpu().numpy()
