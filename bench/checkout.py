"""Import `voebench.evaluate` from this checkout without installing it (GPU machines with Python 3.12 and no
bpy: the evaluate side needs neither). Used by the GPU benchmark scripts in this folder."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def import_evaluate() -> None:
    try:
        import voebench.evaluate  # noqa: F401  (installed, or the checkout is already mapped)

        return
    except ImportError:
        pass
    sys.path.insert(0, str(REPO))
    import voebench  # the checkout's voebench/ package

    name = "voebench.evaluate"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, REPO / "evaluate" / "__init__.py", submodule_search_locations=[str(REPO / "evaluate")]
        )
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        voebench.evaluate = mod
