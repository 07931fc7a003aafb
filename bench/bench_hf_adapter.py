#!/usr/bin/env python3
"""Throughput of the `hf` adapter (voebench.evaluate.models.hf) with batching, on a randomly initialised
Qwen2.5-VL built from a config (no download, no internet). Prints ONE JSON line.

    python bench/bench_hf_adapter.py                         # preset "small", batch sizes 1,4,16, CUDA if present
    python bench/bench_hf_adapter.py --preset tiny --device cpu --batch-sizes 1,4
    python bench/bench_hf_adapter.py --preset base --samples 64 --num-frames 16 --dtype bfloat16
    python bench/bench_hf_adapter.py --preset qwen2.5-vl-7b --num-workers 14 --dtype bfloat16   # real 7B shapes

`--num-workers 0,14` times each batch size once per worker count (0: decode in threads and prepare every batch in
line, the original path; N: the pipeline of docs/evaluate.md). Every row carries the run's stage split and, on CUDA,
the GPU utilisation sampled while the model generated (`EvalRunner.timing`). The `qwen2.5-vl-7b` preset has the real
Qwen2.5-VL-7B architecture (8.3 B parameters) with random weights made directly on the device in the chosen dtype
(nothing is written to disk); its processor is the tiny one (same image and video processing, a toy tokenizer).

What is timed: the whole evaluation loop for N plausibility questions (`EvalRunner.run` with a fresh run directory
per batch size: frame decoding, processor, `generate` with left-padded batches, cache and log writes), after one warm-up
run. Generation length is pinned (min_new_tokens = max_new_tokens) so batch sizes compare fairly though the random
model would stop at random points. Videos are synthetic mp4s (moving square, 10 s at the chosen fps, like GRASP's
videos) written to a temporary rendered set that follows docs/schema.md.

Needs torch, transformers (>= 5), tokenizers, torchvision, numpy and one video codec library (PyAV, OpenCV or
imageio-ffmpeg). Runs from a checkout without `pip install` (Python >= 3.10, no bpy): it maps `voebench.evaluate`
onto the checkout's `evaluate/` folder itself.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


PRESETS = {  # text hidden/layers, vision hidden/depth, max pixels per frame
    "tiny": dict(hidden=64, layers=2, vision_hidden=32, vision_depth=2, max_pixels=112 * 112),
    "small": dict(hidden=512, layers=8, vision_hidden=256, vision_depth=8, max_pixels=224 * 224),
    "base": dict(hidden=1536, layers=16, vision_hidden=640, vision_depth=16, max_pixels=336 * 336),
}
# Built in memory on the device (no checkpoint written); sizes of Qwen/Qwen2.5-VL-7B-Instruct's config.json.
IN_MEMORY = {
    "qwen2.5-vl-7b": dict(
        text=dict(
            vocab_size=152064,
            hidden_size=3584,
            intermediate_size=18944,
            num_hidden_layers=28,
            num_attention_heads=28,
            num_key_value_heads=4,
            rms_norm_eps=1e-6,
            max_position_embeddings=128000,
            tie_word_embeddings=False,
            rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24, 24]},
        ),
        vision=dict(
            depth=32,
            hidden_size=1280,
            intermediate_size=3420,
            num_heads=16,
            out_hidden_size=3584,
            patch_size=14,
            temporal_patch_size=2,
            spatial_merge_size=2,
            window_size=112,
            fullatt_block_indexes=[7, 15, 23, 31],
            tokens_per_second=2,
            hidden_act="silu",
        ),
        max_pixels=336 * 336,
    ),
    # the same code path at toy size, to test the command on a CPU
    "inmem-tiny": dict(
        text=dict(
            vocab_size=152064,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]},
        ),
        vision=dict(
            depth=2,
            hidden_size=32,
            intermediate_size=64,
            num_heads=2,
            out_hidden_size=64,
            patch_size=14,
            temporal_patch_size=2,
            spatial_merge_size=2,
            window_size=112,
            fullatt_block_indexes=[1],
        ),
        max_pixels=112 * 112,
    ),
}


def build_in_memory(arch: dict, processor_dir: str, device, dtype):
    """A random-weight Qwen2.5-VL of the given sizes, made directly on `device` in `dtype`: parameters are allocated
    there without transformers' per-module init (slow on a CPU for 8 B parameters) and then filled on the device
    (N(0, 0.02) matrices, unit norm weights, zero biases), so an 8 B model is ready in seconds."""
    import torch
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    try:
        from transformers.initialization import no_init_weights
    except ImportError:  # transformers < 5
        from transformers.modeling_utils import no_init_weights

    toy = Qwen2_5_VLConfig.from_pretrained(processor_dir)  # the token ids of the toy tokenizer
    tc = toy.text_config
    text = dict(arch["text"], bos_token_id=tc.bos_token_id, eos_token_id=tc.eos_token_id, pad_token_id=tc.pad_token_id)
    config = Qwen2_5_VLConfig(
        text_config=text,
        vision_config=dict(arch["vision"]),
        image_token_id=toy.image_token_id,
        video_token_id=toy.video_token_id,
        vision_start_token_id=toy.vision_start_token_id,
        vision_end_token_id=toy.vision_end_token_id,
    )
    with torch.device(device), no_init_weights():
        try:
            model = Qwen2_5_VLForConditionalGeneration._from_config(config, dtype=dtype)
        except TypeError:
            model = Qwen2_5_VLForConditionalGeneration._from_config(config, torch_dtype=dtype)
    gen = torch.Generator(device=device).manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.ndim >= 2:
                p.normal_(0.0, 0.02, generator=gen)
            else:
                p.fill_(1.0 if name.endswith("weight") else 0.0)  # 1-D weights are norms (ln_q too); biases
    model.generation_config.pad_token_id = tc.pad_token_id
    model.generation_config.eos_token_id = tc.eos_token_id
    model.generation_config.do_sample = False
    return model.eval()


def _write_video(path: str, n: int, fps: int, w: int, h: int, seed: int) -> str:
    import numpy as np

    rng = np.random.default_rng(seed)
    base = rng.integers(0, 200, 3).astype(np.uint8)
    frames = []
    for t in range(n):
        f = np.empty((h, w, 3), np.uint8)
        f[:] = base
        x = int((w - 20) * t / max(1, n - 1))
        f[h // 3 : h // 3 + 20, x : x + 20] = 255
        frames.append(f)
    try:
        import av

        with av.open(path, "w") as c:
            s = c.add_stream("libx264", rate=fps)
            s.width, s.height, s.pix_fmt = w, h, "yuv420p"
            for f in frames:
                for p in s.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                    c.mux(p)
            for p in s.encode():
                c.mux(p)
        return "pyav"
    except ImportError:
        pass
    try:
        import cv2

        wr = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
        for f in frames:
            wr.write(cv2.cvtColor(f, cv2.COLOR_RGB2BGR))
        wr.release()
        return "opencv"
    except ImportError:
        import imageio.v2 as iio

        wr = iio.get_writer(path, format="FFMPEG", fps=fps, codec="libx264", macro_block_size=1)
        for f in frames:
            wr.append_data(f)
        wr.close()
        return "imageio-ffmpeg"


def make_set(root: str, n_videos: int, fps: int, seconds: float, w: int, h: int) -> str:
    prompt = (
        "The video you're seeing was generated by a simulator. Given how objects behave on earth, is the "
        "trajectory of the ball plausible? Your answer should be based on the events in the video and ignore "
        "the quality of the simulation. Answer only with yes or no."
    )
    n_frames = int(round(fps * seconds))
    os.makedirs(os.path.join(root, "grasp-l2", "t09_gravity"), exist_ok=True)
    writer = None
    with open(os.path.join(root, "manifest.jsonl"), "w") as fh:
        for i in range(n_videos):
            cond = "plausible" if i % 2 == 0 else "implausible"
            stem = f"{i // 2:05d}-{cond}"
            rel = f"grasp-l2/t09_gravity/{stem}.mp4"
            writer = _write_video(os.path.join(root, rel), n_frames, fps, w, h, i)
            fh.write(
                json.dumps(
                    {
                        "id": f"grasp-l2/t09_gravity/{stem}",
                        "suite": "grasp-l2",
                        "test": "t09_gravity",
                        "index": i // 2,
                        "condition": cond,
                        "pair_id": f"grasp-l2/t09_gravity/{i // 2:05d}",
                        "seed": i,
                        "video": rel,
                        "states": rel[:-4] + ".h5",
                        "n_frames": n_frames,
                        "fps": fps,
                        "width": w,
                        "height": h,
                        "test_number": 9,
                        "description": "A ball on a plank.",
                        "violation": None,
                        "params": {},
                        "prompts": [{"kind": "plausibility", "text": prompt, "answer": "yes" if i % 2 == 0 else "no"}],
                    }
                )
                + "\n"
            )
    from voebench.contract import dataset as ds  # a set voebench reads must carry voebench's dataset.json

    ds.write_dataset(os.path.join(root, ds.NAME), ds.new_dataset("bench"))
    return writer


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", choices=sorted(PRESETS) + sorted(IN_MEMORY), default="small")
    ap.add_argument("--num-workers", default="0", help="decoding worker counts to time, comma-separated")
    ap.add_argument("--set", help="reuse the synthetic set in this folder (made there if missing)")
    ap.add_argument("--packed-vision-attention", action="store_true", help="see evaluate/models/packed_attention.py")
    ap.add_argument("--batch-sizes", default="1,4,16")
    ap.add_argument("--samples", type=int, default=48, help="questions per batch size (one per video)")
    ap.add_argument("--num-frames", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=8)
    ap.add_argument("--video-size", default="320x240", help="WxH of the synthetic videos")
    ap.add_argument("--video-fps", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="auto", choices=("auto", "float32", "bfloat16", "float16"))
    ap.add_argument("--keep", help="keep the model and the set in this folder")
    args = ap.parse_args(argv)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from checkout import import_evaluate

    import_evaluate()
    import torch
    import transformers

    from voebench.evaluate import frames as frames_mod
    from voebench.evaluate.models import make_adapter
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl
    from voebench.evaluate.run import EvalConfig, EvalRunner
    from voebench.evaluate.tasks import build_samples, load_manifest, select

    work = args.keep or tempfile.mkdtemp(prefix="voebench-bench-")
    os.makedirs(work, exist_ok=True)
    w, h = (int(x) for x in args.video_size.lower().split("x"))
    t0 = time.perf_counter()
    set_dir = args.set or os.path.join(work, "set")
    if os.path.exists(os.path.join(set_dir, "manifest.jsonl")):
        writer = "reused"
    else:
        writer = make_set(set_dir, args.samples, args.video_fps, args.seconds, w, h)
    t_set = time.perf_counter() - t0
    t0 = time.perf_counter()
    batch_sizes = [int(b) for b in args.batch_sizes.split(",") if b]
    if args.preset in IN_MEMORY:
        from voebench.evaluate.models.hf import HFAdapter

        arch = IN_MEMORY[args.preset]
        proc_dir = build_tiny_qwen25vl(os.path.join(work, "processor"), max_pixels=arch["max_pixels"])
        device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else args.device)
        if device.type == "cpu" and args.device == "auto":
            device = torch.device("cpu")
        dtype = {"auto": torch.bfloat16 if device.type == "cuda" else torch.float32}.get(args.dtype) or getattr(
            torch, args.dtype
        )
        model = build_in_memory(arch, proc_dir, device, dtype)
        adapter = HFAdapter(
            proc_dir,
            dtype=str(dtype).replace("torch.", ""),
            device=str(device),
            batch_size=batch_sizes[0],
            max_new_tokens=args.max_new_tokens,
            do_sample=False,
            model=model,
            packed_vision_attention=args.packed_vision_attention,
        )
    else:
        model_dir = build_tiny_qwen25vl(os.path.join(work, "model"), **PRESETS[args.preset])
        adapter = make_adapter(
            f"hf:{model_dir}",
            batch_size=batch_sizes[0],
            dtype=args.dtype,
            device=args.device,
            max_new_tokens=args.max_new_tokens,
            do_sample=False,
            packed_vision_attention=args.packed_vision_attention,
        )
    t_build = time.perf_counter() - t0
    adapter.model.generation_config.min_new_tokens = args.max_new_tokens
    n_params = sum(p.numel() for p in adapter.model.parameters())
    m = load_manifest(set_dir)
    samples = build_samples(m, select(m), "zero-shot")[: args.samples]
    cuda = adapter.device.type == "cuda"
    workers = [int(x) for x in args.num_workers.split(",") if x != ""]

    def timed(bs: int, nw: int, tag: str) -> dict:
        adapter.batch_size = bs
        out = os.path.join(work, f"run-{tag}-w{nw}-bs{bs}")
        cfg = EvalConfig("zero-shot", repeats=1, num_frames=args.num_frames, num_workers=nw)
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t = time.perf_counter()
        runner = EvalRunner(adapter, samples, out, cfg, progress=False)
        jobs = runner.run()
        if cuda:
            torch.cuda.synchronize()
        dt = time.perf_counter() - t
        failed = [j.error for j in jobs if not j.done]
        timing = runner.timing or {}
        return {
            "num_workers": nw,
            "batch_size": bs,
            "samples": len(jobs),
            "seconds": round(dt, 3),
            "samples_per_s": round(len(jobs) / dt, 3),
            "failed": len(failed),
            "first_error": failed[0] if failed else None,
            "peak_gpu_mem_gib": round(torch.cuda.max_memory_allocated() / 2**30, 3) if cuda else None,
            "stages_s": {k: v["seconds"] for k, v in timing.get("stages", {}).items()},
            "clips_decoded": timing.get("clips_decoded"),
            "gpu_util": timing.get("gpu_utilisation"),
        }

    timed(batch_sizes[-1], workers[0], "warmup")  # kernels, allocator
    results = []
    for nw in workers:
        for bs in batch_sizes:
            frames_mod.clear_cache()  # every run decodes its videos itself
            results.append(timed(bs, nw, "timed"))
    first = {bs: r["samples_per_s"] for r in results if r["num_workers"] == workers[0] for bs in [r["batch_size"]]}
    base = results[0]["samples_per_s"]
    for r in results:
        r["speedup_vs_first"] = round(r["samples_per_s"] / base, 2) if base else None
        f = first.get(r["batch_size"])
        r["speedup_vs_first_workers"] = round(r["samples_per_s"] / f, 2) if f else None

    print(
        json.dumps(
            {
                "bench": "hf_adapter",
                "device": torch.cuda.get_device_name(0) if cuda else "cpu",
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "python": sys.version.split()[0],
                "preset": args.preset,
                "params_m": round(n_params / 1e6, 2),
                "dtype": str(adapter.dtype),
                "num_frames": args.num_frames,
                "max_new_tokens": args.max_new_tokens,
                "video": f"{w}x{h}@{args.video_fps}fps x {args.seconds}s",
                "video_writer": writer,
                "frame_decoder": frames_mod.decoder_name(),
                "cpu_count": os.cpu_count(),
                "packed_vision_attention": bool(getattr(adapter, "packed_vision_attention", False)),
                "set_seconds": round(t_set, 2),
                "build_seconds": round(t_build, 2),
                "results": results,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
