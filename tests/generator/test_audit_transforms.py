"""The audit's faster geometry (per-component transforms and box sdf in generator/solids.py) against the previous
np.einsum / reduce-over-xyz forms, kept behind `shapes.REFERENCE_FORMS`: the generation gate keeps or redraws a
trial on these numbers, so they must give the same verdicts, and on a machine whose einsum sums in the order
`to_world` documents (AVX-512, this project's machines) the very same floats."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from voebench.generator import contacts, solids as shapes
from voebench.generator.solids import Shape, Track, to_local, to_world
from voebench.generator.audit.tolerances import CONTACT_TOL, PENETRATION_TOL

KINDS = ("box", "plane", "sphere", "ellipsoid", "cylinder", "cone", "torus")


@contextlib.contextmanager
def reference(on: bool):
    saved = shapes.REFERENCE_FORMS
    shapes.REFERENCE_FORMS = on
    try:
        yield
    finally:
        shapes.REFERENCE_FORMS = saved


def einsum_sums_as_documented() -> bool:
    """Does this machine's np.einsum sum the three products in the order to_world/to_local use? (It depends on
    the CPU's vector width; where it does not, the old floats themselves differed from this project's.)"""
    rng = np.random.default_rng(0)
    rot, pts, pos = rng.normal(size=(7, 3, 3)), rng.normal(size=(50, 3)), rng.normal(size=(7, 3))
    world = pos[:, None, :] + np.einsum("fij,nj->fni", rot, pts)
    local = np.einsum("fni,fij->fnj", world - pos[:, None, :], rot)
    return np.array_equal(world, to_world(rot, pts, pos)) and np.array_equal(local, to_local(world, rot, pos))


SAME_BITS = einsum_sums_as_documented()


def random_shape(rng, kind: str) -> Shape:
    if kind == "sphere":
        return Shape("sphere", [rng.uniform(0.05, 1.0)] * 3)
    if kind == "ellipsoid":
        return Shape("sphere", rng.uniform(0.05, 1.0, 3))
    if kind == "torus":
        d = rng.uniform(0.2, 1.0)
        return Shape("torus", [d, d, rng.uniform(0.02, d / 3)])
    return Shape(kind, rng.uniform(0.02, 2.0, 3))


def random_track(rng, name: str, shape: Shape, n_frames: int, still: bool) -> Track:
    """Poses scattered round the origin (so that the pairs overlap, touch and stand apart), some frames
    repeated (static scenery), quaternions not quite unit (as read from a file)."""
    if still:
        position = np.repeat(rng.normal(scale=0.6, size=(1, 3)), n_frames, axis=0)
        quaternion = np.repeat(rng.normal(size=(1, 4)), n_frames, axis=0)
    else:
        position = rng.normal(scale=0.6, size=(n_frames, 3))
        quaternion = rng.normal(size=(n_frames, 4))
        repeat = rng.random(n_frames) < 0.2
        position[1:][repeat[1:]] = position[:-1][repeat[1:]]
        quaternion[1:][repeat[1:]] = quaternion[:-1][repeat[1:]]
    return Track(
        name,
        "object",
        shape,
        True,
        position,
        quaternion,
        np.zeros((n_frames, 3)),
        np.ones(n_frames, bool),
        np.full(n_frames, -1),
    )


def verdicts(gap: np.ndarray) -> dict:
    """What the audit's checks decide from a gap: overlap, contact and support at their tolerances."""
    return {
        "overlap": gap < -PENETRATION_TOL,
        "contact": gap <= CONTACT_TOL,
        "touch": gap <= 0.0,
        "evaluated": np.isfinite(gap),
    }


