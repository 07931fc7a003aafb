"""The two thresholds at which the audit tells a change from none, owned here so that scenes may read them
without importing the audit: a scene that stages a violation stages it beyond them (Level 2 t01 and t02 change a
colour by more than COLOR_TOL; t05 makes its jump faster than MAX_SPEED), and the audit judges every video by
the same values (audit/tolerances.py re-exports them with its other tolerances)."""

from __future__ import annotations

MAX_SPEED = 30.0  # m/s: faster than anything in these scenes (AVoE: objects launched at up to 15 m/s, a small
# one struck elastically by a large one at 11 m/s leaves at up to 22 m/s, screens sweep at 25 m/s); more is a jump
COLOR_TOL = 1e-4  # linear RGB: colours are written as float32 constants; any real change is larger
