"""What the `newton` scenes share: the table in its room, the objects' colours and names, the camera, and the
per-object level assignment.

Every scene shows two or three objects of one shape that look the same but for their colour, side by side from
left to right as the camera sees them, and gives each a sampled value of one physical attribute from its own
level (low / mid / high, or light / heavy), so the values differ clearly. Which object gets which level is a
`Balanced` leaf (`order`): it cycles with the trial index, so over 6 trials (2 for two objects) every object
position holds the most and the least of the attribute equally often, and the answers' positions among the
options (listed left to right) are balanced exactly.
"""

from __future__ import annotations

from itertools import permutations

from voebench.generator.params import INDEX, Choice, Domain, Range
from voebench.scenes.common import COLORS, table_room

PALETTE = ("red", "green", "blue", "yellow", "purple")  # 5 is prime: offset + k * step (step 1-4) are distinct
ORDERS3 = tuple("".join(str(i) for i in perm) for perm in permutations(range(3)))  # "012", "021", ...
ORDERS2 = ("01", "10")

COLOR_SPACE = {
    "color_offset": Range(0, len(PALETTE) - 1, integer=True, domain=INDEX),
    # any step 1-4 gives distinct colours, since 5 is prime
    "color_step": Choice((1, 2), domain=Domain("a step through the 5-colour palette", 1, 4, integer=True)),
}


def color_names(p, k: int) -> list[str]:
    return [PALETTE[(int(p.color_offset) + j * int(p.color_step)) % len(PALETTE)] for j in range(k)]


def colors(p, k: int) -> list[tuple]:
    return [COLORS[c] for c in color_names(p, k)]


def names(p, k: int, shape: str) -> list[str]:
    """How the questions name the objects, left to right: "the red ball", ..."""
    return [f"the {c} {shape}" for c in color_names(p, k)]


def levels(p, key: str, level_names: tuple[str, ...]) -> list[float]:
    """The sampled value of each object, left to right: object j gets level `order[j]` of `p[key]`."""
    values = p[key]
    return [float(values[level_names[int(ch)]]) for ch in str(p.order)]


def stage(scene, p) -> None:
    table_room(scene)
    scene.look(p.camera.eye, p.camera.look_at, fov_deg=p.camera.fov)
