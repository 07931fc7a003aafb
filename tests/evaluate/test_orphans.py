"""kill -9 of `voebench evaluate` leaves none of its frame-decoding worker processes running
(src/voebench/parent_death.py; an orphan decoder was once seen alive 17 minutes after its parent)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from conftest import ROOT
from orphan_check import descendants, kill_and_check, needs_proc, wait_for_children

from voebench.parent_death import ORPHAN_EXIT


@needs_proc
def test_kill_9_of_evaluate_leaves_no_decoder(tiny_set, tmp_path):
    """`voebench evaluate --num-workers 2` against a chat server that never answers: the decoders are up and the
    run waits on its first request when it is killed."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(120)
    url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    cmd = [sys.executable, "-m", "voebench", "evaluate", tiny_set, "--model", f"openai:m@{url}", "--out",
           str(tmp_path / "run"), "--num-workers", "2", "--video-mode", "frames", "--repeats", "1",
           "--timeout", "300", "--retries", "0", "--no-progress"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    conns = []
    try:
        # forked decoders run the parent's command line
        workers = wait_for_children(proc, 2, b"evaluate", 120)
        conns.append(server.accept()[0])  # the run asks its first question: decoding is under way
        assert len(descendants(proc.pid)) >= 2
        kill_and_check(proc, workers)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for c in conns:
            c.close()
        server.close()


# a parent that starts one worker (forked) which uses die_with_parent, prints the worker's pid and waits
_PARENT = """
import multiprocessing, os, sys, time
from voebench import parent_death

def work(parent_pid, portable):
    if portable:  # as on a system without prctl: the polling thread
        parent_death._set_pdeathsig = lambda sig: False
    parent_death.die_with_parent(parent_pid)
    time.sleep(120)

p = multiprocessing.get_context("fork").Process(target=work, args=(os.getpid(), sys.argv[1] == "portable"))
p.start()
print(p.pid, flush=True)
time.sleep(120)
"""


@needs_proc
@pytest.mark.parametrize("mode", ["prctl", "portable"])
def test_a_worker_dies_with_its_parent(mode):
    """Both ways of dying with the parent: Linux's PR_SET_PDEATHSIG and the portable thread that polls getppid."""
    proc = subprocess.Popen([sys.executable, "-c", _PARENT, mode], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        worker = int(proc.stdout.readline())  # type: ignore[union-attr]
        kill_and_check(proc, {worker: descendants(proc.pid)[worker]})
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_worker_whose_parent_is_already_gone_exits_at_once():
    """The parent died before the worker's initializer ran: getppid() is no longer the pid it was given."""
    code = "import os, time; from voebench.parent_death import die_with_parent; die_with_parent(os.getppid() + 1)"
    t0 = time.time()
    result = subprocess.run([sys.executable, "-c", code + "; time.sleep(60)"], cwd=ROOT, timeout=30)
    assert result.returncode == ORPHAN_EXIT and time.time() - t0 < 20
