"""Test 16, Inertia: seen from above, a ball rolls out from under the start roof of a tray toward one of the
two far corners, slowing down, and disappears under a cover over the far end. It reaches the corner and
stops there. The cover then slides away. Plausible: the ball lies in the corner it was rolling toward and
the other corner is empty. Implausible: while the cover still hides both corners, the ball is moved to the
other corner (a hidden teleport), so the corner it was rolling toward is revealed empty.

Graded (`violation`, m): while hidden, the ball is moved this far along the far wall from the corner it rolled
to, toward the other corner; today's size is the whole way to the other corner (2 x 2.248 = 4.496 m for the
0.3 m ball). A small level leaves it lying a little off the corner it should rest in, against the far wall. The
audit measures the largest distance between the ball's positions in the two videos over the teleport's window.

Tray frame and camera: see `topdown.py`. Unlike the Unity original (fixed target 0.67 m from one corner,
constant speed), the target corner is random and the ball slows down by rolling resistance.
"""

from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.params import POSITIVE, Fixed, Level
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2 import topdown as td

NUMBER = 16
PRINCIPLES = ["inertia"]
DELAYS = ("start_delay", "cover_wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

SPACE = {
    **td.CORNER_SPACE,
    "cover_depth": Fixed(1.5, domain=POSITIVE),  # m of the tray's far end under the cover
    **VISUAL,
    # m the ball is moved along the far wall toward the other corner (declared last: unset, it takes no draw)
    "violation": Level(
        "m",
        "displacement",
        "the hidden move of the ball along the far wall, away from its corner",
        default="the whole way to the other corner (4.496 m)",
        hi=2 * (td.INNER - 0.15 - 0.002),  # corner to corner for the 0.3 m ball (`td.corner`'s 2 mm gap)
        tol=1e-6,
    ),
}


def span(p) -> float:
    """m between the two far corners' resting places (the largest move along the far wall)."""
    return float(2 * td.corner(td.Tray(False), 1.0, p.ball.diameter / 2)[1])


def level(p) -> float:
    """The violation's size in m: the one asked for, else today's move to the other corner."""
    return span(p) if p.violation is None else p.violation


def build(scene, p, condition):
    tray = td.build_tray(scene, p)
    ball, arrive, lift, opened = td.corner_run(scene, p, tray, p.cover_depth)
    td.look_down(scene, p, tray)
    td.require_reveal(scene, "t16", arrive, lift, opened)
    if condition == "implausible":
        move = level(p)
        if move > span(p) + 1e-12:
            raise Infeasible(f"t16: a move of {move:g} m along the far wall passes the other corner", ("violation",))
        if p.violation is None:
            to = td.corner(tray, -p.corner, p.ball.diameter / 2)
        else:  # along the far wall toward the other corner
            to = td.corner(tray, p.corner, p.ball.diameter / 2) - (0.0, p.corner * move)
        frame = (arrive + lift) // 2  # at rest in its corner, the cover not yet moving
        edits.teleport(scene, "ball", frame, tray.world(to[0], to[1], ball.position[frame, 2]), PRINCIPLES, hidden=True)
        edits.grade(scene, move)


def describe(scene, p, condition):
    if condition == "plausible":
        end = "the ball lies in the corner it was rolling toward; the other corner is empty"
    elif p.violation is None or abs(level(p) - span(p)) < 1e-9:
        end = "the corner the ball was rolling toward is empty; the ball lies in the other corner"
    else:
        end = (
            f"the ball lies against the far wall {level(p):.2f} m from the corner it was rolling toward, on the "
            "side of the other corner"
        )
    return (
        f"Seen from above, a ball rolls out from under a roof at one end of a tray after {p.start_delay:.1f} s "
        f"and heads diagonally toward one of the far corners, slowing down, until it disappears under a cover "
        f"over the far end of the tray. The cover slides away: {end}."
    )
