"""Worker processes die with the process that started them.

A pool's workers outlive a parent that is killed with SIGKILL: nothing runs in the parent to stop them, and a worker
blocked on its task queue waits forever (an orphan `python -m voebench evaluate ...` was seen alive 17 minutes after
its parent). Every pool voebench starts calls `die_with_parent(parent_pid)` first thing in its worker initializer,
with the parent's pid taken in the parent (`os.getpid()` passed through `initargs`: in the child, `os.getppid()` is
already someone else's pid if the parent died before the worker got this far).

- Linux: `prctl(PR_SET_PDEATHSIG, SIGKILL)`, so the kernel kills the worker the moment its parent goes; then a check
  that the parent is still the one that started it, for a parent that died before the prctl call. The kernel sends
  the signal when the *thread* that created the worker ends, so a pool must be fed from a thread that lives as long
  as the pool (both of voebench's pools are: the thread that runs the command, or `runner.run`'s caller).
- elsewhere (macOS, the BSDs; or where the prctl call fails): a daemon thread that polls `os.getppid()` every
  `POLL_SECONDS` and ends the worker once the parent is gone (an orphan is re-parented, so its parent pid changes;
  Windows does not re-parent, and voebench does not run there).

The worker ends with `os._exit`: a dead parent cannot take results, and nothing the worker holds needs a clean
shutdown (the pools write no final files; a render worker's files are temporary until the parent renames them).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

#: prctl option that asks the kernel to signal this process when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1
#: how often the portable fallback checks its parent
POLL_SECONDS = 0.5
#: exit status of a worker that ends because its parent died
ORPHAN_EXIT = 70


def die_with_parent(parent_pid: int) -> None:
    """Make this process end as soon as `parent_pid` (the process that started it) is gone. Call it first in a
    worker initializer; `parent_pid` must be the parent's `os.getpid()`, read in the parent."""
    if not (sys.platform.startswith("linux") and _set_pdeathsig(signal.SIGKILL)):
        threading.Thread(target=_watch, args=(parent_pid,), name="voebench-parent-watch", daemon=True).start()
    if os.getppid() != parent_pid:  # died before the prctl (or the watch) was in place: nobody will signal us
        os._exit(ORPHAN_EXIT)


def _set_pdeathsig(sig: int) -> bool:
    """True when the kernel will send `sig` to this process when its parent dies."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_SECONDS)
    os._exit(ORPHAN_EXIT)
