"""What every rendering benchmark shares: where the checkout is, the results collected so far (written to
`--json` after each step), and the clocks: CPU seconds of this process and its children (ffmpeg), and the load
average, printed next to every number because the machine is shared."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# bench/render/common.py -> the checkout
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VOEBENCH = [os.path.join(os.path.dirname(sys.executable), "voebench")]
#: every subcommand's results by name, one dict shared by the modules: `--json` writes it whole after each step,
#: `--results-from` fills it, and project-reuse reads reuse-l2's and workers' results from it
RESULTS: dict = {}
#: non-empty once this process has rendered: its first render compiles shaders, which is no video's cost
WARM: list = []


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cpu_now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def children_cpu() -> float:
    """CPU seconds of this process's finished children (ffmpeg, the commands it ran)."""
    t = os.times()
    return t.children_user + t.children_system


def load() -> float:
    return round(os.getloadavg()[0], 1)


def machine() -> dict:
    return {
        "cores": os.cpu_count(),
        "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
    }


def save(args):
    if getattr(args, "json", None):
        with open(args.json, "w") as f:
            json.dump(RESULTS, f, indent=1, default=float)
