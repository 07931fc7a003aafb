"""Scene-module contracts as typed `Protocol`s, checked twice: by mypy, and when a suite loads.

A suite's scene scripts are modules, and a module satisfies a `Protocol` structurally (mypy checks a module
against one where a module is assigned to it). Each suite states its contract as a Protocol class extending
`SceneModule`: constants as read-only properties (their type; a property, so a module's `"C"` satisfies `str`
and its `("start_delay", "hold")` satisfies `tuple[str, ...]`), functions as methods (their parameter names,
after `self`, are the module function's). `contract_of` reads a Protocol into the table `check_module` enforces
at run time, so the one declaration is what mypy checks and what `load_suite` checks.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any, Protocol, Union

from voebench.generator.params import Params
from voebench.generator.scene import Scene

#: a member of a contract: a constant's runtime type(s), or a function's parameter names
Want = tuple[type, ...] | tuple[str, ...]


class SceneModule(Protocol):
    """What every scene module defines, whatever its suite."""

    @property
    def SPACE(self) -> dict[str, Any]:
        """Its randomization space (generator.params leaves), sampled in declaration order."""
        ...

    def build(self, scene: Scene, p: Params, condition: str) -> None:
        """Add objects, camera and motion to `scene` from the sampled `p`, as seen in `condition`."""
        ...

    def describe(self, scene: Scene, p: Params, condition: str) -> str:
        """The built video in words (text-only controls, docs)."""
        ...


def _runtime_types(hint: Any) -> tuple[type, ...]:
    """The classes `isinstance` checks for a type hint: `dict[str, Any]` -> (dict,), `str | None` -> (str, NoneType)."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return tuple(t for arg in typing.get_args(hint) for t in _runtime_types(arg))
    if hint is None or hint is type(None):
        return (type(None),)
    if origin is not None:
        return (origin,)
    return (hint,)


def contract_of(protocol: type) -> dict[str, Want]:
    """A Protocol's members, from the base class down: property -> the types of its value, method -> its
    parameter names without `self`."""
    out: dict[str, Want] = {}
    for cls in reversed(protocol.__mro__):
        if cls is object or cls is Protocol or not getattr(cls, "_is_protocol", False):
            continue
        for name, member in vars(cls).items():
            if isinstance(member, property) and member.fget is not None:
                out[name] = _runtime_types(typing.get_type_hints(member.fget)["return"])
            elif inspect.isfunction(member) and not name.startswith("_"):
                out[name] = tuple(inspect.signature(member).parameters)[1:]
    return out


def contract_problems(module: types.ModuleType, contract: dict[str, Want], suite: str) -> list[str]:
    """What `module` lacks or gets wrong against `contract` (empty: it complies), one line each."""
    problems = []
    for name, want in contract.items():
        if not hasattr(module, name):
            problems.append(f"{module.__name__}: a {suite} scene module must define {name}")
            continue
        have = getattr(module, name)
        if not want or isinstance(want[0], str):  # a function: its parameter names
            params = tuple(inspect.signature(have).parameters) if callable(have) else None
            if params != want:
                problems.append(f"{module.__name__}.{name} must take ({', '.join(map(str, want))}), not {params}")
        elif not isinstance(have, tuple(t for t in want if isinstance(t, type))):
            names = " or ".join("None" if t is type(None) else t.__name__ for t in want if isinstance(t, type))
            problems.append(f"{module.__name__}.{name} must be a {names}, not {type(have).__name__}")
    return problems
