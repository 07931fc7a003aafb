"""Import `voebench.evaluate` from this checkout without installing it (GPU machines with Python 3.12 and no
bpy: the evaluate side needs neither). The import root is the ordinary package under src/ (pyproject.toml), so
this is the same as running a script with `PYTHONPATH=src`."""

from __future__ import annotations

import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def import_evaluate() -> None:
    """Put the checkout's src/ first on the import path (an installed voebench of another checkout loses)."""
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
