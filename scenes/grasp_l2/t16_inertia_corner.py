"""Test 16, Inertia: seen from above, a ball rolls out from under the start roof of a tray toward one of the
two far corners, slowing down, and disappears under a cover over the far end. It reaches the corner and
stops there. The cover then slides away. Plausible: the ball lies in the corner it was rolling toward and
the other corner is empty. Implausible: while the cover still hides both corners, the ball is moved to the
other corner (a hidden teleport), so the corner it was rolling toward is revealed empty.

Tray frame and camera: see `topdown.py`. Unlike the Unity original (fixed target 0.67 m from one corner,
constant speed), the target corner is random and the ball slows down by rolling resistance.
"""

from voebench.generator import edits
from voebench.generator.params import POSITIVE, Fixed
from voebench.scenes.grasp_l2 import VISUAL
from voebench.scenes.grasp_l2 import topdown as td

NUMBER = 16
OBSERVATION = "the final position of the ball"
ASSUMPTION = ""
PRINCIPLES = ["inertia"]
DELAYS = ("start_delay", "cover_wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)

# cover_depth: m of the tray's far end under the cover
SPACE = {**td.CORNER_SPACE, "cover_depth": Fixed(1.5, domain=POSITIVE), **VISUAL}


def build(scene, p, condition):
    tray = td.build_tray(scene, p)
    ball, arrive, lift, opened = td.corner_run(scene, p, tray, p.cover_depth)
    td.look_down(scene, p, tray)
    td.require_reveal(scene, "t16", arrive, lift, opened)
    if condition == "implausible":
        other = td.corner(tray, -p.corner, p.ball.diameter / 2)
        frame = (arrive + lift) // 2  # at rest in its corner, the cover not yet moving
        edits.teleport(scene, "ball", frame, tray.world(*other, ball.position[frame, 2]), PRINCIPLES, hidden=True)


def describe(scene, p, condition):
    end = (
        "the ball lies in the corner it was rolling toward; the other corner is empty"
        if condition == "plausible"
        else "the corner the ball was rolling toward is empty; the ball lies in the other corner"
    )
    return (
        f"Seen from above, a ball rolls out from under a roof at one end of a tray after {p.start_delay:.1f} s "
        f"and heads diagonally toward one of the far corners, slowing down, until it disappears under a cover "
        f"over the far end of the tray. The cover slides away: {end}."
    )
