"""`hf:<path-or-id>`: a local Hugging Face video VLM through transformers' ``AutoModelForImageTextToText`` and the
checkpoint's own ``AutoProcessor`` chat template.

We decode the frames ourselves (PyAV, `frames.read_frames`: exactly the indices the harness chose and logged) and
pass them as numpy arrays plus ``VideoMetadata`` (original fps, total frames, the chosen indices) with
``do_sample_frames=False``, so the processor neither resamples nor needs torchcodec. Batches are left-padded.
Tested with Qwen2.5-VL and SmolVLM2; other families whose processor takes ``videos=`` (LLaVA-OneVision, ...) use
the same path.
"""

from __future__ import annotations

import os
from typing import Any

from voebench.evaluate import frames as frames_mod
from voebench.evaluate.models.base import Adapter, Request

DTYPES = ("auto", "float32", "bfloat16", "float16")


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
    ):
        import torch  # noqa: PLC0415
        from transformers import AutoModelForImageTextToText, AutoProcessor  # noqa: PLC0415

        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}")
        self.torch = torch
        self.path = path
        self.name = f"hf:{path}"
        self.decodes_video = True
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
        self.processor = AutoProcessor.from_pretrained(path, trust_remote_code=trust_remote_code)
        tok = getattr(self.processor, "tokenizer", None)
        if tok is not None:
            tok.padding_side = "left"  # decoder-only generation needs left padding in a batch
            if tok.pad_token is None and tok.eos_token is not None:
                tok.pad_token = tok.eos_token
        kwargs: dict[str, Any] = {"trust_remote_code": trust_remote_code}
        if attn_implementation:
            kwargs["attn_implementation"] = attn_implementation
        try:
            model = AutoModelForImageTextToText.from_pretrained(path, dtype=torch_dtype, **kwargs)
        except TypeError:  # transformers < 4.56 spells it torch_dtype
            model = AutoModelForImageTextToText.from_pretrained(path, torch_dtype=torch_dtype, **kwargs)
        self.model = model.to(self.device).eval()

    def settings(self) -> dict:
        return {
            "model": self.path,
            "dtype": str(self.dtype).replace("torch.", ""),
            "max_new_tokens": self.max_new_tokens,
            "do_sample": self.do_sample,
            "temperature": self.temperature,
        }

    # -- conversion ------------------------------------------------------------------------------------------
    @staticmethod
    def _conversation(messages: list[dict]) -> tuple[list[dict], list[dict]]:
        conv, videos = [], []
        for m in messages:
            content = []
            if m.get("video"):
                content.append({"type": "video"})
                videos.append(m["video"])
            content.append({"type": "text", "text": m["text"]})
            conv.append({"role": m["role"], "content": content})
        return conv, videos

    def _inputs(self, requests: list[Request]):
        from transformers.video_utils import VideoMetadata  # noqa: PLC0415

        texts, videos, metas = [], [], []
        convs = [self._conversation(r.messages) for r in requests]
        frames_mod.prefetch((v["path"], v["indices"]) for _, vids in convs for v in vids)  # decode in parallel
        for conv, vids in convs:
            texts.append(self.processor.apply_chat_template(conv, tokenize=False, add_generation_prompt=True))
            for v in vids:
                videos.append(frames_mod.read_frames(v["path"], v["indices"]))
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
        kwargs = {"text": texts, "padding": True, "return_tensors": "pt"}
        if videos:
            kwargs.update(videos=videos, video_metadata=metas, do_sample_frames=False)
        try:
            inputs = self.processor(**kwargs)
        except TypeError:  # an older processor without video_metadata / do_sample_frames: frames as they are
            kwargs.pop("video_metadata", None)
            kwargs.pop("do_sample_frames", None)
            inputs = self.processor(**kwargs)
        out = {}
        for k, v in inputs.items():
            if hasattr(v, "to"):
                v = v.to(self.device)
                if v.is_floating_point():
                    v = v.to(self.dtype)
            out[k] = v
        return out

    def _run(self, requests: list[Request]) -> list[str]:
        torch = self.torch
        inputs = self._inputs(requests)
        gen: dict[str, Any] = {"max_new_tokens": self.max_new_tokens}
        if self.do_sample is not None:
            gen["do_sample"] = self.do_sample
        if self.temperature is not None:
            gen["temperature"] = self.temperature
        torch.manual_seed(requests[0].seed)
        with torch.inference_mode():
            out = self.model.generate(**inputs, **gen)
        new = out[:, inputs["input_ids"].shape[1] :]
        return [t.strip() for t in self.processor.batch_decode(new, skip_special_tokens=True)]

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        results: list[str | BaseException] = []
        for i in range(0, len(requests), self.batch_size):
            chunk = requests[i : i + self.batch_size]
            # one seed per generate call: split a chunk where the repeat seed changes
            groups: list[list[Request]] = []
            for r in chunk:
                if groups and groups[-1][0].seed == r.seed:
                    groups[-1].append(r)
                else:
                    groups.append([r])
            for g in groups:
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
        del self.model
        if self.device.type == "cuda":
            self.torch.cuda.empty_cache()


def resolve_path(path: str) -> str:
    """A local folder as an absolute path; anything else is a Hub id, left as is."""
    return os.path.abspath(path) if os.path.isdir(path) else path
