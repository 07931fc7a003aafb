"""A slice of the random-settings campaign (bench/fuzz_settings.py): a few random configurations, one per suite,
each refused up front in one line or rendered into a set that passes audit, verify, whole pairs and (Level 1)
statement checks. The full campaign (200+ configurations) runs from bench/."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_random_settings_are_refused_or_valid(tmp_path):
    results = tmp_path / "fuzz.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "bench", "fuzz_settings.py"),
            "--configs",
            "3",
            "--first",
            "1000",
            "--rendered-share",
            "0",
            "--max-trials",
            "1",
            "--max-seconds",
            "4",
            "--work",
            str(tmp_path / "work"),
            "--results",
            str(results),
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(rows) == 3 and {r["suite"] for r in rows} == {"grasp-l1", "grasp-l2", "avoe"}
    failures = [r for r in rows if r["outcome"] == "failure"]
    assert not failures, proc.stdout + json.dumps(failures)[:3000]
    assert proc.returncode == 0, proc.stdout + proc.stderr
