"""Where the time goes: explicit timers around named functions of the render pipeline (found by reference, so a
renamed function fails loudly instead of timing nothing), and a clock on every frame the renderer yields."""

from __future__ import annotations

import time


class FrameClock:
    """Wraps Renderer.frames to time each yielded frame (render + the caller's encode/write), split into
    rendered and copied frames."""

    def __init__(self):
        from voebench.generator.blender import render

        self.render, self.orig = render, render.Renderer.frames
        self.rendered, self.copied = [], []

    def __enter__(self):
        clock, orig = self, self.orig

        def frames(renderer, *a, **k):
            t = time.perf_counter()
            for fr in orig(renderer, *a, **k):
                yield fr
                now = time.perf_counter()
                (clock.rendered if fr.rendered else clock.copied).append(now - t)
                t = now

        self.render.Renderer.frames = frames
        return self

    def __exit__(self, *exc):
        self.render.Renderer.frames = self.orig


class Timers:
    """Explicit timers, each around one function or method given as (owner, attribute name). The attribute is
    looked up when the timers start, so a renamed function raises AttributeError instead of reporting 0.
    CPU time is this process's (Blender draws in it, on llvmpipe threads); ffmpeg runs in a child process.
    A generator function is timed over its `next()` calls only, not over the caller's work between them."""

    def __init__(self, targets: dict):
        self.targets = targets
        self.cpu = dict.fromkeys(targets, 0.0)
        self.wall = dict.fromkeys(targets, 0.0)
        self.calls = dict.fromkeys(targets, 0)
        self._saved = []

    def _wrap(self, label, fn):
        import functools
        import inspect

        timers = self

        def add(c0, w0):
            timers.cpu[label] += time.process_time() - c0
            timers.wall[label] += time.perf_counter() - w0

        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def gen(*a, **k):
                timers.calls[label] += 1
                it = fn(*a, **k)
                while True:
                    c0, w0 = time.process_time(), time.perf_counter()
                    try:
                        x = next(it)
                    except StopIteration:
                        add(c0, w0)
                        return
                    add(c0, w0)
                    yield x

            return gen

        @functools.wraps(fn)
        def call(*a, **k):
            timers.calls[label] += 1
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                add(c0, w0)

        return call

    def __enter__(self):
        for label, (owner, attr) in self.targets.items():
            fn = getattr(owner, attr)  # AttributeError if it was renamed: fix the target, do not drop it
            self._saved.append((owner, attr, owner.__dict__[attr] if isinstance(owner, type) else fn))
            setattr(owner, attr, self._wrap(label, fn))
        return self

    def __exit__(self, *exc):
        for owner, attr, orig in reversed(self._saved):
            setattr(owner, attr, orig)
        self._saved.clear()

    def table(self) -> dict:
        return {
            k: {"cpu_s": round(self.cpu[k], 4), "wall_s": round(self.wall[k], 4), "calls": self.calls[k]}
            for k in self.targets
        }


GATE_STATES = "gate: states-only build, files, audit per attempt (trial.check_draw)"
GATE_PIXELS = "gate: pixel checks and audit of the rendered files (trial.pixel_rejection)"


def pipeline_timers() -> Timers:
    """The pieces of producing a video. Nested pieces overlap (the renderer contains the Blender calls)."""
    from voebench.generator.blender import render  # first: it loads bpy, which provides bmesh for build
    from voebench.generator import trial
    from voebench.generator.blender import build, ground_truth
    from voebench.generator.io import hdf5, video
    from voebench.generator.suite import Suite

    return Timers(
        {
            "renderer total (Renderer.frames)": (render.Renderer, "frames"),
            "Blender render, batched (Renderer._animate, per pass)": (render.Renderer, "_animate"),
            "Blender render, one state (Renderer.render_state)": (render.Renderer, "render_state"),
            "numpy FXAA (antialias.fxaa)": (render, "fxaa"),
            "read_bmp (RGB and segmentation)": (render, "read_bmp"),
            "depth EXR read (Renderer._read_depth)": (render.Renderer, "_read_depth"),
            "segmentation + depth, GPU pass (GroundTruthPass.draw)": (ground_truth.GroundTruthPass, "draw"),
            "apply state to Blender (Renderer.apply)": (render.Renderer, "apply"),
            "mp4 pipe write (VideoWriter.write)": (video.VideoWriter, "write"),
            "mp4 close, waits for ffmpeg (VideoWriter.close)": (video.VideoWriter, "close"),
            "HDF5 add_frame (StatesWriter.add_frame)": (hdf5.StatesWriter, "add_frame"),
            "HDF5 close (StatesWriter.close)": (hdf5.StatesWriter, "close"),
            "build Blender scene (build.build)": (build, "build"),
            "factory reset (build.reset)": (build, "reset"),
            "make_scene: sample, simulate (Suite.make_scene)": (Suite, "make_scene"),
            # the generation gate (generator/trial.py): every attempt's states-only build, files and audit, and
            # the audit of the rendered files; produce_trial looks both up in its module when it calls them
            GATE_STATES: (trial, "check_draw"),
            GATE_PIXELS: (trial, "pixel_rejection"),
        }
    )
