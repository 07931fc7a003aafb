"""Run the 2-replica CPU evaluate of tests/evaluate/test_replicas.py again and again, to catch a hang that a single
run rarely shows (the frame cache's self-deadlock fixed in evaluate/frames.py, issue 28).

    .venv/bin/python bench/replicas_repeat.py --runs 12 --timeout 150

Builds the tests' tiny set and the tiny random Qwen2.5-VL once in a temporary folder, then runs `voebench evaluate
... --replicas 2 --device cpu` (batch 3, 4 frames, two repeats, chain of thought, two decoding workers per
replica, a fresh frame store each run) `--runs` times. A run still going after `--timeout` s is a hang: the stacks of
every process under it are printed with py-spy (when installed), it is killed, and the script exits 1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _tree(pid: int) -> list[int]:
    out = [pid]
    for p in out:
        try:
            with open(f"/proc/{p}/task/{p}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
        except OSError:
            pass
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds after which a run counts as hung")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    from evaluate_fixtures import make_tiny_set

    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    root = tempfile.mkdtemp(prefix="voebench-replicas-repeat-")
    try:
        os.makedirs(os.path.join(root, "set"))
        make_tiny_set(os.path.join(root, "set"))
        model = build_tiny_qwen25vl(os.path.join(root, "tiny"))
        walls = []
        for i in range(1, args.runs + 1):
            out, store = os.path.join(root, f"run{i}"), os.path.join(root, f"store{i}")
            cmd = [sys.executable, "-m", "voebench", "evaluate", os.path.join(root, "set"), "--out", out]
            cmd += ["--model", f"hf:{model}", "--device", "cpu", "--batch-size", "3", "--max-new-tokens", "4"]
            cmd += ["--num-frames", "4", "--repeats", "2", "--tests", "t09_gravity", "--strategy", "cot"]
            cmd += ["--num-workers", "2", "--frame-store", store, "--replicas", "2", "--no-progress"]
            t0 = time.monotonic()
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                _, err = proc.communicate(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"run {i}: HUNG (still running after {args.timeout:.0f} s)")
                spy = shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy")
                for pid in _tree(proc.pid):
                    if os.path.exists(spy):
                        subprocess.run([spy, "dump", "--pid", str(pid)], check=False)
                for pid in reversed(_tree(proc.pid)):
                    subprocess.run(["kill", "-9", str(pid)], check=False)
                return 1
            walls.append(time.monotonic() - t0)
            print(f"run {i}: exit {proc.returncode}, {walls[-1]:.1f} s", flush=True)
            if proc.returncode != 0:
                print(err[-2000:])
                return 1
            shutil.rmtree(out), shutil.rmtree(store, ignore_errors=True)
        print(f"{args.runs} runs, no hang; wall {min(walls):.1f}-{max(walls):.1f} s")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
