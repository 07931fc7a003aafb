"""Shape: one black cube or ball of random size at a random place on the table; the camera looks on from
above and behind. Nothing moves."""

from voebench.errors import Infeasible
from voebench.generator.params import COORDINATE, FOV, FRACTION, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import TABLE_SIZE, table_room
from voebench.scenes.grasp_l1 import other_label

LABELS = ("ball", "cube")
KEYWORDS = {"ball": ["ball", "sphere", "round"], "cube": ["cube", "box", "rectangular", "square"]}

SPACE = {
    "shape": Balanced(LABELS),
    "size": Range(0.8, 2.0, domain=POSITIVE),  # ball diameter or cube edge, m
    # fraction of the table's length and depth
    "place": {"x": Range(0.2, 0.8, domain=FRACTION), "y": Range(0.2, 0.8, domain=FRACTION)},
    "color": Fixed([0.0, 0.0, 0.0], domain=FRACTION),
    # GRASP's eye point; it looks at the table centre (the original looked past the spawn area, see docs/differences.md)
    "camera": {
        "eye": Fixed([5.88, 4.6, 5.28], domain=COORDINATE),
        "look_at": Fixed([0.0, 0.0, 0.0], domain=COORDINATE),
        "fov": Fixed(70.0, domain=FOV),
    },
}


def place_on_table(scene, name, shape, size, fx, fy, color, role):
    x = (fx - 0.5) * (TABLE_SIZE[0] - 0.7)  # the spawn area of the original, 11.3 x 7.0 m
    y = (fy - 0.5) * (TABLE_SIZE[1] - 1.0)
    if size <= 0 or abs(x) > TABLE_SIZE[0] / 2 or abs(y) > TABLE_SIZE[1] / 2:  # it must rest on the table
        raise Infeasible(
            f"a {size:g} m {shape} at ({x:.2f}, {y:.2f}) is not on the table", ("size", "place.x", "place.y")
        )
    scene.add(name, "sphere" if shape == "ball" else "box", (size,) * 3, (x, y, size / 2), role=role, color=color)


def build(scene, p, condition):
    table_room(scene)
    place_on_table(scene, "object", p.shape, p.size, p.place.x, p.place.y, p.color, role=p.shape)
    scene.look(p.camera.eye, p.camera.look_at, fov_deg=p.camera.fov)


def observation(p):
    return p.shape


def open_answer(p):
    return p.shape


def negative(p, rng):
    return other_label(LABELS, p.shape, rng)


def describe(scene, p, condition):
    what = f"ball {p.size:.1f} m across" if p.shape == "ball" else f"cube with {p.size:.1f} m edges"
    return f"A black {what} rests on a wooden table. Nothing moves."
