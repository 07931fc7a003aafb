"""`Video`: one video's written ground truth (read from its HDF5 alone), with its objects as `Track`s, its
violation record, and derived motion and contact geometry computed on demand and cached."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from voebench.generator.contacts import PairGeometry, frame_steps, near_frames, pair_geometry
from voebench.generator.audit.physics import physics_findings
from voebench.generator.solids import Shape, Track
from voebench.generator.audit.tolerances import CONTACT_TOL


class Video:
    """A video's ground truth plus the derived motion (velocity, acceleration) and contact geometry."""

    def __init__(self, path: str, entry: dict | None = None):
        from voebench.generator.io.hdf5 import read_states

        s = read_states(path)
        self.path = path
        self.attrs = s["attrs"]
        self.entry = entry or {}
        self.fps = float(self.attrs["fps"])
        self.n_frames = int(self.attrs["n_frames"])
        self.tracks: dict[str, Track] = {}
        for name, o in s["objects"].items():
            vp = o.get("visible_pixels", np.full(self.n_frames, -1))
            # files written before the `fixture` attribute existed: None, and the role names decide (shapes.py)
            fixture = bool(o["fixture"]) if "fixture" in o else None
            self.tracks[name] = Track(
                name,
                str(o["role"]),
                Shape(str(o["shape"]), o["dimensions"]),
                bool(o.get("dynamic", False)),
                np.asarray(o["position"], float),
                np.asarray(o["quaternion"], float),
                np.asarray(o["color"], float),
                np.asarray(o["visible"], bool),
                np.asarray(vp, np.int64),
                fixture,
            )
        self.camera = s["camera"]
        v = s.get("violation")
        self.violation: dict[str, Any] | None = None  # the record, strings decoded (None: the video has none)
        if v is not None:
            self.violation = {k: (x.decode() if isinstance(x, bytes) else x) for k, x in v.items()}
            if isinstance(self.violation.get("principles"), str):
                self.violation["principles"] = json.loads(self.violation["principles"])
            for k in ("first_frame", "last_frame"):
                self.violation[k] = int(self.violation[k])
            self.violation["hidden"] = bool(self.violation.get("hidden", False))
        self._pairs: dict = {}
        self._physics: list | None = None

    @property
    def record(self) -> dict[str, Any]:
        """The violation record, for the checks that run only on a video that has one (`audit_video` calls
        them only then)."""
        if self.violation is None:
            raise ValueError(f"{self.path}: the video has no violation record")
        return self.violation

    def physics(self) -> list:
        """Every physics check's findings (computed once)."""
        if self._physics is None:
            self._physics = physics_findings(self)
        return self._physics

    @property
    def condition(self) -> str:
        return str(self.attrs.get("condition", ""))

    def velocity(self, name: str) -> np.ndarray:
        """(T-1,3) m/s between frame t and t+1."""
        return np.diff(self.tracks[name].position, axis=0) * self.fps

    def geometry(self, a: str, b: str) -> PairGeometry:
        """Gap/normal between a and b at every frame where they are near each other."""
        if (a, b) not in self._pairs:
            ta, tb = self.tracks[a], self.tracks[b]
            margin = CONTACT_TOL + 2 * (frame_steps(ta) + frame_steps(tb))  # contacts between frames count
            frames = near_frames(ta, tb, margin)
            self._pairs[(a, b)] = pair_geometry(ta, tb, frames)
        return self._pairs[(a, b)]

    def others(self, name: str):
        return [n for n in self.tracks if n != name]
