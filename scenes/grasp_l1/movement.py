"""Movement: in the Directionality tray, the ball either rolls from a random point on one wall toward a
random point on the opposite wall (slowing to a stop), or lies still at a random place for the whole video."""

import numpy as np

from voebench.errors import Infeasible
from voebench.generator.params import FRACTION, Balanced, Range
from voebench.scenes.common import TRAY_CENTER, table_room, top_down, tray, tray_point
from voebench.scenes.grasp_l1 import other_label
from voebench.scenes.grasp_l1.directionality import SPACE as DIRECTIONALITY_SPACE, roll_ball, rolling, tray_ball

LABELS = ("moving", "not moving")
KEYWORDS: dict[str, list[str]] = {}  # no open question: GRASP has none for Movement

SPACE = {
    "movement": Balanced(LABELS),
    "start_edge": Balanced(("front", "back", "left", "right")),
    # where along its edge the moving ball starts, or its x if it stands still
    "start": Range(0.0, 1.0, domain=FRACTION),
    "target": Range(0.0, 1.0, domain=FRACTION),  # where along the opposite edge it heads, or its y if it stands still
    **{k: DIRECTIONALITY_SPACE[k] for k in ("speed", "travel", "start_delay", "ball", "camera")},
}
EDGES = {
    "front": lambda f: (f, 0.0),
    "back": lambda f: (f, 1.0),
    "left": lambda f: (0.0, f),
    "right": lambda f: (1.0, f),
}
OPPOSITE = {"front": "back", "back": "front", "left": "right", "right": "left"}


def build(scene, p, condition):
    table_room(scene)
    tray(scene)
    moving = p.movement == "moving"
    if not (0.0 <= p.start <= 1.0 and 0.0 <= p.target <= 1.0 and (0.0 < p.travel <= 1.0 or not moving)):
        raise Infeasible(
            "the ball must stay in the tray (start and target in [0, 1], travel in (0, 1]); got "
            f"start {p.start:g}, target {p.target:g}, travel {p.travel:g}",
            ("start", "target", "travel"),
        )
    if p.movement == "moving":
        start = tray_point(*EDGES[p.start_edge](p.start))
        target = tray_point(*EDGES[OPPOSITE[p.start_edge]](p.target))
        ball = tray_ball(scene, p, start)
        path = target - start
        roll_ball(scene, ball, start, path / np.linalg.norm(path), p, p.travel * np.linalg.norm(path))
    else:
        tray_ball(scene, p, tray_point(p.start, p.target))
    top_down(scene, (*TRAY_CENTER, 0.0), p.camera.height, p.camera.fov)


def observation(p):
    return p.movement


def open_answer(p) -> None:
    """No open question, so no open answer."""
    return None


def negative(p, rng):
    return other_label(LABELS, p.movement, rng)


def describe(scene, p, condition):
    if p.movement == "moving":
        return f"Seen from above, a ball lies in a square tray. {rolling(p, scene, 'across the tray')}"
    return "Seen from above, a ball lies in a square tray. It stays where it is for the whole video."
