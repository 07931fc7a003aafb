"""The fake suite (tests/fake_suite.py) instrumented to show which process does what, in any process of a run:
parsing an override of its `size` leaf appends "<pid> <key>" to the file named by VOEBENCH_TEST_PARSE_LOG, and
building a scene appends "<pid>" to the file named by VOEBENCH_TEST_BUILD_LOG (spawned workers inherit both
variables). Tests of `config.RunConfig`: a `--set` is parsed once, in the parent, whatever the workers."""

from __future__ import annotations

import os
import sys

import fake_suite
from fake_suite import FakeSuite, describe  # noqa: F401  (the scene module's contract)
from voebench.generator.params import Range

PARSE_LOG = "VOEBENCH_TEST_PARSE_LOG"
BUILD_LOG = "VOEBENCH_TEST_BUILD_LOG"


def _log(variable: str, line: str) -> None:
    path = os.environ.get(variable)
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


class CountingRange(Range):
    """A Range that logs every parse of an override (the overridden leaf is a plain Range)."""

    def parse(self, key, value):
        _log(PARSE_LOG, f"{os.getpid()} {key}")
        return super().parse(key, value)


SPACE = {**fake_suite.SPACE, "size": CountingRange(0.2, 0.7)}


def build(scene, p, condition):
    _log(BUILD_LOG, str(os.getpid()))
    fake_suite.build(scene, p, condition)


class CountingSuite(FakeSuite):
    name = "counting"
    package = "counting_suite"

    def module(self, test):
        return sys.modules[__name__]
