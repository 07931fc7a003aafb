"""The domains of numeric parameters: the values a quantity can physically take (a positive length, a fraction in
[0, 1], a field of view in (0, 180) degrees...), and the named domains the scene scripts declare their leaves with.

A domain bounds what a user's override may say, not what a scene samples: `voebench.generator.params` checks every
override against its leaf's domain and refuses one outside it with a `UsageError` naming the key. The names are
re-exported by `voebench.generator.params`, which is where scene scripts import them from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from voebench.errors import UsageError


@dataclass(frozen=True)
class Domain:
    """The values a quantity can physically take, e.g. a length is positive and a fraction lies in [0, 1].
    A domain is not the sampled range (that is the leaf's own business, and usually much narrower): it is
    the bound past which the number stops meaning anything (a negative diameter, a field of view of 180
    degrees), so that a user's override outside it is refused before anything renders."""

    name: str
    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False

    def __contains__(self, v) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return False
        if self.integer and v != int(v):
            return False
        above = v > self.lo if self.lo_open else v >= self.lo
        below = v < self.hi if self.hi_open else v <= self.hi
        return above and below

    def interval(self) -> str:
        fmt = lambda v: f"{v:g}" if abs(v) < 1e6 else f"{v:.4g}"  # noqa: E731
        whole = "whole number " if self.integer else ""
        if self.lo == -math.inf and self.hi == math.inf:
            return f"any finite {whole or 'number '}".rstrip()
        if self.hi == math.inf:
            return f"{whole}{'>' if self.lo_open else '>='} {fmt(self.lo)}"
        if self.lo == -math.inf:
            return f"{whole}{'<' if self.hi_open else '<='} {fmt(self.hi)}"
        return f"{whole}in {'(' if self.lo_open else '['}{fmt(self.lo)}, {fmt(self.hi)}{')' if self.hi_open else ']'}"

    def __str__(self) -> str:
        return f"{self.name}, {self.interval()}"

    def check(self, key: str, values, shown) -> None:
        """Raise UsageError naming `key` unless every number of `values` lies in the domain."""
        for v in values:
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isfinite(v):
                raise UsageError(f"{key}: {shown!r} is not a finite number (allowed: {self})")
            if v not in self:
                raise UsageError(f"{key}: {shown!r} is outside the allowed values ({self})")


# The domains the scene scripts use. Name them by the quantity, so that a refusal says what the number is.
#: offsets, positions and heights in metres: any finite value
COORDINATE = Domain("a coordinate or offset (m)")
#: sizes, lengths, distances that must not vanish, speeds, accelerations (m, m/s, m/s^2, deg/s)
POSITIVE = Domain("a positive size, length or speed", 0.0, lo_open=True)
#: times (s), gaps and distances that may be zero, friction and rolling resistance
NON_NEGATIVE = Domain("a non-negative time, gap or distance", 0.0)
#: fractions, colour components (RGB, HSV), hue shifts, probabilities, coefficients of restitution
FRACTION = Domain("a fraction", 0.0, 1.0)
#: a signed fraction (a position across a width, centred)
SIGNED_FRACTION = Domain("a signed fraction", -1.0, 1.0)
#: a camera's field of view: 0 and 180 degrees do not make a perspective image
FOV = Domain("a field of view in degrees", 0.0, 180.0, lo_open=True, hi_open=True)
#: orientations (yaw, pitch, roll), degrees: one turn either way
ANGLE = Domain("an angle in degrees", -360.0, 360.0)
#: an inclination or deflection from a line or the floor, degrees: flat and vertical are not slopes
INCLINE = Domain("an inclination in degrees", 0.0, 90.0, lo_open=True, hi_open=True)
#: how many of something (objects, substeps, frames of a push, list steps)
COUNT = Domain("a whole count", 1.0, integer=True)
#: a frame number of the original animation (0-based or 1-based), or an index into a list
INDEX = Domain("a frame number or index", 0.0, integer=True)
#: a side: -1 or +1
SIGN = Domain("a side (-1 or 1)", -1.0, 1.0, integer=True)
#: a random seed (textures, arrangements); ranges are read as floats, which hold whole numbers exactly up to 2**53
SEED = Domain("a seed", 0.0, 2.0**53, integer=True)
