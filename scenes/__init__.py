"""Scene scripts, one short file per test, grouped by suite. `REGISTRY` maps suite names to suites (the
table of where each suite lives is `voebench.generator.suite.SUITE_REFS`)."""

from __future__ import annotations

from voebench.generator.suite import SUITE_REFS, SuiteRegistry, load_suite


class _LazyRegistry(SuiteRegistry):
    def get(self, name):
        if name in SUITE_REFS and name not in self.suites:
            self.suites[name] = load_suite(name)
        return super().get(name)

    def names(self):
        return list(SUITE_REFS)


REGISTRY = _LazyRegistry()
