"""The hf adapter's processor call, in this process or in the decode worker processes (issue 28).

`run_processor` turns conversations into the processor's tensors (chat template, tokenizer, video/image processor);
the adapter calls it in line or from its prefetch thread. With `VOEBENCH_PREPROCESS=workers` (and decoding worker
processes, `--num-workers` > 0) the pipelined adapter instead sends each batch, cut into one chunk per worker, to
`prepare_in_worker` in those processes: the worker reads the clips itself (from the frame store, else decoding
them), runs the processor on the CPU and converts floating tensors to the model's dtype; the tensors come back
through shared memory (torch's multiprocessing reductions) and `collate` joins the chunks: token sequences
left-padded to the longest (the tokenizer's own padding: `pad_token_id`, mask 0), patch tensors concatenated.
Nothing of it holds the interpreter that launches the model's kernels, so `generate` no longer shares the GIL
with the processor. Chunks are cut only for processors whose outputs `collate` knows (the Qwen2-VL family:
`CHUNKABLE`); any other processor gets the whole batch in one worker. Same tensors as the in-line CPU path (test:
tests/evaluate/test_evaluate_pipeline.py); the in-line CUDA path resizes on the GPU and may differ in low bits.
`VOEBENCH_PREPROCESS=auto` takes the workers on CUDA when there are enough of them and enough shared memory
(`workers_pay_off`); a batch the workers fail on (e.g. /dev/shm full) turns the run back to the thread. The default
is `thread`: the workers gained 4% samples/s in the one measurement (docs/evaluate.md), and a default that followed
the machine's worker count and free /dev/shm would let the same run's pixels (and so its answers) differ by machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

#: token-aligned (batch, length) tensors: left-padded when chunks are joined
SEQUENCE_KEYS = ("input_ids", "attention_mask", "mm_token_type_ids", "token_type_ids")
#: one row (or patch rows) per image or video: concatenated in order when chunks are joined
CONCAT_KEYS = ("pixel_values_videos", "video_grid_thw", "second_per_grid_ts", "pixel_values", "image_grid_thw")
#: model types whose processor output is exactly SEQUENCE_KEYS + CONCAT_KEYS, so a batch may be cut into chunks
CHUNKABLE = ("qwen2_vl", "qwen2_5_vl")
ENV = "VOEBENCH_PREPROCESS"
_PROCESSORS: dict[str, Any] = {}  # processor path -> processor; forked workers inherit it


#: `auto` takes the workers with at least this many decoding processes (each batch is cut into one chunk per worker,
#: and the processor runs on their CPUs instead of the GPU) ...
AUTO_MIN_WORKERS = 8
#: ... and this much free shared memory (the tensors come back through /dev/shm: 240 MB a batch of 32 in the
#: measurement; containers often mount only 64 MB there)
AUTO_MIN_SHM = 2 * 2**30


def mode() -> str:
    """$VOEBENCH_PREPROCESS: `thread` (the processor in the adapter's prefetch thread, on the GPU for videos),
    `workers` (in the decoding worker processes), or `auto` (workers on CUDA with enough workers and shared memory,
    `workers_pay_off`). Unset or unknown: `thread`, the default (see the module docstring)."""
    got = os.environ.get(ENV, "").strip().lower()
    return got if got in ("workers", "auto") else "thread"


def workers_pay_off(n_workers: int) -> bool:
    """`auto`'s rule: at least AUTO_MIN_WORKERS decoding processes and AUTO_MIN_SHM free in /dev/shm (where it
    exists). Measured on an H200 with 14 workers (docs/evaluate.md): the 418M model's `generate` 19% shorter."""
    if n_workers < AUTO_MIN_WORKERS:
        return False
    if os.path.isdir("/dev/shm"):
        import shutil

        return shutil.disk_usage("/dev/shm").free >= AUTO_MIN_SHM
    return True


def register(path: str, processor: Any) -> None:
    """Make `processor` the one workers use for `path` (forked workers inherit it; spawned ones load it)."""
    _PROCESSORS[path] = processor


