"""One generic registry: things (model kinds, judges, world-model kinds) behind names.

A module that provides a thing registers it where it is defined::

    MODELS: Registry[type[ModelKind]] = Registry("model kind", flag="--model")

    @MODELS.register("hf")
    class HF(ModelKind): ...

so adding one is one new file and no list elsewhere to keep: lookups, `--help` texts and error messages read the
registry. A lookup of an unknown name raises `UsageError` in one line that names the known ones.

`packages` names packages whose submodules register things when imported; they are imported (every submodule, in
name order) the first time the registry is read, not when it is created, so the module defining a registry stays
light and `voebench --help` does not import what the entries need (torch, transformers): entries must themselves
import heavy packages only inside their functions. A submodule whose import fails is skipped with its error kept
(`Registry.failed`), so one broken optional entry does not take the others down.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from voebench.errors import UsageError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one sort, in registration order; `what` names the sort in messages ("model kind"),
    `flag` the CLI option that takes a name (for messages), `packages` the packages to import on first read."""

    def __init__(self, what: str, *, flag: str | None = None, packages: tuple[str, ...] = ()) -> None:
        self.what = what
        self.flag = flag
        self.packages = packages
        self._entries: dict[str, T] = {}
        self._loaded = not packages
        self.failed: dict[str, str] = {}  # submodule -> why its import failed

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: `@REG.register("name")` adds the decorated thing under `name` and returns it unchanged.
        A second registration of a taken name by a different thing is a programming error (ValueError)."""
        if not name or name != name.strip():
            raise ValueError(f"{self.what} name {name!r}: must be non-empty without surrounding spaces")

        def add(thing: T) -> T:
            old = self._entries.get(name)
            if old is not None and old is not thing and _qualname(old) != _qualname(thing):
                raise ValueError(f"{self.what} {name!r} registered twice ({_qualname(old)}, {_qualname(thing)})")
            self._entries[name] = thing  # the same class re-imported (e.g. a module reloaded) replaces itself
            return thing

        return add

    def add(self, name: str, thing: T) -> T:
        """`register(name)(thing)` for things that are not defined with a decorator (a function's result)."""
        return self.register(name)(thing)

    def get(self, name: str, shown: str | None = None) -> T:
        """The entry called `name`; an unknown name raises UsageError naming the known ones (`shown`: how the
        user wrote it, e.g. the whole spec, for the message)."""
        self._load()
        try:
            return self._entries[name]
        except KeyError:
            raise UsageError(self.unknown(name, shown)) from None

    def unknown(self, name: str, shown: str | None = None, known: str | None = None) -> str:
        """The one-line message for an unknown `name` (`shown`: how the user wrote it; `known`: the known names as
        the message should list them), naming the entries whose module failed to import, if any."""
        where = f"{self.flag} {shown or repr(name)}" if self.flag else shown or repr(name)
        broken = [f"{m} ({why})" for m, why in self.failed.items() if m not in self.packages]
        why = f"; not loaded: {', '.join(broken)}" if broken else ""
        known = known if known is not None else ", ".join(self.names()) or "(none)"
        what = f"{self.what} {name!r}" if shown else self.what
        return f"{where}: unknown {what}; known: {known}{why}"

    def names(self) -> list[str]:
        """Registered names, in registration order (package submodules in name order)."""
        self._load()
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        self._load()
        return list(self._entries.items())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True  # set first: a submodule that reads the registry while importing must not recurse
        for package in self.packages:
            try:
                mod = importlib.import_module(package)
            except ModuleNotFoundError as e:  # a package that registers nothing yet (or an optional one)
                if e.name != package:
                    raise
                self.failed[package] = str(e)
                continue
            for info in sorted(pkgutil.iter_modules(getattr(mod, "__path__", [])), key=lambda m: m.name):
                full = f"{package}.{info.name}"
                try:
                    importlib.import_module(full)
                except ImportError as e:
                    self.failed[full] = str(e)


def _qualname(thing: object) -> str:
    return f"{getattr(thing, '__module__', '?')}.{getattr(thing, '__qualname__', type(thing).__qualname__)}"
