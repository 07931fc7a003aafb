"""The twin edits of generator/edits.py on a hand-made scene and twin (no physics): the tracks are taken from
the first frame where the twin differs, the hidden test is asked on the edited arrays over the window the
record states, and a twin that never differs is refused."""

import copy

import numpy as np
import pytest

from voebench.generator import edits
from voebench.generator.scene import Scene

T = 10


def _pair():
    s = Scene(T, 10.0)
    s.add("ball", "sphere", (0.2, 0.2, 0.2), (0.0, 0.0, 0.1), role="ball")
    s.add("block", "box", (0.2, 0.2, 0.2), (1.0, 0.0, 0.1), role="object")
    s["ball"].position[:, 0] = np.linspace(0.0, 0.9, T)
    twin = copy.deepcopy(s)
    twin["ball"].position[6:, 0] = 0.5  # in the twin the ball stops at frame 6
    return s, twin


def test_diverge_hidden_takes_the_twin_track_from_the_first_divergence():
    s, twin = _pair()
    asked = []

    def hidden(first, last):
        asked.append((first, last, s["ball"].position[first, 0]))  # the arrays are changed before it is asked
        return True

    v = edits.diverge_hidden(s, twin, ["solidity"], "stop", "ball", RuntimeError("never"), hidden=hidden)
    assert (v.first_frame, v.last_frame, v.hidden) == (6, T - 1, True)
    assert asked == [(6, T - 1, 0.5)]
    assert np.array_equal(s["ball"].position, twin["ball"].position)
    assert s.violation is v


def test_diverge_hidden_refuses_a_twin_that_never_differs():
    s, _ = _pair()
    with pytest.raises(RuntimeError, match="never"):
        edits.diverge_hidden(s, copy.deepcopy(s), ["solidity"], "stop", "ball", RuntimeError("never"))
    assert s.violation is None


def test_follow_twin_holds_the_named_object():
    s, twin = _pair()
    twin["block"].position[4:, 0] = np.linspace(1.0, 2.0, T - 4)
    first = edits.twin_divergence(s, twin, ("ball", "block"), rotation=False)
    assert first == 5  # the block moves off at frame 5 (frame 4 is still where it stood)
    edits.follow_twin(s, twin, ("ball", "block"), first, ["momentum"], "mass_change", "block", hold="block")
    assert np.all(s["block"].position[first:] == twin["block"].position[first])
    assert np.array_equal(s["ball"].position[first:], twin["ball"].position[first:])


def test_shift_writes_only_the_axes_it_moves():
    s, _ = _pair()
    before = s["ball"].position.copy()
    v = edits.shift(s, "ball", 2, 4, (0.0, 0.0, 0.3), ["permanence"], hidden=lambda a, b: (a, b) == (2, 4))
    assert v.hidden and (v.first_frame, v.last_frame) == (2, 4)
    assert np.array_equal(s["ball"].position[:, :2], before[:, :2])
    assert np.allclose(s["ball"].position[2:5, 2] - before[2:5, 2], 0.3)
    assert np.array_equal(s["ball"].position[5:], before[5:])
