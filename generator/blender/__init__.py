"""Everything that imports bpy lives here: building Blender scenes, Bullet simulation and rendering.
The rest of the generator is plain numpy and never imports this package at module level."""

import contextlib
import os
import sys


@contextlib.contextmanager
def quiet():
    """Silence Blender's C-level prints ("Saved: ...", "bake: frame ...", and the harmless EGL_BAD_MATCH
    lines of the first software-GL render) on stdout and stderr, which would otherwise interleave with
    progress bars. Python exceptions still propagate."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def warm_up() -> None:
    """Import bpy now (a worker does this once, then reuses it for every trial it makes)."""
    import bpy  # noqa: F401
