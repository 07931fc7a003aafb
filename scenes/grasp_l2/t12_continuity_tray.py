"""Test 12, Continuity: seen from above, a ball rolls out from under the start roof of a tray toward one of
the two far corners, slowing down, and disappears under a cover over the far end, where it stops in the
corner. One far corner is closed off by a diagonal plank that forms a triangle with the two walls; the
cover hides it until it slides away. Plausible: the plank closes off the *other* corner; the ball lies in
the open corner it rolled to, and the triangle is empty. Implausible: when the cover is removed, the plank
closes off the corner the ball rolled to, and the ball lies inside that triangle, as if it had passed
through the plank.

Both videos are identical until, hidden under the cover after the ball has come to rest, the plank is moved
from the other corner to the ball's corner (recorded as a hidden `teleport` of the plank): this keeps the
pair identical before the manipulation. (The Unity original instead places the plank differently from the
start, always sends the implausible ball to the far corner, and teleports the ball into the triangle.)

Binary (`BINARY`), not graded: the ball is either inside the closed-off triangle or outside it. Every in-between
end state would have the plank cut through the ball (another violation, of solidity), and the plank's move
itself happens unseen under the cover, so no size of it reaches the video.
Tray frame and camera: see `topdown.py`.
"""

from voebench.generator import edits
from voebench.generator.params import POSITIVE, Fixed
from voebench.scenes.grasp_l2 import VISUAL, binary
from voebench.scenes.grasp_l2 import topdown as td

NUMBER = 12
PRINCIPLES = ["continuity"]
DELAYS = ("start_delay", "cover_wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)

BINARY = (
    "the ball is either inside the closed-off triangle or not: any in-between plank would cut through the ball "
    "(a solidity violation), and the plank's move happens unseen under the cover"
)
level_key = binary

SPACE = {
    **td.CORNER_SPACE,
    "cover_depth": Fixed(1.6, domain=POSITIVE),  # m of the tray's far end under the cover
    # m: the plank meets both walls `leg` from the corner
    "plank": {
        "leg": Fixed(0.9, domain=POSITIVE),
        "thickness": Fixed(0.05, domain=POSITIVE),
        "height": Fixed(0.3, domain=POSITIVE),
    },
    **VISUAL,
}


def build(scene, p, condition):
    tray = td.build_tray(scene, p)
    ball, arrive, lift, opened = td.corner_run(scene, p, tray, p.cover_depth)
    k = p.plank
    length = k.leg * 2**0.5 + 2 * k.thickness  # its ends tuck into the walls
    pos, quat = td.plank_pose(tray, -p.corner, k.leg, k.thickness, k.height)
    scene.add(
        "plank",
        "box",
        (length, k.thickness, k.height),
        pos,
        quaternion=quat,
        role="plank",
        fixture=True,
        color=td.wood_tint(p),
        texture={"pattern": "wood", "seed": int(p.wood_seed)},
    )
    td.look_down(scene, p, tray)
    td.require_reveal(scene, "t12", arrive, lift, opened)
    if condition == "implausible":
        frame = (arrive + lift) // 2  # the ball at rest in its corner, the cover not yet moving
        pos, quat = td.plank_pose(tray, p.corner, k.leg, k.thickness, k.height)
        edits.repose(scene, "plank", frame, pos, quat, PRINCIPLES, hidden=True)


def describe(scene, p, condition):
    end = (
        "the ball lies in the corner it rolled toward, and the other corner, closed off by a diagonal plank, is empty"
        if condition == "plausible"
        else "the corner the ball rolled toward is closed off by a diagonal plank, and the ball lies inside the "
        "triangle behind the plank; the other corner is empty"
    )
    return (
        f"Seen from above, a ball rolls out from under a roof at one end of a tray after {p.start_delay:.1f} s "
        f"and heads diagonally toward one of the far corners, slowing down, until it disappears under a cover "
        f"over the far end of the tray. The cover slides away: {end}."
    )
