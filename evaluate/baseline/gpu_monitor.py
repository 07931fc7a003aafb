"""GPU utilisation during training, sampled in a thread, so a run's metrics.json says how busy the GPU was."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

import numpy as np
import torch


class GpuMonitor:
    """Samples GPU utilisation (%) and memory once a second in a thread: nvidia-smi, else torch.cuda.utilization."""

    def __init__(self, device: torch.device, interval: float = 1.0):
        self.device, self.interval = device, interval
        self.samples: list[float] = []
        self.times: list[float] = []  # wall clock of each sample, so a caller can pick a phase of the run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.source = None
        if device.type == "cuda":
            if shutil.which("nvidia-smi"):
                self.source = "nvidia-smi"
            else:
                try:
                    torch.cuda.utilization(device)
                    self.source = "torch.cuda.utilization"
                except Exception:  # noqa: BLE001  (pynvml missing or no NVML: then there is simply no monitor)
                    self.source = None

    def _read(self) -> float | None:
        idx = self.device.index if self.device.index is not None else torch.cuda.current_device()
        if self.source == "nvidia-smi":
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            if visible:
                idx = visible.split(",")[idx].strip()
            r = subprocess.run(
                ["nvidia-smi", f"--id={idx}", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=5,
            )
            return float(r.stdout.strip().splitlines()[0]) if r.returncode == 0 and r.stdout.strip() else None
        return float(torch.cuda.utilization(self.device))

    def _loop(self):
        while not self._stop.wait(self.interval):
            try:
                v = self._read()
            except Exception:  # noqa: BLE001  (a failed sample must never stop training)
                v = None
            if v is not None:
                self.samples.append(v)
                self.times.append(time.time())

    def __enter__(self):
        if self.source:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)

    def summary(self) -> dict | None:
        if not self.source:
            return None
        s = self.samples
        return {
            "source": self.source,
            "mean_percent": float(np.mean(s)) if s else None,
            "max_percent": float(np.max(s)) if s else None,
            "samples": len(s),
        }
