"""`hf:<path-or-id>`: a local Hugging Face video VLM through transformers' ``AutoModelForImageTextToText`` and the
checkpoint's own ``AutoProcessor`` chat template.

We decode the frames ourselves (PyAV, `frames.read_frames`: exactly the indices the harness chose and logged) and
pass them as numpy arrays plus ``VideoMetadata`` (original fps, total frames, the chosen indices) with
``do_sample_frames=False``, so the processor neither resamples nor needs torchcodec. Batches are left-padded.
Tested with Qwen2.5-VL and SmolVLM2; other families whose processor takes ``videos=`` (LLaVA-OneVision, ...) use
the same path. A turn whose video asks ``as_images`` (the predict suite's image query, evaluate/predict/queries.py)
goes in as that many images instead, one image slot per frame in the chat template and ``images=`` (one list per
conversation) to the processor, as the openai adapter sends it: the seed's image query is a sequence of separate
images, and a processor treats a short video differently (Qwen2.5-VL merges two frames into one temporal patch).

Pipelined (the runner sets ``pipelined`` when frames decode in worker processes): the processor runs one batch
ahead in a background thread, on a side CUDA stream, with the video processor's GPU path (``device=``, transformers
5 fast video processors) and frames in pinned memory, so the GPU never waits for the CPU between two ``generate``
calls. Not pipelined, every batch is prepared in line on the CPU, as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from voebench.evaluate import cold_start
from voebench.evaluate import frames as frames_mod
from voebench.evaluate.models import hf_inputs, hf_positions
from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.models.kinds.hf import DTYPES
from voebench.evaluate.timing import timed


class HFAdapter(Adapter):
    def __init__(
        self,
        path: str,
        *,
        dtype: str = "auto",
        device: str = "auto",
        batch_size: int = 1,
        max_new_tokens: int = 32,
        do_sample: bool | None = None,
        temperature: float | None = None,
        trust_remote_code: bool = False,
        attn_implementation: str | None = None,
        model: Any = None,
        packed_vision_attention: bool | str = False,
    ):
        import torch

        cold_start.mark("torch_imported")
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}")
        self.torch = torch
        self.path = path
        self.name = f"hf:{path}"
        self.decodes_video = True
        self.timed_stages = True  # adds preprocess / wait / generate to the run's timer itself
        self.batch_size = max(1, int(batch_size))
        self.max_new_tokens = int(max_new_tokens)
        self.do_sample = do_sample
        self.temperature = temperature
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        if dtype == "auto":
            if self.device.type == "cuda":
                torch_dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            else:
                torch_dtype = torch.float32
        else:
            torch_dtype = getattr(torch, dtype)
        self.dtype = torch_dtype
        # the CUDA context, cuBLAS/cuDNN and first kernels in a thread while transformers imports and the processor and
        # the weights load (cold_start.py)
        warming = cold_start.warm_cuda(self.device, torch_dtype) if model is None else None
        from transformers import AutoModelForImageTextToText, AutoProcessor

        cold_start.mark("imports_done")  # torch and transformers: a cold process's first seconds
        cold_start.release_decoding()  # early decoding's clips decode while the processor and weights load
        t_load = time.perf_counter()
        self.processor = AutoProcessor.from_pretrained(path, trust_remote_code=trust_remote_code)
        cold_start.mark("processor_loaded")
        self.load_stats: dict[str, Any] = {"processor_s": round(time.perf_counter() - t_load, 3)}
        tok = getattr(self.processor, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"  # decoder-only generation needs left padding in a batch
            if tok.pad_token is None and tok.eos_token is not None:
                tok.pad_token = tok.eos_token
        hf_inputs.register(path, self.processor)  # for the decoding workers, when they run the processor
        kwargs: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if attn_implementation:
            kwargs["attn_implementation"] = attn_implementation
        direct = False
        if model is None:
            target = self.device if self.device.type == "cuda" and "direct" in cold_start.mode() else None
            model, direct = _load(AutoModelForImageTextToText, path, torch_dtype, target, kwargs)
        # else: a model built in memory (bench/: random weights made directly on the GPU), `path` gives the processor
        cold_start.mark("weights_loaded")
        t_move = time.perf_counter()
        self.load_stats["weights_s"] = round(t_move - t_load - self.load_stats["processor_s"], 3)
        self.load_stats["weights_direct_to_device"] = direct
        self.model = (model if direct else model.to(self.device)).eval()
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        self.load_stats["to_device_s"] = round(time.perf_counter() - t_move, 3)
        cold_start.mark("model_on_device")
        if warming is not None:
            warming.join(timeout=10)  # done by now, as a rule; one still running only shares the GPU a moment
        #: the processor's output can be cut into chunks and joined (models/hf_inputs.py: CHUNKABLE)
        self._chunkable = getattr(getattr(self.model, "config", None), "model_type", "") in hf_inputs.CHUNKABLE
        self._workers_failed = False  # the workers failed a batch: the processor runs here for the rest
        #: rotary positions computed on the CPU where the batch is prepared (models/hf_positions.py), not by generate
        #: on the GPU; `VOEBENCH_CPU_POSITIONS=0` leaves them to generate (same integers either way)
        #: `VOEBENCH_KV_CACHE=static`: generate with a static KV cache, which transformers compiles on CUDA
        #: (torch.compile, CUDA graphs for the decode steps); anything else: its dynamic cache (the default)
        self.static_cache = os.environ.get("VOEBENCH_KV_CACHE", "").strip().lower() == "static"
        self.cpu_positions = os.environ.get("VOEBENCH_CPU_POSITIONS", "1") != "0" and hf_positions.supported(self.model)
        self.packed_vision_attention = False
        # "auto" (the command line's default): on for CUDA, where it is identical in bf16 and the window loop leaves
        # the GPU idle; off on CPUs, where the loop costs little and fp32 results may move in the last bit.
        if packed_vision_attention == "auto":
            packed_vision_attention = self.device.type == "cuda"
        elif isinstance(packed_vision_attention, str):
            packed_vision_attention = packed_vision_attention == "on"
        if packed_vision_attention:  # one attention call per layer for all windows (models/packed_attention.py)
            from voebench.evaluate.models.packed_attention import use_packed_vision_attention

            self.packed_vision_attention = use_packed_vision_attention(self.model)
        self._prep_pool: ThreadPoolExecutor | None = None
        self._ready: OrderedDict[str, Future] = OrderedDict()
        self._ready_lock = threading.Lock()
        self._side_stream = None

    def settings(self) -> dict:
        return {
            "model": self.path,
            "dtype": str(self.dtype).replace("torch.", ""),
            "max_new_tokens": self.max_new_tokens,
            "do_sample": self.do_sample,
            "temperature": self.temperature,
            # only when on, so the cache keys of runs without it stay as they were
            **({"packed_vision_attention": True} if self.packed_vision_attention else {}),
            **({"kv_cache": "static"} if self.static_cache else {}),  # other kernels: low bits may move
        }

    # -- conversion ------------------------------------------------------------------------------------------
    @staticmethod
    def _conversation(messages: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
        """The chat-template conversation, its videos, and the videos it shows as separate images (`as_images`)."""
        return hf_inputs.conversation(messages)

    def _inputs(self, requests: list[Request], on_gpu: bool = False):
        """The processor's tensors for one batch, on the model's device. `on_gpu` (pipelined on CUDA): frames go in
        from pinned memory and the video processor resizes and normalises them on the GPU."""
        torch = self.torch
        t_start, t_wait = time.time(), [0.0]
        convs = [self._conversation(r.messages) for r in requests]
        # decode in parallel
        frames_mod.prefetch((v["path"], v["indices"]) for _, vids, stills in convs for v in [*vids, *stills])

        def read(v: dict):
            t0 = time.time()
            clip = frames_mod.read_frames(v["path"], v["indices"])
            t_wait[0] += time.time() - t0
            return torch.from_numpy(clip).pin_memory() if on_gpu and not v.get("as_images") else clip

        inputs = hf_inputs.run_processor(self.processor, convs, read, str(self.device) if on_gpu else None)
        out = self._to_device(inputs, on_gpu)
        timer = self.timer
        if timer is not None:
            timer.add("preprocess", time.time() - t_start - t_wait[0])
            if threading.current_thread() is threading.main_thread():
                timer.add("wait", t_wait[0])  # the model's loop itself waited for frames
        return out

    def _to_device(self, inputs, non_blocking: bool) -> dict:
        """Tensors on the model's device, floating ones in its dtype; `non_blocking`: copied from pinned memory.
        With `cpu_positions`, the batch's rotary positions are computed here first, on the CPU."""
        if self.cpu_positions and "position_ids" not in inputs:
            pos = hf_positions.cpu_position_ids(self.model, inputs)
            if pos is not None:
                inputs = {**inputs, "position_ids": pos}
        out = {}
        for k, v in inputs.items():
            if hasattr(v, "to"):
                if non_blocking and v.device.type == "cpu":
                    v = v.pin_memory()
                v = v.to(self.device, non_blocking=non_blocking)
                if v.is_floating_point():
                    v = v.to(self.dtype)
            out[k] = v
        return out

    @property
    def preprocesses_in_workers(self) -> bool:
        """The processor runs in the decoding worker processes (`VOEBENCH_PREPROCESS=workers`, pipelined): the
        workers read the clips themselves, so the runner does not decode them ahead for this process."""
        n = frames_mod.num_workers()
        if not self.pipelined or n == 0 or self._workers_failed:
            return False
        m = hf_inputs.mode()
        return m == "workers" or (m == "auto" and self.device.type == "cuda" and hf_inputs.workers_pay_off(n))

    def _inputs_from_workers(self, requests: list[Request]) -> dict:
        """One batch's tensors made in the decoding workers (one chunk per worker where the processor's output can
        be joined, models/hf_inputs.py), joined here and copied to the device without blocking. Should the workers
        fail (a full /dev/shm, a worker killed), this batch and the rest of the run go through `_inputs`."""
        t_start = time.time()
        try:
            inputs, background, jobs = self._worker_tensors(requests)
        except Exception as e:  # noqa: BLE001 - CPU work only; the thread path meets (and reports) a real bug itself
            import sys

            with self._ready_lock:  # two batches (this one and the prefetched next) may fail at once: say it once
                first, self._workers_failed = not self._workers_failed, True
            if first:
                print(
                    f"voebench: the processor failed in the decoding workers ({e}); here from now on", file=sys.stderr
                )
            return self._inputs(requests, on_gpu=self.device.type == "cuda")
        out = self._to_device(inputs, self.device.type == "cuda")
        if self.timer is not None:  # the workers' processor time, and this thread's joining and copying
            self.timer.add("preprocess", background + (time.time() - t_start) / max(1, jobs))
        return out

    def _worker_tensors(self, requests: list[Request]) -> tuple[dict, float, int]:
        """The processor's CPU tensors for one batch from the workers, the workers' seconds, and the jobs run."""
        convs = [self._conversation(r.messages) for r in requests]
        dtype = str(self.dtype).replace("torch.", "")
        tok = getattr(self.processor, "tokenizer", None)
        pad = getattr(tok, "pad_token_id", None) or 0
        background = 0.0
        while True:
            n = frames_mod.num_workers() if self._chunkable else 1
            futures = [
                frames_mod.submit(hf_inputs.prepare_in_worker, self.path, part, dtype)
                for part in hf_inputs.chunks(convs, n)
            ]
            results = [f.result() for f in futures]
            for _, cost in results:
                frames_mod.add_stats(cost["clips"], cost["decode_s"], cost["stored"], cost["clips"])
                background += cost["preprocess_s"]
            try:
                return hf_inputs.collate([r[0] for r in results], pad), background, len(results)
            except ValueError:  # an output this processor version adds that chunks cannot be joined by: one job
                if not self._chunkable:
                    raise
                self._chunkable = False

    # -- the pipeline: a batch's inputs prepared while the model works on the one before -------------------------
    @staticmethod
    def _batch_key(requests: list[Request]) -> str:
        return hashlib.sha256(json.dumps([r.messages for r in requests], sort_keys=True).encode()).hexdigest()

    def _groups(self, requests: list[Request]) -> list[list[Request]]:
        """`generate`'s calls: chunks of `batch_size`, split where the repeat seed changes (one seed per call)."""
        groups: list[list[Request]] = []
        for i in range(0, len(requests), self.batch_size):
            chunk = requests[i : i + self.batch_size]
            start = len(groups)
            for r in chunk:
                if len(groups) > start and groups[-1][0].seed == r.seed:
                    groups[-1].append(r)
                else:
                    groups.append([r])
        return groups

    def _prepare(self, requests: list[Request]):
        """Inputs plus, on CUDA, the event the model's stream waits for (they are made on a side stream)."""
        torch = self.torch
        in_workers = self.preprocesses_in_workers
        if self.device.type != "cuda":
            return (self._inputs_from_workers(requests) if in_workers else self._inputs(requests)), None
        if self._side_stream is None:
            self._side_stream = torch.cuda.Stream(self.device)
        with torch.cuda.device(self.device), torch.cuda.stream(self._side_stream):
            inputs = self._inputs_from_workers(requests) if in_workers else self._inputs(requests, on_gpu=True)
            done = torch.cuda.Event()
            done.record(self._side_stream)
        main = torch.cuda.default_stream(self.device)
        for v in inputs.values():
            if isinstance(v, torch.Tensor) and v.device.type == "cuda":
                v.record_stream(main)  # freed after generate: not reused before the model's stream is past it
        return inputs, done

    def prefetch(self, requests: list[Request]) -> None:
        if not self.pipelined or not requests:
            return
        if self._prep_pool is None:
            self._prep_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="voebench-preprocess")
        for g in self._groups(requests):
            key = self._batch_key(g)
            with self._ready_lock:
                if key in self._ready:
                    continue
                self._ready[key] = self._prep_pool.submit(self._prepare, g)
                while len(self._ready) > 4:  # a hint not taken (a batch answered otherwise): drop the oldest
                    self._ready.popitem(last=False)[1].cancel()

    def _ready_inputs(self, requests: list[Request]):
        with self._ready_lock:
            fut = self._ready.pop(self._batch_key(requests), None) if self._ready else None
        if fut is not None and not fut.cancelled():
            with timed(self.timer, "wait"):
                inputs, done = fut.result()
        elif self.pipelined:
            inputs, done = self._prepare(requests)
        else:
            return self._inputs(requests)
        if done is not None:
            self.torch.cuda.current_stream(self.device).wait_event(done)
        return inputs

    def _gen_kwargs(self, **extra: Any) -> dict[str, Any]:
        gen: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, **extra}
        if self.do_sample is not None:
            gen["do_sample"] = self.do_sample
        if self.temperature is not None:
            gen["temperature"] = self.temperature
        if self.static_cache:
            gen["cache_implementation"] = "static"
        return gen

    def _run(self, requests: list[Request], **extra: Any) -> list[str]:
        torch = self.torch
        inputs = self._ready_inputs(requests)
        gen = self._gen_kwargs(**extra)
        torch.manual_seed(requests[0].seed)
        cold_start.mark("first_generate_start")  # the first call only (a cold run's timeline, run.json)
        with timed(self.timer, "generate"), torch.inference_mode():
            out = self.model.generate(**inputs, **gen)
            new = out[:, inputs["input_ids"].shape[1] :].cpu()
        cold_start.mark("first_generate_done")
        return [t.strip() for t in self.processor.batch_decode(new, skip_special_tokens=True)]

    def warm_up_blank(self, requests: list[Request]) -> bool:
        """Generate once on `requests` with black frames of their videos' sizes instead of their own, untimed and
        discarded (`VOEBENCH_WARMUP=blank`, issue 28): the first call on a GPU loads kernels, creates the BLAS
        handles and grows the allocator's pools (and, with a static KV cache, compiles), here while the decoding
        workers and the prefetch thread get the real first batch ready, which needs none of its frames. Off by
        default: on an H200 it did not shorten a cold run (docs/evaluate.md). Answers do not change: every generate
        call seeds itself. False on a CPU (nothing to warm), for a request whose video size is unknown, or when the
        blank batch fails (the real one will report it)."""
        if self.device.type != "cuda" or not requests:
            return False
        torch = self.torch
        try:
            on_gpu = self.pipelined and not self.preprocesses_in_workers
            inputs = self._blank_inputs(requests, str(self.device) if on_gpu else None)
            if inputs is None:
                return False
            torch.manual_seed(requests[0].seed)
            with torch.inference_mode():
                self.model.generate(**inputs, **self._gen_kwargs())
            torch.cuda.synchronize(self.device)
        except Exception:  # noqa: BLE001 - the real batch will meet (and report) the same error
            return False
        return True

    def _blank_inputs(self, requests: list[Request], gpu: str | None = None) -> dict | None:
        """The model's inputs for `requests` with black frames of each video's size (the same shapes as the real
        batch's), on the model's device; None when a video's size is not known. `gpu`: processed on that GPU."""
        import numpy as np

        convs = [self._conversation(r.messages) for r in requests]
        if any(not (v.get("width") and v.get("height")) for _, vids, stills in convs for v in [*vids, *stills]):
            return None

        def blank(v: dict):
            return np.zeros((len(v["indices"]), int(v["height"]), int(v["width"]), 3), dtype=np.uint8)

        return self._to_device(dict(hf_inputs.run_processor(self.processor, convs, blank, gpu)), non_blocking=False)

    def warm_up(self, requests: list[Request]) -> bool:
        """Run the first batch once and discard it, untimed (the runner's warm-up, issue 28): on CUDA the first
        calls pick kernels for these shapes and grow the allocator's pools, which cost a cold run a large share of
        its speed. Answers do not change: every generate call seeds itself. On a CPU nothing needs warming: False."""
        if self.device.type != "cuda" or not requests:
            return False
        timer, self.timer = self.timer, None
        try:
            self._run(requests[: self.batch_size])
        except Exception:  # noqa: BLE001 - the real batch will meet (and report) the same error
            return False
        finally:
            self.timer = timer
        return True

    # -- --batch-size auto (evaluate/batch_size.py) ------------------------------------------------------------
    def gpu_name(self) -> str | None:
        """The GPU's name and memory (part of the batch-size cache key), or None on a CPU."""
        if self.device.type != "cuda":
            return None
        p = self.torch.cuda.get_device_properties(self.device)
        return f"{p.name} {round(p.total_memory / 2**30)} GiB"

    def try_batch(self, requests: list[Request]) -> None:
        """Generate `requests` as one batch at the full answer length (min_new_tokens = max_new_tokens: the KV cache
        of the longest answer), untimed, the answers discarded. Out of GPU memory, the memory is given back before
        the error is raised again (a fresh error: the original's traceback would keep the batch's tensors alive)."""
        from voebench.evaluate.batch_size import is_oom

        timer, self.timer = self.timer, None
        failed: str | None = None
        try:
            self._run(requests, min_new_tokens=self.max_new_tokens)
        except Exception as e:
            if not is_oom(e):
                raise
            failed = str(e).splitlines()[0][:300] if str(e) else "CUDA out of memory"
        finally:
            self.timer = timer
        if failed is not None:
            import gc

            gc.collect()
            self.torch.cuda.empty_cache()
            raise self.torch.cuda.OutOfMemoryError(failed)

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        results: list[str | BaseException] = []
        for g in self._groups(requests):  # one seed per generate call (see _groups)
            try:
                results.extend(self._run(g))
            except Exception as e:  # noqa: BLE001 - e.g. CUDA OOM on a big batch: retry one by one
                if len(g) == 1:
                    results.append(e)
                    continue
                if self.device.type == "cuda":
                    self.torch.cuda.empty_cache()
                for r in g:
                    try:
                        results.extend(self._run([r]))
                    except Exception as e2:  # noqa: BLE001
                        results.append(e2)
        return results

    def close(self) -> None:
        if self._prep_pool is not None:
            self._prep_pool.shutdown(wait=True, cancel_futures=True)
            self._prep_pool = None
        del self.model
        if self.device.type == "cuda":
            self.torch.cuda.empty_cache()


def _load(auto: Any, path: str, dtype: Any, device: Any, kwargs: dict) -> tuple[Any, bool]:
    """The checkpoint's model and whether its weights were read straight onto `device` (`device_map`; the adapter asks
    for it on CUDA unless `VOEBENCH_COLD_START` leaves out `direct`: it saves the copy through the CPU's memory,
    docs/evaluate.md); `device` None: loaded on the CPU, for the caller to move. Where this transformers refuses
    `device_map` (older versions want accelerate for it), the weights load on the CPU, as before."""
    if device is not None:
        try:
            return auto.from_pretrained(path, dtype=dtype, device_map=str(device), **kwargs), True
        except (ImportError, TypeError, ValueError):
            pass  # the usual way below meets (and reports) a real problem with the checkpoint
    try:
        return auto.from_pretrained(path, dtype=dtype, **kwargs), False
    except TypeError:  # transformers < 4.56 spells it torch_dtype
        return auto.from_pretrained(path, torch_dtype=dtype, **kwargs), False


def resolve_path(path: str) -> str:
    """A local folder as an absolute path; anything else is a Hub id, left as is."""
    return os.path.abspath(path) if os.path.isdir(path) else path
