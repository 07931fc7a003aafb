"""Helpers of the kill -9 tests (tests/evaluate/test_orphans.py, tests/generator/test_render_orphans.py): a
command's descendants read from /proc (no psutil; Linux only), and `kill_and_check`, which records every descendant,
kills the command with SIGKILL and asserts that all of them are gone within GRACE_S."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

import pytest

ON_LINUX = os.path.isdir("/proc/self/task")
needs_proc = pytest.mark.skipif(not ON_LINUX, reason="reads processes from /proc (Linux)")

#: how long the workers of a killed command may take to go
GRACE_S = 5.0


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time in clock ticks) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            rest = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(rest[1]), rest[0], int(rest[19])


def descendants(root: int) -> dict[int, int]:
    """Every live descendant of `root`: pid -> start time (so a reused pid is not mistaken for it later)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (st := _stat(int(name))) is not None and st[1] != "Z":
            children.setdefault(st[0], []).append(int(name))
            starts[int(name)] = st[2]
    out: dict[int, int] = {}
    todo = [root]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out[c] = starts[c]
                todo.append(c)
    return out


def alive(procs: dict[int, int]) -> list[str]:
    """The processes of `procs` still running (not gone, not a zombie, same start time), with their command lines."""
    left = []
    for pid, start in procs.items():
        st = _stat(pid)
        if st is None or st[1] == "Z" or st[2] != start:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        left.append(f"{pid}: {cmd[:160]}")
    return left


def kill_and_check(proc: subprocess.Popen, workers: dict[int, int]) -> None:
    """SIGKILL the command; every process it had started must be gone within GRACE_S."""
    everyone = {**workers, **descendants(proc.pid)}
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    deadline = time.time() + GRACE_S
    while (left := alive(everyone)) and time.time() < deadline:
        time.sleep(0.1)
    for pid, start in everyone.items():  # clean up after a failing run, so the suite leaves no orphans either
        st = _stat(pid)
        if st is not None and st[2] == start:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    assert not left, f"still running {GRACE_S:.0f} s after kill -9 of the command:\n" + "\n".join(left)


def wait_for_children(proc: subprocess.Popen, n: int, marker: bytes, timeout: float) -> dict[int, int]:
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert proc.poll() is None, f"the command ended early:\n{proc.stderr.read().decode() if proc.stderr else ''}"
        kids = {}
        for pid, start in descendants(proc.pid).items():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if marker in fh.read():
                        kids[pid] = start
            except OSError:
                continue
        if len(kids) >= n:
            return kids
        time.sleep(0.05)
    raise AssertionError(f"no {n} worker processes after {timeout} s")
