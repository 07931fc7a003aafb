"""Model kinds behind names: the `kind` of a `--model kind:rest` spec is looked up in `MODELS`.

A kind is one class in one file under `evaluate/models/kinds/`, registered with `@register("name")`:

- `__init__(rest)` parses the part after `name:` (raising `UsageError` in one line on a bad one);
- `add_arguments(group)` (a classmethod) declares the kind's own command-line options on `voebench evaluate`, in an
  argument group titled `title`; their defaults are the kind's defaults for `make_adapter` too;
- `build(options)` returns the `Adapter`; `options` holds every option by its argparse name (`options.dtype`):
  the kind's own, `COMMON` (the asking settings every kind may read) and whatever else the caller passed.

The files under `kinds/` are imported the first time `MODELS` is read, so they must import heavy packages (torch,
transformers, numpy) only inside their methods: `voebench --help` lists the kinds and adds their options without
loading a model. `--help`, the errors for an unknown kind and `make_adapter` all read the registry: adding a kind
is that one file.

`WORLD_MODELS` is the registry of world-model kinds (scored by surprise, `evaluate/surprise`): the modules of
`voebench.evaluate.surprise.kinds` register there, each entry with a `spec` class attribute (the part after
`name:` as `--help` shows it, "" for a kind that takes none); `voebench evaluate` hands a spec whose kind is
registered there to the surprise scorer instead of an adapter.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter
from voebench.evaluate.registry import Registry

__all__ = ["COMMON", "MODELS", "WORLD_MODELS", "ModelKind", "add_arguments", "make_adapter", "parse_spec", "register"]

#: options every kind may read, with their defaults: `voebench evaluate` sets them from --batch-size and the
#: asking settings (evaluate/ask.py); `predict` from its own flags
COMMON: dict[str, Any] = {"batch_size": 1, "max_new_tokens": 32, "do_sample": None, "temperature": None}


class ModelKind:
    """One `--model` kind. Subclasses set `spec` (the part after `name:` in help texts) and `title` (the argument
    group of `add_arguments`; None: the kind has no options of its own) and override `build`."""

    name: ClassVar[str] = ""  # set by `register`
    spec: ClassVar[str] = "<rest>"
    title: ClassVar[str | None] = None

    def __init__(self, rest: str) -> None:
        if not rest:
            raise UsageError(f"--model {self.name}: expected {self.usage()}")
        self.rest = rest

    @classmethod
    def usage(cls) -> str:
        return f"{cls.name}:{cls.spec}" if cls.spec else cls.name

    @classmethod
    def add_arguments(cls, group: Any) -> None:
        """Declare this kind's own options on `group` (an argparse parser or argument group); none by default."""

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The defaults of the options `add_arguments` declares, by argparse name."""
        parser = argparse.ArgumentParser(add_help=False)
        cls.add_arguments(parser)
        return vars(parser.parse_args([]))

    def build(self, options: argparse.Namespace) -> Adapter:
        raise NotImplementedError(f"model kind {self.name!r} builds no adapter")


MODELS: Registry[type[ModelKind]] = Registry("model kind", flag="--model", packages=("voebench.evaluate.models.kinds",))
WORLD_MODELS: Registry[Any] = Registry(
    "world-model kind", flag="--model", packages=("voebench.evaluate.surprise.kinds",)
)

K = TypeVar("K", bound=type[ModelKind])


def register(name: str) -> Callable[[K], K]:
    """Class decorator: `@register("hf")` names the kind and adds it to `MODELS`."""

    def add(cls: K) -> K:
        cls.name = name
        MODELS.register(name)(cls)
        return cls

    return add


def parse_spec(spec: str) -> ModelKind:
    """The kind of a `--model` spec with its rest parsed; one-line UsageError for an unknown kind or a bad rest."""
    name, sep, rest = spec.partition(":")
    if name not in MODELS:
        raise UsageError(MODELS.unknown(name, shown=repr(spec), known=spec_help()))
    return MODELS.get(name)(rest)


def make_adapter(spec: str, **options: Any) -> Adapter:
    """The adapter of `spec`, built with `options` over `COMMON` and the kind's own defaults; options the kind does
    not read are ignored (the command line passes all of its arguments)."""
    kind = parse_spec(spec)
    return kind.build(argparse.Namespace(**{**COMMON, **type(kind).defaults(), **options}))


def add_arguments(parser: Any) -> None:
    """Every kind's own options, each kind in its argument group (for `voebench evaluate`)."""
    for _, cls in MODELS.items():
        if cls.title is not None:
            cls.add_arguments(parser.add_argument_group(cls.title))


def spec_help() -> str:
    """'hf:<path-or-id> | openai:<model>@<base-url> | ...': the registered kinds, for `--model`'s help."""
    return " | ".join(cls.usage() for _, cls in MODELS.items())


def world_model_help() -> str:
    """The registered world-model kinds as `--model` takes them ("" when none is registered)."""
    return " | ".join(f"{n}:{c.spec}" if getattr(c, "spec", "") else n for n, c in WORLD_MODELS.items())
