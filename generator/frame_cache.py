"""Rendered frames shared between the videos of one trial, in one process.

The plausible and implausible videos of a pair (and AVoE's expected and surprising videos) show the same states
up to the violation onset. A `FrameCache` handed to each of the trial's `Renderer`s lets the second video take
those frames from the first instead of rendering them again:

    cache = FrameCache()
    for job in trial_jobs:                       # both conditions of one trial, in the same process
        renderer = Renderer(scene_of(job), settings, cache=cache)
        ...                                      # renderer.frames() as usual
    # drop the cache (or cache.clear()) before the next trial

A frame is looked up by its exact state key (`Scene.state_keys`: every pose, colour, visibility and the camera)
together with a fingerprint of everything else that reaches the image: each object's name, id, shape,
dimensions, mesh, texture and first colour (textures are made from it), the camera's field of view and up
vector, the lights, the background, the render settings and the passes. Two scenes that differ in any of these
never share a frame. Rendering is a deterministic function of all that, so a video's bytes are the same with or
without the cache (tests/generator/test_render_batch.py checks it); the cache only saves time.

The cache stops taking new frames at `max_bytes` (it never evicts, so what it holds does not depend on timing).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def scene_fingerprint(scene, settings, passes) -> bytes:
    """Digest of what, besides the per-frame state, decides a scene's pixels (see the module docstring).
    Keep in step with blender/build.py and Renderer.apply: a field they read that is missing here would let
    two different scenes share frames."""
    h = hashlib.sha256()

    def add(*parts):
        for p in parts:
            if isinstance(p, np.ndarray):
                h.update(str(p.dtype).encode() + str(p.shape).encode() + np.ascontiguousarray(p).tobytes())
            else:
                h.update(json.dumps(p, sort_keys=True, default=repr).encode())
            h.update(b"\0")

    for o in scene.objects.values():
        add(
            o.name,
            o.id,
            o.shape,
            np.asarray(o.dimensions, np.float64),
            o.texture,
            o.shape_params,
            np.asarray(o.color[0], np.float64),
        )
        if o.mesh is not None:
            add(np.asarray(o.mesh[0], np.float64), [list(map(int, f)) for f in o.mesh[1]])
    add(float(scene.camera.fov_deg), list(map(float, scene.camera.up)))
    add([(list(map(float, lt.direction)), float(lt.strength), list(map(float, lt.color))) for lt in scene.lights])
    add(list(map(float, scene.background)))
    add(sorted(vars(settings).items()), list(passes))
    return h.digest()


class FrameCache:
    """Distinct frames (rgb, depth, segmentation) by (scene fingerprint, state key). See the module docstring."""

    def __init__(self, max_bytes: int = 1 << 30):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = 0
        self._frames: dict[tuple[bytes, bytes], tuple] = {}

    def get(self, fingerprint: bytes, state_key: bytes):
        """(rgb, depth, segmentation) rendered earlier for this state, or None. The arrays are read-only."""
        got = self._frames.get((fingerprint, state_key))
        self.hits += got is not None
        return got

    def put(self, fingerprint: bytes, state_key: bytes, rgb, depth, segmentation) -> None:
        size = sum(a.nbytes for a in (rgb, depth, segmentation) if a is not None)
        if (fingerprint, state_key) in self._frames or self.bytes + size > self.max_bytes:
            return
        for a in (rgb, depth, segmentation):
            if a is not None:
                a.flags.writeable = False  # shared with later videos: nobody may change them in place
        self._frames[(fingerprint, state_key)] = (rgb, depth, segmentation)
        self.bytes += size

    def clear(self) -> None:
        self._frames.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._frames)
