"""How Level 2 scenes fit their events into the video they are rendered for, and how they say when they cannot.

Pauses are drawn for GRASP's 10 s videos: `start_delay`, hold times, waits before a reveal (each test lists its
pause keys in `DELAYS`). In a shorter video they shrink in proportion (a 4 s video waits 0.4 x as long), so the
event still fits; in a longer one they stay as drawn (the video just ends later). Physical quantities (speeds,
heights, decelerations) never scale: a 1 m screen rising at 0.5 m/s takes 2 s in every video. What still does not
fit raises `Infeasible` naming `seconds` (and the drawn keys that lengthen the event), so the generator redraws
the trial or refuses the test up front.

The same scaled pauses are used to build the scene and to describe it (`GraspLevel2.make_scene` / `entry`), so
the text's "after 1.2 s" is what the video shows.
"""

from __future__ import annotations

import copy

from voebench.errors import Infeasible
from voebench.generator.params import Params

REFERENCE_SECONDS = 10.0  # GRASP's videos (500 frames at 50 fps): the pauses' ranges are drawn for this length


def delay_scale(seconds: float) -> float:
    """Factor applied to every pause in a video of `seconds`: 1 at 10 s or longer, in proportion below."""
    return min(1.0, float(seconds) / REFERENCE_SECONDS)


def timed(p: Params, delays, seconds: float) -> Params:
    """A copy of `p` whose pause keys (dotted, e.g. "pin.pause") are scaled for a video of `seconds`."""
    k = delay_scale(seconds)
    if k == 1.0 or not delays:
        return p
    out = copy.deepcopy(p)
    for key in delays:
        *parents, last = key.split(".")
        node = out
        for name in parents:
            node = node[name]
        node[last] = float(node[last]) * k
    return out


def need(ok: bool, reason: str, keys) -> None:
    """Raise Infeasible(reason, keys) unless `ok`: a sampled trial that the run's settings cannot honour."""
    if not ok:
        raise Infeasible(reason, tuple(keys))


def within_video(ok: bool, scene, test: str, what: str, keys=()) -> None:
    """The event `what` must happen before the video ends; otherwise the trial is infeasible for this length
    (an implausible video whose violation falls outside it would be mislabelled)."""
    need(
        ok,
        f"{test}: {what} does not happen within the video ({scene.n_frames / scene.fps:g} s at {scene.fps:g} fps)",
        ("seconds", *keys),
    )
