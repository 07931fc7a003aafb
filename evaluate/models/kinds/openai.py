"""`openai:<model>@<base-url>`: a model behind an OpenAI-compatible chat API (evaluate/models/openai.py)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter
from voebench.evaluate.models.kind import ModelKind, register

VIDEO_MODES = ("video_url", "video_file", "frames")  # how a clip is sent (the adapter reads them here)


def _positive_int(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--concurrency must be an integer, got {s!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError("--concurrency must be at least 1")
    return v


@register("openai")
class OpenAI(ModelKind):
    """The spec's last '@' splits the model name from the server's base URL (http:// or https://)."""

    spec = "<model>@<base-url>"
    title = "openai adapter"

    def __init__(self, rest: str) -> None:
        model, at, url = rest.rpartition("@")
        if not at or not model or not url.startswith(("http://", "https://")):
            raise UsageError(f"--model 'openai:{rest}': expected openai:<model>@<http(s)://base-url>")
        super().__init__(model)
        self.url = url

    @classmethod
    def add_arguments(cls, group: Any) -> None:
        group.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
        group.add_argument("--video-mode", default="video_url", choices=VIDEO_MODES)
        group.add_argument("--concurrency", type=_positive_int, default=4)
        group.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
        group.add_argument("--retries", type=int, default=6, help="retries per request (exponential backoff)")
        group.add_argument("--backoff", type=float, default=1.0, help="first retry delay in seconds")

    def build(self, options: argparse.Namespace) -> Adapter:
        from voebench.evaluate.models.openai import OpenAIAdapter  # numpy: frames

        if options.video_mode not in VIDEO_MODES:
            raise UsageError(f"--video-mode {options.video_mode}: choose one of {', '.join(VIDEO_MODES)}")
        return OpenAIAdapter(
            self.rest,
            self.url,
            api_key=os.environ.get(options.api_key_env) or None,
            video_mode=options.video_mode,
            concurrency=options.concurrency,
            timeout=options.timeout,
            max_retries=options.retries,
            backoff=options.backoff,
            max_tokens=options.max_new_tokens,
            temperature=options.temperature,
            batch_size=options.batch_size,
        )
