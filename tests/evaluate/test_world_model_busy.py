"""bench/world_model_throughput.py `busy`: the GPU's busy share of an interval, read from an nvidia-smi log."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "world_model_throughput.py"


def _bench():
    spec = importlib.util.spec_from_file_location("world_model_throughput_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SMI = """2026/11/27 03:00:00.000, 0 %, 10 MiB
2026/11/27 03:00:00.500, 10 %, 10 MiB
2026/11/27 03:00:01.000, 20 %, 900 MiB
2026/11/27 03:00:01.500, 100 %, 900 MiB
2026/11/27 03:00:02.000, 90 %, 900 MiB
2026/11/27 03:00:02.500, 60 %, 900 MiB
timestamp, utilization.gpu [%], memory.used [MiB]
2026/11/27 03:00:03.000, 0 %
2026/11/27 03:00:03.5
"""


def test_busy_share_of_an_interval_with_its_start_trimmed(tmp_path):
    b = _bench()
    (tmp_path / "smi.csv").write_text(SMI)
    smi = b.read_smi(str(tmp_path / "smi.csv"))
    assert len(smi) == 7  # the header and the cut last line are skipped
    got = b.busy_share(smi, "2026/11/27 03:00:00.000000", "2026/11/27 03:00:02.500000", trim=1.0)
    assert got == {"busy_mean": (20 + 100 + 90 + 60) / 4, "share_ge_80": 0.5, "samples": 4}
    none = b.busy_share(smi, "2026/11/27 04:00:00.000000", "2026/11/27 04:00:01.000000", trim=0.0)
    assert none["busy_mean"] is None and none["samples"] == 0


def test_busy_adds_the_share_to_bench_phases_and_training_segments(tmp_path, monkeypatch, capsys):
    b = _bench()
    (tmp_path / "smi.csv").write_text(SMI)
    bench = {"phases": [{"code": "new", "batch": 64, "start": "2026/11/27 03:00:01.000000",
                         "end": "2026/11/27 03:00:02.000000"}]}  # fmt: skip
    summary = {"runs": {"0": [{"step": 250, "train_wall": ["2026/11/27 03:00:00.000000", "2026/11/27 03:00:00.600000"]},
                              {"step": 500}]}}  # fmt: skip
    (tmp_path / "bench.json").write_text(json.dumps(bench))
    (tmp_path / "train-summary.json").write_text(json.dumps(summary))
    argv = ["x", "busy", "--smi", str(tmp_path / "smi.csv"), "--trim", "0",
            "--intervals", str(tmp_path / "bench.json"), str(tmp_path / "train-summary.json")]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    assert b.main() == 0
    phase = json.loads((tmp_path / "bench.json").read_text())["phases"][0]
    assert phase["gpu_busy"]["busy_mean"] == (20 + 100 + 90) / 3
    points = json.loads((tmp_path / "train-summary.json").read_text())["runs"]["0"]
    assert points[0]["gpu_busy"]["busy_mean"] == 5.0 and "gpu_busy" not in points[1]
