"""`hf:<path-or-id>`: a Hugging Face video-language model run locally (evaluate/models/hf.py)."""

from __future__ import annotations

import argparse
from typing import Any

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter
from voebench.evaluate.models.kind import ModelKind, register

DTYPES = ("auto", "float32", "bfloat16", "float16")  # the adapter reads them here: --help needs no numpy
EXTRA = "needs the eval extra (pip install 'voebench[eval]')"


@register("hf")
class HF(ModelKind):
    """A transformers checkpoint folder or Hub id; `--device` and `--dtype` are read by world models too."""

    spec = "<path-or-id>"
    title = "hf adapter"

    @classmethod
    def add_arguments(cls, group: Any) -> None:
        group.add_argument("--dtype", default="auto", choices=DTYPES)
        group.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1, ...")
        group.add_argument("--trust-remote-code", action="store_true")
        group.add_argument(
            "--packed-vision-attention",
            default="auto",
            choices=("auto", "on", "off"),
            help="Qwen2/2.5-VL without flash-attn: all vision windows in one attention call per layer; auto "
            "(default) = on for CUDA devices, where it measured identical answers and 3.2x the samples/s "
            "(docs/evaluate.md)",
        )

    def build(self, options: argparse.Namespace) -> Adapter:
        try:
            from voebench.evaluate.models.hf import HFAdapter, resolve_path
        except ImportError as e:
            raise UsageError(f"--model hf: {EXTRA}: {e}") from None
        if options.dtype not in DTYPES:
            raise UsageError(f"--dtype {options.dtype}: choose one of {', '.join(DTYPES)}")
        try:
            return HFAdapter(
                resolve_path(self.rest),
                dtype=options.dtype,
                device=options.device,
                batch_size=options.batch_size,
                max_new_tokens=options.max_new_tokens,
                do_sample=options.do_sample,
                temperature=options.temperature,
                trust_remote_code=options.trust_remote_code,
                packed_vision_attention=options.packed_vision_attention,
            )
        except ImportError as e:
            raise UsageError(f"--model hf: {EXTRA}: {e}") from None
        except OSError as e:  # not a checkpoint folder / unknown Hub id
            raise UsageError(f"--model hf:{self.rest}: cannot load ({str(e).splitlines()[0]})") from None