def _processor(path: str) -> Any:
    p = _PROCESSORS.get(path)
    if p is None:
        from transformers import AutoProcessor

        p = AutoProcessor.from_pretrained(path)
        tok = getattr(p, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"
            if tok.pad_token is None and tok.eos_token is not None:
                tok.pad_token = tok.eos_token
        _PROCESSORS[path] = p
    return p


def conversation(messages: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """The chat-template conversation, its videos, and the videos it shows as separate images (`as_images`)."""
    conv, videos, stills = [], [], []
    for m in messages:
        content: list[dict] = []
        v = m.get("video")
        if v and v.get("as_images"):
            content.extend({"type": "image"} for _ in v["indices"])
            stills.append(v)
        elif v:
            content.append({"type": "video"})
            videos.append(v)
        content.append({"type": "text", "text": m["text"]})
        conv.append({"role": m["role"], "content": content})
    return conv, videos, stills


def run_processor(processor: Any, convs: list[tuple], read: Callable[[dict], Any], device: str | None = None):
    """The processor's output (a BatchFeature) for `convs` (from `conversation`); `read(video)` gives a clip's
    frames (array or tensor). `device`: the fast video processors' GPU path."""
    from transformers.video_utils import VideoMetadata

    texts, videos, metas, images = [], [], [], []
    for conv, vids, stills in convs:
        texts.append(processor.apply_chat_template(conv, tokenize=False, add_generation_prompt=True))
        own: list = []  # this conversation's images, in order: processors pair a batch's images by conversation
        for v in stills:
            own.extend(read(v))
        images.append(own)
        for v in vids:
            videos.append(read(v))
            metas.append(
                VideoMetadata(
                    total_num_frames=int(v["n_frames"]),
                    fps=float(v["fps"]),
                    width=int(v.get("width") or 0) or None,
                    height=int(v.get("height") or 0) or None,
                    duration=float(v["n_frames"]) / float(v["fps"]),
                    video_backend="pyav",
                    frames_indices=list(v["indices"]),
                )
            )
    kwargs: dict[str, Any] = {"text": texts, "padding": True, "return_tensors": "pt"}
    if any(images):
        kwargs["images"] = images
    if videos:
        kwargs.update(videos=videos, video_metadata=metas, do_sample_frames=False)
        if device is not None:
            kwargs["device"] = device
    try:
        return processor(**kwargs)
    except (TypeError, ValueError):
        # an older processor without video_metadata / do_sample_frames / device: frames as they are, on the CPU
        for k in ("video_metadata", "do_sample_frames", "device"):
            kwargs.pop(k, None)
        if device is not None:
            kwargs["videos"] = [v.numpy() if hasattr(v, "numpy") else v for v in videos]
        return processor(**kwargs)


def prepare_in_worker(path: str, convs: list[tuple], dtype: str) -> tuple[dict, dict]:
    """In a decode worker: the processor's tensors for `convs` (floating ones in `dtype`), and what it cost
    (`{"clips", "stored", "decode_s", "preprocess_s"}`). Clips come from the frame store when it has them."""
    import numpy as np
    import torch

    from voebench.evaluate import frames as frames_mod

    torch.set_num_threads(1)  # one worker per core already
    t0 = time.perf_counter()
    cost = {"clips": 0, "stored": 0, "decode_s": 0.0, "preprocess_s": 0.0}
    got: dict[tuple, np.ndarray] = {}

    def read(v: dict) -> np.ndarray:
        key = (v["path"], tuple(int(i) for i in v["indices"]))
        if key not in got:
            arr, seconds, stored = frames_mod._decode_timed(*key)
            got[key] = np.require(arr, requirements=["C", "W"])  # a writable copy of a read-only stored clip
            cost["clips"] += 1
            cost["stored"] += int(stored)
            cost["decode_s"] += seconds
        return got[key]

    out = run_processor(_processor(path), convs, read)
    want = getattr(torch, dtype)
    tensors = {}
    for k, v in out.items():
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            v = v.to(want)
        tensors[k] = v
    cost["preprocess_s"] = time.perf_counter() - t0 - cost["decode_s"]
    return tensors, cost


def collate(parts: list[dict], pad_token_id: int) -> dict:
    """Join chunks' processor outputs into the batch's: SEQUENCE_KEYS left-padded to the longest (input_ids with
    `pad_token_id`, the others with 0) and stacked; CONCAT_KEYS concatenated. Another key: ValueError."""
    import torch

    if len(parts) == 1:
        return parts[0]
    length = max(int(p["input_ids"].shape[1]) for p in parts)
    out: dict[str, Any] = {}
    for key in parts[0]:
        values = [p[key] for p in parts]
        if key in SEQUENCE_KEYS:
            fill = pad_token_id if key == "input_ids" else 0
            padded = [torch.nn.functional.pad(v, (length - v.shape[1], 0), value=fill) for v in values]
            out[key] = torch.cat(padded, dim=0)
        elif key in CONCAT_KEYS:
            if all(isinstance(v, torch.Tensor) for v in values):
                out[key] = torch.cat(values, dim=0)
            else:
                out[key] = [x for v in values for x in v]
        else:
            raise ValueError(f"cannot join processor output {key!r} across chunks")
    return out


def chunks(items: list, n: int) -> list[list]:
    """`items` cut into at most `n` contiguous, nearly equal chunks (order kept)."""
    n = max(1, min(n, len(items)))
    size, extra = divmod(len(items), n)
    out, i = [], 0
    for c in range(n):
        j = i + size + (1 if c < extra else 0)
        out.append(items[i:j])
        i = j
    return out
