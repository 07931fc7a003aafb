"""Building blocks shared by scene scripts: colours, the room, the table, the ball, camera SPACE leaves.

Coordinates: metres, z up. GRASP's Unity scenes are converted with Blender (x, y, z) = Unity (x, z, y) and
shifted so the table top's centre is the origin (Unity (3.745, 10.224, -8.630)); sizes are Unity's.
"""

from __future__ import annotations

import colorsys

import numpy as np

from voebench.generator.params import ANGLE, COORDINATE, FOV, FRACTION, POSITIVE, Fixed, Params, Range
from voebench.generator.scene import RigidBody, Scene, SceneObject

# Pure colours, linear RGB (the GRASP originals use pure primaries).
COLORS = {
    "red": (1.0, 0.0, 0.0),
    "green": (0.0, 1.0, 0.0),
    "blue": (0.0, 0.0, 1.0),
    "black": (0.0, 0.0, 0.0),
    "white": (1.0, 1.0, 1.0),
    "yellow": (1.0, 1.0, 0.0),
    "purple": (0.5, 0.0, 0.5),
}
POLE_GREY = (0.086, 0.087, 0.087)  # GRASP's dark "Pole" material (back panels, the black barrier, tray floor)
WOODS = ("wood",)

TABLE_SIZE = (12.0, 8.0)  # top of the table, x by y; the Level 1 spawn area spans 11.3 x 7.0
TABLE_HEIGHT = 2.4  # table top above the floor (Unity scene)
ROOM_HALF = 9.0  # inner half-width of the room


