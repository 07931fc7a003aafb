"""Model adapters behind one interface (`base.Adapter`), built from a `--model kind:rest` spec.

The kinds (hf, openai, replay, fake, ...) are classes registered by name in `kind.MODELS`, one file each under
`kinds/`; `make_adapter(spec, **options)` looks the kind up, lets it parse its spec and build its adapter.
Heavy imports (torch, transformers) happen only when an `hf` adapter is built.
"""

from __future__ import annotations

from voebench.evaluate.models.base import Adapter, AdapterError, Request
from voebench.evaluate.models.kind import MODELS, WORLD_MODELS, ModelKind, make_adapter, parse_spec, register

__all__ = [
    "MODELS",
    "WORLD_MODELS",
    "Adapter",
    "AdapterError",
    "ModelKind",
    "Request",
    "make_adapter",
    "parse_spec",
    "register",
]
