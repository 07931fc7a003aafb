"""voebench.evaluate promises to work without Blender: every module of it (the baseline included) imports in a
process where importing bpy (or Blender's bmesh and mathutils) raises. The import-linter contracts check the
source; this checks what actually happens at import time, lazy and conditional imports included."""

import subprocess
import sys
import textwrap

BLOCKER = textwrap.dedent("""
    import importlib, importlib.abc, pkgutil, sys

    BLENDER = {"bpy", "bmesh", "mathutils"}
    attempts = []

    class BlockBlender(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLENDER:
                attempts.append(name)
                raise ImportError(f"{name} is blocked: voebench.evaluate must not need Blender")
            return None

    sys.meta_path.insert(0, BlockBlender())

    import voebench.evaluate
    import voebench.evaluate.baseline

    imported, optional_missing = [], []
    for package in (voebench.evaluate,):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                importlib.import_module(info.name)
                imported.append(info.name)
            except ImportError as e:
                if e.name and e.name.split(".")[0] in BLENDER or "is blocked" in str(e):
                    raise
                optional_missing.append(f"{info.name} ({e.name})")   # an optional extra not installed
    print("imported", len(imported), "modules;", "missing optional:", optional_missing)
    assert not attempts, f"tried to import {attempts}"
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLENDER
                    or m.startswith(("voebench.generator.blender", "voebench.scenes")))
    assert not loaded, loaded
""")


def test_evaluate_imports_with_bpy_blocked():
    r = subprocess.run([sys.executable, "-c", BLOCKER], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "imported" in r.stdout


def test_the_blocker_blocks():
    # the same finder must make a bpy import fail, or the test above proves nothing
    code = BLOCKER.split("import voebench.evaluate\n")[0] + "import bpy\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0 and "bpy is blocked" in r.stderr
