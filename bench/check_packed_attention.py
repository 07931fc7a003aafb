#!/usr/bin/env python3
"""Packed vision attention (evaluate/models/packed_attention.py) against the model's own per-window loop: the
vision tower's output on 3 random 16-frame 320x240 videos, and the time of one tower pass each way. Prints one line.

    python bench/check_packed_attention.py [cpu|cuda] [float32|bfloat16]
"""

from __future__ import annotations

import copy
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> int:
    from checkout import import_evaluate

    import_evaluate()
    import torch
    from transformers import AutoProcessor

    import bench_hf_adapter as bench
    from voebench.evaluate.models.packed_attention import use_packed_vision_attention
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    dev = torch.device(sys.argv[1] if len(sys.argv) > 1 else "cpu")
    dtype = getattr(torch, sys.argv[2] if len(sys.argv) > 2 else "float32")
    folder = build_tiny_qwen25vl(tempfile.mkdtemp(prefix="voebench-packed-"), max_pixels=336 * 336)
    arch = copy.deepcopy(bench.IN_MEMORY["inmem-tiny"])
    arch["vision"].update(depth=4, fullatt_block_indexes=[3])  # 3 windowed layers, 1 full
    model = bench.build_in_memory(arch, folder, dev, dtype)
    proc = AutoProcessor.from_pretrained(folder)
    videos = torch.randint(0, 255, (3, 16, 240, 320, 3), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    out = proc.video_processor(videos=list(videos), return_tensors="pt", do_sample_frames=False)
    pix, grid = out["pixel_values_videos"].to(dev, dtype), out["video_grid_thw"].to(dev)
    tower = model.model.visual

    def once():
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        with torch.no_grad():
            y = tower(pix, grid_thw=grid).last_hidden_state.float()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        return y, time.perf_counter() - t

    once()
    ref, t_loop = once()
    assert use_packed_vision_attention(model)
    once()
    got, t_packed = once()
    err = (ref - got).abs().max().item()
    scale = ref.abs().max().item()
    tol = (1e-4 if dtype == torch.float32 else 3e-2) * max(1.0, scale)
    print(
        f"packed vision attention on {dev.type} {str(dtype)[6:]}: max abs diff {err:.2e} (output scale {scale:.2f}, "
        f"tolerance {tol:.1e}); one tower pass {t_loop * 1e3:.1f} ms per-window loop, {t_packed * 1e3:.1f} ms packed"
    )
    return 0 if err <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
