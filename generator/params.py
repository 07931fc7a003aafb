"""Randomization spaces as data, and seeded sampling from them.

A test declares its space as a nested dict whose leaves are distributions:

    SPACE = {
        "ball": {"diameter": Range(0.8, 2.0), "color": Choice(["red", "green"])},
        "camera": {"elevation": Range(30, 60)},
        "label": Balanced(["ball", "cube"]),
    }

Users override any leaf without touching code, by dotted key, from a YAML file or the command line:

    ball.diameter: 1.0:1.5      # a range
    ball.color: [red]           # a choice list
    camera.elevation: 45        # a constant

Numeric leaves declare the *domain* of their quantity (what it can physically be: a positive length, a
fraction in [0, 1], a field of view in (0, 180) degrees...; the domains are defined in `domains.py` and
re-exported here), and constants that users may override are `Fixed(value, domain)` leaves:

    "ball": {"diameter": Range(0.8, 2.0, domain=POSITIVE)},
    "camera": {"fov": Fixed(70.0, domain=FOV)},

`Space.override` validates every key and value (unknown keys, empty ranges, wrong types, values that are not
finite or lie outside the leaf's domain) before anything renders, and raises `UsageError` naming the key.
`Space.sample(rng, index)` draws one `Params`.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from voebench.errors import UsageError

# The domains live in their own module; scene scripts import them from here, so every name stays importable.
from voebench.generator.domains import (  # noqa: F401  (re-exported)
    ANGLE,
    COORDINATE,
    COUNT,
    Domain,
    FOV,
    FRACTION,
    INCLINE,
    INDEX,
    NON_NEGATIVE,
    POSITIVE,
    SEED,
    SIGN,
    SIGNED_FRACTION,
)


def derive_seed(base_seed: int, suite: str, test: str, index: int) -> int:
    """A video's seed from (base seed, suite, test, index): stable across Python versions, worker counts
    and shards (never Python's salted `hash()`)."""
    digest = hashlib.sha256(f"{base_seed}/{suite}/{test}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


# --------------------------------------------------------------------------------------------------- leaves


def _numbers(value) -> list:
    """The numbers in a leaf's value (a number or a list of them), bools excluded."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in items if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _require_in(domain: Domain | None, values, what) -> None:
    """Declaration check (a bug in a scene script, not user input): every default lies in its domain."""
    if domain is not None:
        bad = [v for v in values if v not in domain]
        if bad:
            raise ValueError(f"{what}: default {bad[0]!r} outside its domain ({domain})")


class Dist:
    """A leaf of a parameter space."""

    def sample(self, rng: np.random.Generator, index: int) -> Any:
        raise NotImplementedError

    def describe(self) -> Any:
        """The leaf as it would be written in a config file."""
        raise NotImplementedError

    def parse(self, key: str, value: Any) -> Dist:
        """A new leaf of the same kind from a user's value; raises UsageError naming `key`."""
        raise NotImplementedError


@dataclass(frozen=True)
class Range(Dist):
    """Uniform on [lo, hi]; `integer=True` draws integers lo..hi inclusive."""

    lo: float
    hi: float
    integer: bool = False
    domain: Domain | None = None

    def __post_init__(self):
        if self.lo > self.hi:
            raise ValueError(f"empty range {self.lo}:{self.hi}")
        _require_in(self.domain, (self.lo, self.hi), f"Range({self.lo}, {self.hi})")

    def sample(self, rng, index):
        u = rng.random()  # every leaf takes exactly one draw, so overriding one leaf changes only that value
        if self.integer:
            lo, hi = int(self.lo), int(self.hi)
            return min(hi, lo + int(u * (hi - lo + 1)))
        return float(self.lo + u * (self.hi - self.lo))

    def describe(self):
        fmt = (lambda v: str(int(v))) if self.integer else (lambda v: f"{v:g}")
        return fmt(self.lo) if self.lo == self.hi else f"{fmt(self.lo)}:{fmt(self.hi)}"

    def parse(self, key, value):
        if isinstance(value, bool):
            raise UsageError(f"{key}: expected a number or a range lo:hi, got {value!r}")
        if isinstance(value, (int, float)):
            lo = hi = value
        elif isinstance(value, (list, tuple)) and len(value) == 2:
            lo, hi = value
        elif isinstance(value, str):
            parts = value.split(":")
            if len(parts) not in (1, 2):
                raise UsageError(f"{key}: expected a number or a range lo:hi, got {value!r}")
            lo, hi = parts[0], parts[-1]  # type: ignore[assignment]  # text, converted to numbers below
        else:
            raise UsageError(f"{key}: expected a number or a range lo:hi, got {value!r}")
        try:
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise UsageError(f"{key}: expected a number or a range lo:hi, got {value!r}") from None
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise UsageError(f"{key}: range bounds must be finite, got {value!r}{_allowed(self.domain)}")
        if lo > hi:
            raise UsageError(f"{key}: empty range {value!r} (lower bound above upper bound)")
        if self.integer and (lo != int(lo) or hi != int(hi)):
            raise UsageError(f"{key}: expected whole numbers, got {value!r}")
        if self.domain is not None:
            self.domain.check(key, (lo, hi), value)
        return Range(lo, hi, self.integer, self.domain)


@dataclass(frozen=True)
class Choice(Dist):
    """One of `options`, uniformly (or by `weights`)."""

    options: tuple
    weights: tuple | None = None
    domain: Domain | None = None  # for numeric options

    def __init__(self, options, weights=None, domain=None):
        object.__setattr__(self, "options", tuple(options))
        object.__setattr__(self, "weights", None if weights is None else tuple(float(w) for w in weights))
        object.__setattr__(self, "domain", domain)
        if not self.options:
            raise ValueError("empty choice")
        _require_in(domain, _numbers(self.options), f"{type(self).__name__}({list(self.options)})")

    def sample(self, rng, index):
        u = rng.random()  # one draw, as every leaf
        w = np.ones(len(self.options)) if self.weights is None else np.asarray(self.weights, float)
        i = int(np.searchsorted(np.cumsum(w) / w.sum(), u, side="right"))
        return _plain(self.options[min(i, len(self.options) - 1)])

    def describe(self):
        return [_plain(o) for o in self.options]

    def parse(self, key, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        if not values:
            raise UsageError(f"{key}: empty choice list")
        kinds = {type(o) for o in self.options}
        parsed = []
        for v in values:
            if isinstance(v, str) and kinds <= {int, float} and not kinds & {str}:
                try:
                    v = float(v) if float in kinds else int(v)
                except ValueError:
                    raise UsageError(f"{key}: {v!r} is not a number") from None
            if self.domain is not None and _numbers([v]):
                self.domain.check(key, [v], v)
            if not isinstance(v, tuple(kinds)) or isinstance(v, bool) != any(k is bool for k in kinds):
                raise UsageError(f"{key}: {v!r} has the wrong type (expected one like {self.options[0]!r})")
            if self.closed and v not in self.options:
                raise UsageError(f"{key}: {v!r} is not one of {list(self.options)}")
            parsed.append(v)
        return type(self)(parsed, domain=self.domain)

    #: whether users may only narrow the options (labels, shapes the scene knows how to build)
    closed = True


class OpenChoice(Choice):
    """A choice whose options users may replace by any values of the same type (e.g. colours as RGB)."""

    closed = False


class Balanced(Choice):
    """Cycles through `options` by video index, so every option gets the same number of videos (used for
    Level 1 labels: 128 Shape videos are 64 balls and 64 cubes)."""

    def sample(self, rng, index):
        rng.random()  # one draw, as every leaf
        return _plain(self.options[index % len(self.options)])


class Pool(Choice):
    """A set of allowed values that the scene draws from itself (e.g. distinct colours for several
    objects); sampling returns the whole list. Users narrow it to any non-empty subset."""

    def sample(self, rng, index):
        rng.random()  # one draw, as every leaf
        return [_plain(o) for o in self.options]


class Fixed(Dist):
    """A constant that users may override (a camera's field of view, a friction coefficient), with the domain
    its value must lie in. It behaves exactly as a plain constant in the space: sampling takes no random
    draw and returns the value, and it is described (in `voebench params`, dataset.json and every video's
    params) as the plain value. A list of numbers (a point, a colour) has one domain for all of them."""

    def __init__(self, value, domain: Domain | None = None):
        self.value = tuple(value) if isinstance(value, list) else value
        self.domain = domain
        _require_in(domain, _numbers(self.value), f"Fixed({value!r})")

    def __repr__(self):
        return f"Fixed({self.value!r}, domain={self.domain!r})"

    def __eq__(self, other):
        return isinstance(other, Fixed) and (self.value, self.domain) == (other.value, other.domain)

    def __hash__(self):
        return hash((self.value, self.domain))

    def sample(self, rng, index):
        return _plain(self.value)  # no draw: a plain constant takes none

    def describe(self):
        return _plain(self.value)

    def parse(self, key, value):
        new = _parse_constant(key, _plain(self.value), value, self.domain)
        if self.domain is not None:
            self.domain.check(key, _numbers(new), value)
        return Fixed(new, self.domain)


class Level(Dist):
    """The size of a test's violation, in the test's own unit (issue 24: graded violations). A scene declares
    one as its `violation` leaf:

        "violation": Level("m", "displacement", "how far the ball jumps", default="0.3-0.6 m (today's)", hi=1.5)

    Unset, it samples None and takes no random draw: the scene makes the violation it always made (often
    derived from other leaves), so every draw and byte of an ungraded run stays as before, and the scene
    records the size it used (`edits.grade`). Set, it is a constant (`--set t08_inertia_bounce.violation=20`) or
    a range drawn uniformly (`10:30`), within (0, hi]: 0 is the plausible twin itself and is a level only in a
    sweep (`voebench render --sweep`), where the plausible video stands for it.

    `measure` names how the audit measures the size from the ground truth (`generator/audit/levels.py`);
    `tol` is the audit's tolerance on that measurement, in the unit (the declared level must be measured within
    max(tol, 2% of the level))."""

    def __init__(
        self,
        unit: str,
        measure: str,
        what: str,
        default: str,
        hi: float,
        tol: float,
        value: float | tuple | None = None,
    ):
        self.unit, self.measure, self.what, self.default, self.hi, self.tol = unit, measure, what, default, hi, tol
        self.value = value

    def __repr__(self):
        return f"Level({self.unit!r}, {self.measure!r}, value={self.value!r})"

    def __eq__(self, other):
        return isinstance(other, Level) and (self.unit, self.measure, self.hi, self.value) == (
            other.unit,
            other.measure,
            other.hi,
            other.value,
        )

    def __hash__(self):
        return hash((self.unit, self.measure, self.hi, self.value))

    def sample(self, rng, index):
        if self.value is None:
            return None  # the scene's own size; no draw
        if isinstance(self.value, tuple):
            lo, hi = self.value
            return float(lo + rng.random() * (hi - lo))
        return float(self.value)

    def describe(self):
        if self.value is None:
            return "default"
        if isinstance(self.value, tuple):
            return f"{self.value[0]:g}:{self.value[1]:g}"
        return float(self.value)

    def check(self, key: str, level: float, zero: bool = False) -> float:
        """`level` as a valid size of this violation, or UsageError naming the key and the level."""
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not math.isfinite(level):
            raise UsageError(f"{key}: a violation level must be a finite number, got {level!r}")
        if level < 0 or (level == 0 and not zero):
            zero_note = " (0 is the plausible twin: a level only in a sweep)" if level == 0 else ""
            raise UsageError(
                f"{key}: level {level:g} {self.unit} is not a violation{zero_note}; give 0 < level <= "
                f"{self.hi:g} {self.unit}"
            )
        if level > self.hi:
            raise UsageError(
                f"{key}: level {level:g} {self.unit} is infeasible: {self.what} can be at most {self.hi:g} {self.unit}"
            )
        return float(level)

    def parse(self, key, value):
        if isinstance(value, str) and value.strip() == "default":
            return self.with_value(None)
        if isinstance(value, str) and ":" in value:
            parts = value.split(":")
            try:
                lo, hi = (float(x) for x in parts)
            except ValueError:
                raise UsageError(f"{key}: expected a level, a range lo:hi or 'default', got {value!r}") from None
            if lo > hi:
                raise UsageError(f"{key}: empty range {value!r} (lower bound above upper bound)")
            return self.with_value((self.check(key, lo), self.check(key, hi)))
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise UsageError(f"{key}: expected a level, a range lo:hi or 'default', got {value!r}") from None
        return self.with_value(self.check(key, value))

    def with_value(self, value) -> Level:
        return Level(self.unit, self.measure, self.what, self.default, self.hi, self.tol, value)


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


# --------------------------------------------------------------------------------------------------- params


class Params(dict):
    """Sampled parameters: a dict with attribute access (`p.ball.diameter`), JSON-serialisable."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @staticmethod
    def wrap(d):
        if isinstance(d, dict):
            return Params({k: Params.wrap(v) for k, v in d.items()})
        return d


# --------------------------------------------------------------------------------------------------- space


class Space:
    """A test's randomization space: nested dict of `Dist` leaves (or plain constants)."""

    def __init__(self, tree: dict):
        self.tree = tree

    def leaves(self) -> dict[str, Any]:
        out = {}

        def walk(node, prefix):
            for k in node:
                path = f"{prefix}{k}"
                if isinstance(node[k], dict):
                    walk(node[k], path + ".")
                else:
                    out[path] = node[k]

        walk(self.tree, "")
        return out

    def override(self, overrides: dict[str, Any], where: str = "") -> Space:
        """A copy with dotted-key overrides applied; every key and value is validated."""
        tree = copy.deepcopy(self.tree)
        leaves = self.leaves()
        for key, value in overrides.items():
            label = f"{where}{key}"
            if key not in leaves:
                close = difflib.get_close_matches(key, list(leaves), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise UsageError(f"{where}unknown parameter {key}{hint}; `voebench params` lists them")
            old = leaves[key]
            new = old.parse(label, value) if isinstance(old, Dist) else _parse_constant(label, old, value)
            node = tree
            *parents, last = key.split(".")
            for p in parents:
                node = node[p]
            node[last] = new
        return Space(tree)

    def sample(self, rng: np.random.Generator, index: int) -> Params:
        """Draw every leaf in a fixed (declaration) order."""

        def draw(node):
            return {
                k: draw(v) if isinstance(v, dict) else (v.sample(rng, index) if isinstance(v, Dist) else v)
                for k, v in node.items()
            }

        return Params.wrap(draw(self.tree))

    def describe(self) -> dict:
        def walk(node):
            return {
                k: walk(v) if isinstance(v, dict) else (v.describe() if isinstance(v, Dist) else _plain(v))
                for k, v in node.items()
            }

        return walk(self.tree)


def _allowed(domain) -> str:
    return f" (allowed: {domain})" if domain is not None else ""


def _parse_constant(key, old, value, domain=None):
    if isinstance(old, bool):
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        if not isinstance(value, bool):
            raise UsageError(f"{key}: expected true or false, got {value!r}")
        return value
    if isinstance(old, (int, float)):
        try:
            if isinstance(value, bool):
                raise TypeError
            v = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"{key}: expected a number, got {value!r}") from None
        if not math.isfinite(v):
            raise UsageError(f"{key}: expected a finite number, got {value!r}{_allowed(domain)}")
        if isinstance(old, int):
            if v != int(v):
                raise UsageError(f"{key}: expected a whole number, got {value!r}")
            return int(v)
        return v
    if isinstance(old, str):
        if not isinstance(value, str):
            raise UsageError(f"{key}: expected text, got {value!r}")
        return value
    if isinstance(old, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(old):
            raise UsageError(f"{key}: expected a list of {len(old)} values, got {value!r}")
        return [_parse_constant(f"{key}[{i}]", o, v, domain) for i, (o, v) in enumerate(zip(old, value))]
    raise UsageError(f"{key}: cannot be overridden")


# --------------------------------------------------------------------------------------------------- config


def parse_set(items: list[str]) -> list[tuple[str, Any]]:
    """`--set key=value` items into (key, value); values are read as YAML scalars/lists ("[red, blue]")."""
    import yaml

    out = []
    for item in items:
        if "=" not in item:
            raise UsageError(f"--set {item!r}: expected KEY=VALUE, e.g. camera.elevation=20:40")
        key, raw = item.split("=", 1)
        key = key.strip()
        if not key:
            raise UsageError(f"--set {item!r}: empty key")
        raw = raw.strip()
        try:
            value = yaml.load(raw, Loader=config_loader()) if raw.startswith("[") else raw
        except yaml.YAMLError:
            raise UsageError(f"--set {key}: cannot read value {raw!r}") from None
        out.append((key, value))
    return out


def load_config_file(path: str) -> dict[str, dict[str, Any]]:
    """A YAML file of per-test overrides:

        grasp-l1/shape:            # or a bare test name, or "*" for every selected test that has the key
          object.size: 1.0:1.5
        "*":
          camera.distance: 8:10

    Nested mappings are flattened to dotted keys."""
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=config_loader())
    except OSError as e:
        raise UsageError(f"--config {path}: {e.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise UsageError(f"--config {path}: not valid YAML ({str(e).splitlines()[0]})") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise UsageError(f"--config {path}: expected a mapping of test names to parameter overrides")
    out = {}
    for scope, body in data.items():
        if not isinstance(body, dict):
            raise UsageError(f"--config {path}: {scope}: expected a mapping of parameters")
        out[str(scope)] = _flatten(body)
    return out


_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)$")
_FLOAT = re.compile(
    r"^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?$|^[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$"
    r"|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$"
)


def config_loader():
    """PyYAML's safe loader, except that `lo:hi` is always text. YAML 1.1 reads `1:30` as the base-60
    number 90 (and `1:2.5` as 62.5), so `start_delay: 1:3` in a config file became 63 s instead of a range;
    here numbers are only plain decimal ones (no base 60, hex or octal)."""
    import yaml

    class ConfigLoader(yaml.SafeLoader):
        pass

    int_tag, float_tag = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
    ConfigLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in (int_tag, float_tag)]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    ConfigLoader.add_implicit_resolver(int_tag, _INT, list("-+0123456789"))
    ConfigLoader.add_implicit_resolver(float_tag, _FLOAT, list("-+0123456789."))
    return ConfigLoader


def _flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))
