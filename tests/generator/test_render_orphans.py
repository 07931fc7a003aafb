"""kill -9 of `voebench render --workers 2` leaves none of its Blender worker processes running
(src/voebench/parent_death.py)."""

from __future__ import annotations

import subprocess
import sys
import time

from conftest import ROOT, TINY
from orphan_check import kill_and_check, needs_proc, wait_for_children


@needs_proc
def test_kill_9_of_render_leaves_no_worker(tmp_path):
    """`voebench render --workers 2`, killed once both Blender workers have started making trials."""
    out = tmp_path / "set"
    cmd = [sys.executable, "-m", "voebench", "render", "grasp-l1", "--out", str(out), "--videos-per-test", "4",
           *TINY, "--workers", "2", "--quiet", "--tests", "shape,color"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        workers = wait_for_children(proc, 2, b"spawn_main", 120)
        manifest = out / "manifest.jsonl"
        deadline = time.time() + 180
        while not (manifest.exists() and manifest.read_text().strip()) and time.time() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.05)
        assert manifest.exists() and manifest.read_text().strip(), "no trial finished: the workers never worked"
        kill_and_check(proc, workers)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
