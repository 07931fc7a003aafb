"""Model adapters behind one interface (`base.Adapter`): hf, openai, replay, fake.

`make_adapter("kind:rest", **options)` builds one from a `--model` spec. Heavy imports (torch, transformers)
happen only when an `hf` adapter is built.
"""

from __future__ import annotations

import os

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter, AdapterError, Request

__all__ = ["Adapter", "AdapterError", "Request", "make_adapter", "parse_spec"]

SPEC_HELP = "hf:<path-or-id> | openai:<model>@<base-url> | replay:<file> | fake:<yes|no|random|oracle|first>"


def parse_spec(spec: str) -> tuple[str, str, str | None]:
    """'openai:m@http://h/v1' -> ('openai', 'm', 'http://h/v1'); others -> (kind, rest, None)."""
    kind, sep, rest = spec.partition(":")
    if not sep or not rest or kind not in ("hf", "openai", "replay", "fake"):
        raise UsageError(f"--model {spec!r}: expected {SPEC_HELP}")
    if kind == "openai":
        model, at, url = rest.rpartition("@")
        if not at or not model or not url.startswith(("http://", "https://")):
            raise UsageError(f"--model {spec!r}: expected openai:<model>@<http(s)://base-url>")
        return kind, model, url
    return kind, rest, None


def make_adapter(
    spec: str,
    *,
    batch_size: int = 1,
    dtype: str = "auto",
    device: str = "auto",
    max_new_tokens: int = 32,
    do_sample: bool | None = None,
    temperature: float | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    video_mode: str = "video_url",
    concurrency: int = 4,
    timeout: float = 120.0,
    retries: int = 6,
    backoff: float = 1.0,
    trust_remote_code: bool = False,
    packed_vision_attention: bool | str = False,
) -> Adapter:
    kind, rest, url = parse_spec(spec)
    if kind == "fake":
        from voebench.evaluate.models.fake import KINDS, FakeAdapter  # noqa: PLC0415

        if rest.partition(":")[0] == "psychometric":  # a known psychometric curve (docs/psychometrics.md)
            from voebench.evaluate.models.fake_psychometric import make  # noqa: PLC0415

            return make(rest)
        if rest not in KINDS:
            raise UsageError(f"--model fake:{rest}: kind must be one of {', '.join(KINDS)} "
                             "or psychometric:threshold=T,slope=S")
        return FakeAdapter(rest)
    if kind == "replay":
        from voebench.evaluate.models.replay import ReplayAdapter  # noqa: PLC0415

        if not os.path.isfile(rest):
            raise UsageError(f"--model replay:{rest}: no such file")
        try:
            return ReplayAdapter(rest)
        except ValueError as e:
            raise UsageError(f"--model replay: {e}") from None
    if kind == "openai":
        from voebench.evaluate.models.openai import VIDEO_MODES, OpenAIAdapter  # noqa: PLC0415

        if video_mode not in VIDEO_MODES:
            raise UsageError(f"--video-mode {video_mode}: choose one of {', '.join(VIDEO_MODES)}")
        assert url is not None  # parse_spec gives openai specs a URL
        return OpenAIAdapter(
            rest,
            url,
            api_key=os.environ.get(api_key_env) or None,
            video_mode=video_mode,
            concurrency=concurrency,
            timeout=timeout,
            max_retries=retries,
            backoff=backoff,
            max_tokens=max_new_tokens,
            temperature=temperature,
            batch_size=batch_size,
        )
    # hf
    try:
        from voebench.evaluate.models.hf import DTYPES, HFAdapter, resolve_path  # noqa: PLC0415
    except ImportError as e:
        raise UsageError(f"--model hf: needs the eval extra (pip install 'voebench[eval]'): {e}") from None
    if dtype not in DTYPES:
        raise UsageError(f"--dtype {dtype}: choose one of {', '.join(DTYPES)}")
    try:
        return HFAdapter(
            resolve_path(rest),
            dtype=dtype,
            device=device,
            batch_size=batch_size,
            max_new_tokens=max_new_tokens,
            do_sample=do_sample,
            temperature=temperature,
            trust_remote_code=trust_remote_code,
            packed_vision_attention=packed_vision_attention,
        )
    except ImportError as e:
        raise UsageError(f"--model hf: needs the eval extra (pip install 'voebench[eval]'): {e}") from None
    except OSError as e:  # not a checkpoint folder / unknown Hub id
        raise UsageError(f"--model hf:{rest}: cannot load ({str(e).splitlines()[0]})") from None