def srgb_to_linear(c):
    c = np.asarray(c, float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def hsv_color(h: float, s: float, v: float):
    """An HSV colour (as Unity's Color.HSV, values in sRGB) as linear RGB."""
    return tuple(float(x) for x in srgb_to_linear(colorsys.hsv_to_rgb(h, s, v)))


# SPACE leaves for a random colour bright enough to read on dark panels and the table (GRASP's Color.HSV ranges),
# fed to hsv_color; spread into an object's SPACE dict (`**BRIGHT_HSV`) where its colour is declared, since
# sampling draws leaves in declaration order
BRIGHT_HSV = {
    "hue": Range(0.0, 1.0, domain=FRACTION),
    "saturation": Range(0.6, 1.0, domain=FRACTION),
    "value": Range(0.6, 1.0, domain=FRACTION),
}


def ball_space(diameter: float) -> dict:
    """SPACE leaves for a ball: a fixed diameter (m), then a bright colour."""
    return {"diameter": Fixed(diameter, domain=POSITIVE), **BRIGHT_HSV}


def add_ball(scene: Scene, p: Params, center) -> SceneObject:
    """The ball of `ball_space` (p.ball: its diameter and HSV colour) with its centre at `center`; no collider
    (its track is scripted). The one ball of GRASP's Level 1 rolls, the Level 2 front views and top-down tray."""
    d = p.ball.diameter
    return scene.add(
        "ball", "sphere", (d,) * 3, center, role="ball", color=hsv_color(p.ball.hue, p.ball.saturation, p.ball.value)
    )


# ------------------------------------------------------------------------------------ camera SPACE leaves
# Three camera rigs, each a dict of SPACE leaves a scene script puts under "camera" (sampling draws its leaves in
# this order, so their order is part of what a seed means).


def camera_offsets(
    dx: tuple[float, float] = (-0.5, 0.5),
    dy: tuple[float, float] = (0.0, 0.0),
    dz: tuple[float, float] = (-0.5, 0.5),
    fov: float = 70.0,
) -> dict:
    """A camera shifted from a scene's nominal eye (GRASP Level 2 front views): offsets in metres added along our
    x (right), y (depth, + away from the viewer) and z (up); GRASP's Unity ranges (x, y, z) map to (dx, dz, dy).
    `fov` in degrees, fixed."""
    return {
        "dx": Range(*dx, domain=COORDINATE),
        "dy": Range(*dy, domain=COORDINATE),
        "dz": Range(*dz, domain=COORDINATE),
        "fov": Fixed(fov, domain=FOV),
    }


def camera_above(roll_lo: float, roll_hi: float, height: float, fov: float = 70.0) -> dict:
    """A camera looking straight down (GRASP Level 2 top-down tray): camera and look-at shifted together by
    `offset_x`, `offset_y` (m), the image rolled in its plane by `roll` degrees (0: far wall at the top), at a
    fixed `height` (m above the table) and vertical field of view `fov` (degrees)."""
    return {
        "offset_x": Range(-0.5, 0.5, domain=COORDINATE),
        "offset_y": Range(-0.5, 0.5, domain=COORDINATE),
        "roll": Range(roll_lo, roll_hi, domain=ANGLE),
        "height": Fixed(height, domain=POSITIVE),
        "fov": Fixed(fov, domain=FOV),
    }


def camera_fixed(eye, look_at, fov: float) -> dict:
    """A camera that does not vary (the `newton` scenes): eye and look-at points (m), vertical fov (degrees)."""
    return {
        "eye": Fixed(list(eye), domain=COORDINATE),
        "look_at": Fixed(list(look_at), domain=COORDINATE),
        "fov": Fixed(fov, domain=FOV),
    }


def room(
    scene: Scene,
    floor_z: float,
    wall_color=(0.59, 0.55, 0.47),
    walls=("left", "right", "back", "front"),
    wall_texture_seed: int = 0,
    floor_seed: int = 0,
) -> None:
    """Parquet floor and plaster walls (10 m high, 1 m thick) around an 18 m square room."""
    scene.add(
        "floor",
        "box",
        (20.0, 20.0, 1.0),
        (0.0, 0.0, floor_z - 0.5),
        role="floor",
        fixture=True,
        color=(0.55, 0.38, 0.22),
        texture={"pattern": "parquet", "seed": floor_seed},
        body=RigidBody("passive", friction=0.6),
    )
    h, zc = 10.0, floor_z + 5.0
    spec = {
        "left": ((1.0, 20.0, h), (-ROOM_HALF - 0.5, 0.0, zc)),
        "right": ((1.0, 20.0, h), (ROOM_HALF + 0.5, 0.0, zc)),
        "back": ((18.0, 1.0, h), (0.0, ROOM_HALF + 0.5, zc)),
        "front": ((18.0, 1.0, h), (0.0, -ROOM_HALF - 0.5, zc)),
    }
    for name in walls:
        dims, pos = spec[name]
        scene.add(
            f"wall_{name}",
            "box",
            dims,
            pos,
            role="wall",
            fixture=True,
            color=wall_color,
            texture={"pattern": "plaster", "seed": wall_texture_seed},
        )


def table(scene: Scene, size=TABLE_SIZE, height: float = TABLE_HEIGHT, texture_seed: int = 1) -> None:
    """A wooden table whose top surface is z = 0, centred on the origin, standing on the floor."""
    top = 0.1
    scene.add(
        "table",
        "box",
        (size[0], size[1], top),
        (0.0, 0.0, -top / 2),
        role="table",
        fixture=True,
        color=(0.45, 0.28, 0.15),
        texture={"pattern": "wood", "seed": texture_seed},
        body=RigidBody("passive", friction=0.5),
    )
    leg_h = height - top
    for i, (sx, sy) in enumerate([(-1, -1), (1, -1), (-1, 1), (1, 1)]):
        scene.add(
            f"table_leg{i}",
            "box",
            (0.3, 0.3, leg_h),
            (sx * (size[0] / 2 - 0.4), sy * (size[1] / 2 - 0.4), -top - leg_h / 2),
            role="table",
            fixture=True,
            color=(0.35, 0.22, 0.12),
            texture={"pattern": "wood", "seed": texture_seed},
        )


def table_room(scene: Scene) -> None:
    table(scene)
    room(scene, floor_z=-TABLE_HEIGHT)


def top_down(scene: Scene, center, height: float, fov_deg: float = 70.0, image_up=(0.0, 1.0, 0.0)) -> None:
    """A camera straight above `center` with +`image_up` pointing up in the image."""
    c = np.asarray(center, float)
    scene.look(c + (0.0, 0.0, height), c, fov_deg=fov_deg, up=image_up)


def pitched(scene: Scene, eye, yaw_deg: float, pitch_deg: float, fov_deg: float = 70.0) -> None:
    """A camera at `eye` looking along compass `yaw_deg` (0 = +y, 90 = +x) tilted down by `pitch_deg`."""
    yaw, pitch = np.radians(yaw_deg), np.radians(pitch_deg)
    forward = np.array([np.sin(yaw) * np.cos(pitch), np.cos(yaw) * np.cos(pitch), -np.sin(pitch)])
    eye = np.asarray(eye, float)
    scene.look(eye, eye + forward, fov_deg=fov_deg)


# The Level 1 tray (Directionality, Movement): a 5 x 5 m dark floor with low wooden walls on the table.
TRAY_CENTER = (-0.6, 0.0)
TRAY_SIZE = 5.0
TRAY_FLOOR_TOP = 0.1
TRAY_BALL_SPAN = 4.4  # the ball's centre stays within 4.4 x 4.4 m (0.3 m clear of the walls)


def tray(scene: Scene, wall_height: float = 0.5, wall_texture_seed: int = 2) -> None:
    cx, cy = TRAY_CENTER
    s, t = TRAY_SIZE, 0.1
    scene.add(
        "tray_floor",
        "box",
        (s, s, TRAY_FLOOR_TOP),
        (cx, cy, TRAY_FLOOR_TOP / 2),
        role="tray",
        fixture=True,
        color=POLE_GREY,
        body=RigidBody("passive"),
    )
    z = TRAY_FLOOR_TOP + wall_height / 2
    for name, dims, pos in [
        ("tray_wall_left", (t, s, wall_height), (cx - s / 2 + t / 2, cy, z)),
        ("tray_wall_right", (t, s, wall_height), (cx + s / 2 - t / 2, cy, z)),
        ("tray_wall_back", (s, t, wall_height), (cx, cy + s / 2 - t / 2, z)),
        ("tray_wall_front", (s, t, wall_height), (cx, cy - s / 2 + t / 2, z)),
    ]:
        scene.add(
            name,
            "box",
            dims,
            pos,
            role="wall",
            fixture=True,
            color=(0.62, 0.5, 0.36),
            texture={"pattern": "wood", "seed": wall_texture_seed},
            body=RigidBody("passive"),
        )


def tray_point(fx: float, fy: float):
    """A ball-centre position in the tray from fractions of the span (0 = left/front, 1 = right/back)."""
    half = TRAY_BALL_SPAN / 2
    return np.array([TRAY_CENTER[0] - half + fx * TRAY_BALL_SPAN, TRAY_CENTER[1] - half + fy * TRAY_BALL_SPAN])
