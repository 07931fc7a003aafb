"""Scene scripts, one short file per test, grouped by suite. `REGISTRY` maps suite names to suites."""

from __future__ import annotations

import importlib

from voebench.generator.suite import SuiteRegistry

# suite name -> (package, class name). Imported on first use so a broken or absent suite never blocks another.
_SUITES = {
    "grasp-l1": ("voebench.scenes.grasp_l1", "GraspLevel1"),
    "grasp-l2": ("voebench.scenes.grasp_l2", "GraspLevel2"),
    "avoe": ("voebench.scenes.avoe", "AVoE"),
}


class _LazyRegistry(SuiteRegistry):
    def get(self, name):
        if name in _SUITES and name not in self.suites:
            package, cls = _SUITES[name]
            try:
                module = importlib.import_module(package)
            except ModuleNotFoundError as e:
                if e.name != package:
                    raise
            else:
                self.suites[name] = getattr(module, cls)()
        return super().get(name)

    def names(self):
        return list(_SUITES)


REGISTRY = _LazyRegistry()
