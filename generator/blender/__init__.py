"""Everything that imports bpy lives here: building Blender scenes, Bullet simulation and rendering.
The rest of the generator is plain numpy and never imports this package at module level."""

import contextlib
import os
import sys


@contextlib.contextmanager
def quiet():
    """Silence Blender's C-level prints ("Saved: ...", "bake: frame ...") on stdout, which would otherwise
    interleave with progress bars and break `--json` outputs."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
