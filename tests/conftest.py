"""Shared fixtures. Renders here are tiny (64x48, 1 s at 10 fps) so the whole suite stays fast on 2 cores."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `voebench evaluate` keeps decoded clips in a store under ~/.cache by default; tests (and the commands they run)
# use a store of their own, so they neither read a user's clips nor leave theirs behind.
os.environ.setdefault("VOEBENCH_FRAME_STORE", tempfile.mkdtemp(prefix="voebench-test-frames-"))
# Tests are laid out like the code (tests/generator, tests/scenes, tests/evaluate, tests/contract); the helpers they
# share (fake_suite, contract_fixtures, evaluate_fixtures, this module) live here and are imported by name.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The evaluate tests' tiny rendered set (`tiny_set`), offered to every test module without an import.
pytest_plugins = ["evaluate_fixtures"]

TINY = ["--resolution", "64x48", "--seconds", "1", "--fps", "10"]


def voebench(*args, check=True, **kw) -> subprocess.CompletedProcess:
    """Run the installed `voebench` command in a subprocess (as users do)."""
    cmd = [sys.executable, "-m", "voebench", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=kw.pop("cwd", ROOT), **kw)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def level1_set(tmp_path_factory):
    """A tiny rendered Level 1 set: 2 videos per test."""
    out = tmp_path_factory.mktemp("l1") / "set"
    voebench("render", "grasp-l1", "--out", out, "--videos-per-test", 2, *TINY, "--workers", 1, "--quiet")
    return out
