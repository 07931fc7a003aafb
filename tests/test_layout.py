"""The package layout every tool reads without tricks (issue 27): `src/voebench/` is the import root, its
`generator`, `scenes` and `evaluate` are relative symlinks to the top-level folders, and a built wheel holds every
module of the checkout (subpackages are found by setuptools, not listed by hand, so none can be forgotten)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src", "voebench")
FOLDERS = ("generator", "scenes", "evaluate")


def _shipped(top: str, prefix: str) -> set[str]:
    """Files of a source folder a wheel must hold: Python modules, and the study page's static files."""
    found = set()
    for dirpath, dirnames, files in os.walk(top, followlinks=True):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, top).replace(os.sep, "/")
        for f in files:
            if f.endswith(".py") or rel.endswith("humans/static"):
                found.add("/".join(p for p in (prefix, "" if rel == "." else rel, f) if p))
    return found


def test_the_import_root_links_the_top_level_folders():
    for name in FOLDERS:
        link = os.path.join(SRC, name)
        assert os.path.islink(link), f"src/voebench/{name} is not a symlink"
        assert os.readlink(link) == f"../../{name}", "the link must be relative (a clone elsewhere must work)"
        assert os.path.samefile(link, os.path.join(ROOT, name))


def test_the_checkout_imports_from_src_without_installing(tmp_path):
    code = "import voebench.evaluate.report, voebench.generator.params, voebench.contract; print(voebench.__file__)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.path.join(ROOT, "src")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert os.path.realpath(out.stdout.strip()).startswith(os.path.realpath(SRC))


def test_a_built_wheel_holds_every_module(tmp_path):
    # built from a copy (links kept), so the checkout gets no build/ folder whose stale files a later wheel would ship
    src = tmp_path / "checkout"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(os.path.join(ROOT, name), src / name)
    keep = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("src", *FOLDERS):
        shutil.copytree(os.path.join(ROOT, name), src / name, symlinks=True, ignore=keep)
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path)]
        + [str(src)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0 and "No module named pip" in out.stderr:
        pytest.skip("pip is not installed in this environment")
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = tmp_path.glob("voebench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    want = _shipped(SRC, "voebench")
    assert want <= names, sorted(want - names)[:20]
    assert not {n for n in names if n.split("/")[0] in FOLDERS}, "a top-level generator/, scenes/ or evaluate/"