def test_transforms_match_einsum_on_odd_shapes():
    """One frame, one point, many: what pair_geometry, contact_points and the sphere path pass. The audit's
    inputs are always contiguous (rotations picked by frame index are copies, samples are built whole); einsum
    on a strided view of the same numbers sums in yet another order (it is not even consistent with itself)."""
    rng = np.random.default_rng(1)
    for n_frames, n_points in ((1, 1), (1, 7), (3, 1), (5, 602), (64, 3)):
        rot = rng.normal(size=(n_frames, 3, 3))
        pts = rng.normal(size=(n_points, 3))
        pos = rng.normal(size=(n_frames, 3))
        ref_w = pos[:, None, :] + np.einsum("fij,nj->fni", rot, pts)
        new_w = to_world(rot, pts, pos)
        ref_l = np.einsum("fni,fij->fnj", ref_w - pos[:, None, :], rot)
        new_l = to_local(ref_w, rot, pos)
        assert new_w.shape == ref_w.shape and new_l.shape == ref_l.shape
        if SAME_BITS:
            assert np.array_equal(new_w, ref_w) and np.array_equal(new_l, ref_l)
        else:
            np.testing.assert_allclose(new_w, ref_w, rtol=1e-14, atol=1e-14)
            np.testing.assert_allclose(new_l, ref_l, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("kind", ("box", "plane", "mesh"))
def test_box_sdf_same_floats(kind):
    """Inside, outside, on faces and edges (grid points), one point and many."""
    rng = np.random.default_rng(2)
    shape = Shape(kind, rng.uniform(0.1, 2.0, 3))
    grid = np.stack(np.meshgrid(*[np.linspace(-1.5, 1.5, 13)] * 3), axis=-1).reshape(-1, 3) * shape.h.max()
    for p in (grid, rng.normal(size=(40, 600, 3)), rng.normal(size=3), np.zeros((0, 3))):
        with reference(True):
            ref = shape.sdf(p)
        new = shape.sdf(p)
        assert np.shape(new) == np.shape(ref)
        assert np.array_equal(new, ref)  # elementwise IEEE operations: the same floats on any machine


def test_pair_geometry_same_on_random_pairs():
    """Every kind of shape against every other, 300 random pairs: the gap and push normal of every frame are
    the same floats as the reference's (or, where this machine's einsum sums in another order, within float
    noise), so every verdict drawn from them is the same."""
    rng = np.random.default_rng(3)
    n_pairs, checked, differing = 300, 0, 0
    for i in range(n_pairs):
        ka, kb = KINDS[i % len(KINDS)], KINDS[(i // len(KINDS)) % len(KINDS)]
        n_frames = int(rng.integers(1, 25))
        a = random_track(rng, "a", random_shape(rng, ka), n_frames, still=False)
        b = random_track(rng, "b", random_shape(rng, kb), n_frames, still=rng.random() < 0.3)
        frames = np.flatnonzero(rng.random(n_frames) < 0.8)
        with reference(True):
            ref = contacts.pair_geometry(a, b, frames)
        new = contacts.pair_geometry(a, b, frames)
        assert new.known == ref.known
        if SAME_BITS:
            assert np.array_equal(new.gap, ref.gap, equal_nan=True), (ka, kb)
            assert np.array_equal(new.normal, ref.normal, equal_nan=True), (ka, kb)
        else:
            np.testing.assert_allclose(new.gap, ref.gap, rtol=1e-9, atol=1e-12)
        for name, v in verdicts(ref.gap).items():
            assert np.array_equal(verdicts(new.gap)[name], v), (ka, kb, name)
        checked += len(frames)
        differing += int((new.gap != ref.gap)[frames].sum())
        if len(frames):  # contact points at one frame go through the same transforms
            t = int(frames[0])
            with reference(True):
                ref_pts = contacts.contact_points(a, b, t, tol=0.05)
            new_pts = contacts.contact_points(a, b, t, tol=0.05)
            assert [x.shape for x in new_pts] == [x.shape for x in ref_pts]
            if SAME_BITS:
                assert all(np.array_equal(x, y) for x, y in zip(new_pts, ref_pts))
    assert checked > 2000
    if SAME_BITS:
        assert differing == 0


def test_overlaps_found_by_both():
    """The random pairs above include real overlaps, contacts and clear gaps, so the verdicts compared are not
    all the same value."""
    rng = np.random.default_rng(3)
    gaps = []
    for i in range(60):
        ka, kb = KINDS[i % len(KINDS)], KINDS[(i // len(KINDS)) % len(KINDS)]
        a = random_track(rng, "a", random_shape(rng, ka), 10, still=False)
        b = random_track(rng, "b", random_shape(rng, kb), 10, still=False)
        gaps.append(contacts.pair_geometry(a, b, np.arange(10)).gap)
    g = np.concatenate(gaps)
    assert (g < -PENETRATION_TOL).sum() > 50 and (g > CONTACT_TOL).sum() > 50
