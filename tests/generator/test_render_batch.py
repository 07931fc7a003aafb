"""Cheaper frames, same bytes: batched render calls give the pixels of one render() per state, the numpy
anti-aliasing is deterministic and smooths edges, and a pair rendered with a shared FrameCache is byte-identical
to the pair rendered without one."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from voebench.generator.antialias import fxaa


# ------------------------------------------------------------------------------------------- anti-aliasing


def staircase(h=48, w=64, slope=0.23, supersample=1):
    """A dark half-plane under a shallow line on a light background, point-sampled `supersample`^2 times per
    pixel and averaged in linear light (supersample=1: the aliased image)."""
    s = supersample
    yy, xx = np.mgrid[0 : h * s, 0 : w * s] + 0.5
    dark = (yy / s) > 10.3 + slope * (xx / s)
    lin = np.where(dark, 0.02, 0.6)[..., None] * np.array([1.0, 0.8, 0.5])
    lin = lin.reshape(h, s, w, s, 3).mean((1, 3))
    srgb = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    return np.round(srgb * 255).astype(np.uint8)


def test_fxaa_smooths_a_staircase_towards_the_supersampled_image():
    aliased, reference = staircase(), staircase(supersample=8).astype(float)
    smoothed = fxaa(aliased)
    err = lambda a: np.abs(a.astype(float) - reference).mean()  # noqa: E731
    assert err(smoothed) < 0.6 * err(aliased)
    changed = np.any(smoothed != aliased, axis=-1)
    assert changed.any() and changed.mean() < 0.2  # only pixels on the edge are touched
    # every output value lies between the darkest and lightest input value (a blend, never an overshoot)
    assert smoothed.min() >= aliased.min() and smoothed.max() <= aliased.max()


def test_fxaa_leaves_flat_images_alone_and_is_deterministic():
    flat = np.full((24, 32, 3), 77, np.uint8)
    assert np.array_equal(fxaa(flat), flat)
    rng = np.random.default_rng(0)
    noisy = rng.integers(0, 256, (48, 64, 3), dtype=np.uint8)
    a, b = fxaa(noisy), fxaa(noisy.copy())
    assert a.dtype == np.uint8 and a.shape == noisy.shape and np.array_equal(a, b)
    with pytest.raises(ValueError):
        fxaa(noisy.astype(np.float32))


# ------------------------------------------------------------------------------------------- rendering


def l2_scene(test="t15_support_pin", condition=None, seconds=2.0, fps=10.0):
    from voebench.generator.runner import effective_space, suite_for
    from voebench.generator.suite import Job, Timing

    suite = suite_for("grasp-l2")
    seed, p = suite.sample(test, effective_space(suite, test, {}), 0, 0)
    conds = suite.conditions(test, p, {"seed": seed})
    job = Job("grasp-l2", test, 0, condition or conds[0], seed, f"grasp-l2/{test}/00000")
    return suite.make_scene(job, p, Timing(seconds, fps))


def test_batched_render_equals_one_render_per_state():
    from voebench.generator.blender.render import Renderer, RenderSettings

    scene = l2_scene()
    keys = scene.state_keys()
    assert len(set(keys)) > 5, "the scene must move for this test to mean anything"
    got = {}
    for batch in (0, 4):  # 0: one render() per state; 4: several render(animation=True) calls
        r = Renderer(scene, RenderSettings(64, 48, batch=batch))
        try:
            got[batch] = list(r.frames())
        finally:
            r.close()
    a, b = got[0], got[4]
    assert len(a) == len(b) == scene.n_frames
    for fa, fb in zip(a, b):
        assert (fa.index, fa.unique, fa.rendered) == (fb.index, fb.unique, fb.rendered)
        assert np.array_equal(fa.rgb, fb.rgb)
        if fa.rendered:
            assert np.array_equal(fa.depth, fb.depth) and np.array_equal(fa.segmentation, fb.segmentation)
    # segmentation holds exact object ids only, and is aliased (no anti-aliasing reached it)
    ids = {0} | {o.id for o in scene.objects.values()}
    for f in b:
        if f.rendered:
            assert set(np.unique(f.segmentation).tolist()) <= ids


def test_a_pair_is_byte_identical_with_and_without_a_shared_frame_cache(tmp_path, monkeypatch):
    from voebench.generator import runner, trial
    from voebench.generator.frame_cache import FrameCache

    test = "t08_inertia_bounce"  # at 3 s and 10 fps: 23 of each video's 29 distinct states are shared
    suite = runner.suite_for("grasp-l2")
    caches = []

    def run(out, share: bool):
        # the runner makes one FrameCache per trial; without sharing, each video renders all its states
        monkeypatch.setattr(trial, "FrameCache", lambda: caches.append(FrameCache()) or caches[-1] if share else None)
        cfg = runner.RunConfig(
            out=str(out), suite="grasp-l2", tests=[test], trials=1, seconds=3.0, fps=10.0, width=64, height=48
        )
        runner.prepare_output(cfg, suite)
        trials = runner.plan_trials(cfg, suite)
        assert len(trials) == 1 and len(trials[0].jobs) == 2, "one trial: both conditions"
        result = runner.produce(trials[0], cfg)
        monkeypatch.undo()
        return result, {
            p: hashlib.sha256(open(os.path.join(out, p), "rb").read()).hexdigest()
            for p in sorted(os.listdir(os.path.join(out, "grasp-l2", test)))
            for p in [os.path.join("grasp-l2", test, p)]
        }

    (r_plain, plain), (r_shared, shared) = run(tmp_path / "plain", False), run(tmp_path / "shared", True)
    assert len(plain) == 4 and plain == shared  # 2 videos x (mp4, h5)
    assert caches and caches[-1].hits > 0, "the second video of the pair must take its pre-onset frames from the cache"
    assert r_shared.rendered_frames == r_plain.rendered_frames - caches[-1].hits  # Blender drew only the rest


def test_the_cache_never_shares_frames_between_different_scenes():
    from voebench.generator.blender.render import RenderSettings
    from voebench.generator.frame_cache import scene_fingerprint

    a, b = l2_scene(), l2_scene()
    s = RenderSettings(64, 48)
    passes = ("rgb", "depth", "segmentation")
    assert scene_fingerprint(a, s, passes) == scene_fingerprint(b, s, passes)
    name = next(iter(b.objects))
    b.objects[name].dimensions = np.asarray(b.objects[name].dimensions) * 1.01
    assert scene_fingerprint(a, s, passes) != scene_fingerprint(b, s, passes)
    assert scene_fingerprint(a, s, passes) != scene_fingerprint(a, RenderSettings(64, 48, antialias="blender"), passes)
    assert scene_fingerprint(a, s, passes) != scene_fingerprint(a, s, ("rgb",))


def test_the_one_channel_depth_exr_holds_the_floats_of_the_rgba_one(monkeypatch):
    from voebench.generator.blender import render

    scene = l2_scene()
    keys = scene.state_keys()
    ts = sorted({k: t for t, k in reversed(list(enumerate(keys)))}.values())[:8]
    parsed = []
    real_read = render.read_exr_channel

    def read(path, channel):
        z = real_read(path, channel)  # raises ValueError (and Blender's slow loader takes over) on a surprise
        parsed.append(channel)
        return z

    monkeypatch.setattr(render, "read_exr_channel", read)
    r = render.Renderer(scene, render.RenderSettings(64, 48, ground_truth="workbench"))  # the compositor's EXR
    try:
        one = r.render_batch(ts, ("depth",))
        assert parsed == [render.DEPTH_CHANNEL] * len(ts), "the numpy EXR reader must parse the depth file"
        node = next(n for n in r.bscene.compositing_node_group.nodes if n.bl_idname == "CompositorNodeOutputFile")
        node.format.color_mode = "RGBA"
        monkeypatch.setattr(render, "DEPTH_CHANNEL", "R")
        rgba = r.render_batch(ts, ("depth",))
    finally:
        r.close()
    for t in ts:
        assert np.array_equal(one[t][1], rgba[t][1])
    z = np.stack([one[t][1] for t in ts])
    # many distinct depths were compared (background pixels become inf after reading, in either layout)
    assert len(np.unique(z[np.isfinite(z)])) > 1000
