"""What the five AVoE scene scripts share: the original's camera, ground and colours, the seven object shapes,
surface points for geometry (visibility, heights, footprints). (The twin simulation the surprising variants
use is `generator.edits.simulate_twin`.)

Coordinates are the original Blender scenes' (metres, z up, ground plane z = 0), so positions and sizes read
like the AVoE scripts: one parameter unit is 2 m (supplementary 1.2), so an object of width `w` is `2 w` m wide.
"""

from __future__ import annotations

import numpy as np

from voebench.generator.geometry import box_surface, segments_hit_box
from voebench.generator.kinematics import quat_from_axis_angle, quat_to_matrix
from voebench.generator.scene import RigidBody, Scene

UNIT = 2.0  # metres per parameter unit (supplementary 1.2: "a 1 is equivalent to 2m")
ORIGINAL_FPS = 24.0  # A, B, D, E .blend frame rate; times below are original frames / 24

# The camera of all five .blend files: location, Euler XYZ (71.6, 0, -16.4) deg, 50 mm lens on a 36 mm wide
# sensor at 16:9 (horizontal FOV 39.6 deg).
CAMERA_EYE = np.array([-8.0365, -27.7827, 10.5977])
_rx, _rz = np.radians(71.6), np.radians(-16.4)
CAMERA_DIR = np.array([-np.sin(_rz) * np.sin(_rx), np.cos(_rz) * np.sin(_rx), -np.cos(_rx)])
HFOV_DEG = float(np.degrees(2 * np.arctan(18.0 / 50.0)))
VFOV_DEG = float(np.degrees(2 * np.arctan(18.0 / 50.0 * 9.0 / 16.0)))
# A manipulation recorded as hidden stays hidden when rendered as small as MIN_WIDTH_PX across: the blockers are
# shrunk by one such pixel (as an angle seen from the camera) before testing that nothing of the object shows.
MIN_WIDTH_PX = 64
PIXEL_MARGIN_RAD = float(np.radians(HFOV_DEG) / MIN_WIDTH_PX)

AVOE_SHAPES = ("cube", "cylinder", "torus", "sphere", "cone", "side_cylinder", "inverted_cone")  # names, not primitives

# Original materials: hex / 255 fed in as base colour (docs/scene-facts.md Part 5); we do the same (linear RGB).
SHAPE_COLORS = {
    "cube": (0.976, 0.027, 0.027),
    "cylinder": (0.0, 1.0, 0.0),
    "torus": (1.0, 0.647, 0.0),
    "sphere": (1.0, 1.0, 0.0),
    "cone": (0.0, 1.0, 0.0),
    "side_cylinder": (0.0, 0.0, 0.0),
    "inverted_cone": (0.502, 0.0, 0.502),
}
SUPPORT_COLOR = (0.502, 0.502, 0.502)
CONTAINER_COLOR = (1.0, 0.753, 0.796)
OCCLUDER_COLOR = (0.0, 1.0, 1.0)
WALL_COLOR = (0.0, 0.0, 1.0)
ROD_COLOR = (0.0, 0.0, 0.0)
GROUND_COLOR = (1.0, 1.0, 1.0)
BACKGROUND = (0.0509, 0.0509, 0.0509)

_Q_ID = (1.0, 0.0, 0.0, 0.0)
_Q_SIDE = tuple(quat_from_axis_angle((0, 1, 0), np.pi / 2))  # own z (the cylinder axis) -> world x
_Q_INVERT = tuple(quat_from_axis_angle((0, 1, 0), np.pi))  # apex down


def t2f(scene: Scene, original_frame: float, first_frame: float = 1.0) -> int:
    """Our frame index for an original (24 fps, 1-based) frame number, at the scene's own fps."""
    return scene.frame((original_frame - first_frame) / ORIGINAL_FPS)


MAX_TRAVEL_SPEED = 25.0  # m/s: faster than any object slides or flies here (launched at <= 15, struck at <= 22)


def ground_size(seconds: float) -> float:
    """Side of the square ground (m): the original's 200 m, larger for a video long enough that an object
    (B slides at a constant 13 m/s) could otherwise leave it and fall (the originals last 2 s)."""
    return 2.0 * max(100.0, MAX_TRAVEL_SPEED * seconds + 20.0)


def stage(scene: Scene) -> None:
    """Ground, background and camera as in the original .blend files."""
    scene.background = BACKGROUND
    size = ground_size(scene.n_frames / scene.fps)
    scene.add(
        "ground",
        "plane",
        (size, size, 0.0),
        (0.0, 0.0, 0.0),
        role="floor",
        fixture=True,
        color=GROUND_COLOR,
        body=RigidBody("passive", friction=0.5),
    )
    scene.look(CAMERA_EYE, CAMERA_EYE + 30.0 * CAMERA_DIR, fov_deg=VFOV_DEG)
    scene.lights[0].direction = (0.0, 0.0, -1.0)  # the area light points down


# ----------------------------------------------------------------------------------------------- objects


def add_object(scene: Scene, name: str, shape: str, size, center, *, role: str = "object", body=None, color=None):
    """One of the seven AVoE shapes with world extents `size` = (x, y, z) m, bounding-box centre `center`.
    Side cylinder: a cylinder lying along x; inverted cone: apex down; torus: a ring standing in the x-z plane
    (facing the camera), tube 20% of its outer size as in the original (minor/major radius 0.25/1)."""
    W, D, H = (float(v) for v in size)
    color = SHAPE_COLORS[shape] if color is None else color
    if body is not None and body.collision_shape is None:
        body.collision_shape = "BOX" if shape == "cube" else "CONVEX_HULL"
    if shape == "cube":
        return scene.add(name, "box", (W, D, H), center, role=role, color=color, body=body)
    if shape in ("cylinder", "sphere", "cone"):
        return scene.add(name, shape, (W, D, H), center, role=role, color=color, body=body)
    if shape == "inverted_cone":
        return scene.add(name, "cone", (W, D, H), center, role=role, color=color, body=body, quaternion=_Q_INVERT)
    if shape == "side_cylinder":
        return scene.add(name, "cylinder", (H, D, W), center, role=role, color=color, body=body, quaternion=_Q_SIDE)
    if shape == "torus":
        return scene.add(name, "mesh", (W, D, H), center, role=role, color=color, body=body, mesh=torus_mesh(W, D, H))
    raise ValueError(f"unknown AVoE shape {shape!r}")


def torus_mesh(W: float, D: float, H: float, n_major: int = 32, n_minor: int = 12):
    """A ring standing in the x-z plane: outer extents W (x) by H (z), tube thickness D (y); the tube is
    0.2 of the outer size in the ring's plane."""
    tube = 0.1  # tube radius / outer size
    verts = []
    for i in range(n_major):
        u = 2 * np.pi * i / n_major
        for j in range(n_minor):
            v = 2 * np.pi * j / n_minor
            rx = (0.5 - tube + tube * np.cos(v)) * W
            rz = (0.5 - tube + tube * np.cos(v)) * H
            verts.append((rx * np.cos(u), 0.5 * D * np.sin(v), rz * np.sin(u)))
    faces = [
        (
            i * n_minor + j,
            ((i + 1) % n_major) * n_minor + j,
            ((i + 1) % n_major) * n_minor + (j + 1) % n_minor,
            i * n_minor + (j + 1) % n_minor,
        )
        for i in range(n_major)
        for j in range(n_minor)
    ]
    return np.array(verts), faces


def object_size(shape: str, w: float, h: float, depth: float | None = None):
    """World extents (x, y, z) m from parameter width, height (and depth; default = width, i.e. round shapes
    are round in plan; a torus is a ring 0.2 of its width thick)."""
    W, H = UNIT * w, UNIT * h
    if depth is not None:
        D = UNIT * depth
    elif shape == "torus":
        D = 0.2 * W
    else:
        D = W
    return W, D, H


def local_points(obj, n: int = 24) -> np.ndarray:
    """Surface points of an object in its own frame (centred on its bounding box), for geometry."""
    d = obj.dimensions
    if obj.shape == "mesh":
        return np.asarray(obj.mesh[0], float)
    if obj.shape in ("box", "plane"):  # a 5 x 5 grid per face (a plane: its box flattened onto z = 0)
        pts = box_surface((d[0] / 2, d[1] / 2, d[2] / 2 if obj.shape == "box" else 0.5), n=5)
        if obj.shape == "plane":
            pts[:, 2] = 0.0
        return pts
    u = 2 * np.pi * np.arange(n) / n
    ring = np.c_[0.5 * np.cos(u), 0.5 * np.sin(u)]
    rows: list[tuple[float, float, float]]  # unit-size points, scaled by the dimensions
    if obj.shape == "sphere":
        rows = [(0, 0, -0.5), (0, 0, 0.5)]
        for lat in np.linspace(-np.pi / 2, np.pi / 2, 11)[1:-1]:
            rows += [(x * np.cos(lat), y * np.cos(lat), 0.5 * np.sin(lat)) for x, y in ring]
        return np.array(rows) * d
    if obj.shape == "cylinder":
        rows = [(x * f, y * f, z) for z in np.linspace(-0.5, 0.5, 5) for x, y in ring for f in (1.0,)]
        rows += [(0, 0, -0.5), (0, 0, 0.5)]
        return np.array(rows) * d
    if obj.shape == "cone":
        rows = [(x * (0.5 - z), y * (0.5 - z), z) for z in np.linspace(-0.5, 0.5, 6) for x, y in ring]
        rows += [(0, 0, 0.5), (0, 0, -0.5)]
        return np.array(rows) * d
    if obj.shape == "torus":
        return np.array([(x, y, 0.0) for x, y in ring]) * d
    raise ValueError(obj.shape)


def world_points(obj, t: int, local: np.ndarray | None = None) -> np.ndarray:
    local = local_points(obj) if local is None else local
    return local @ quat_to_matrix(obj.quaternion[t]).T + obj.position[t]


def z_extent(obj, t: int) -> tuple[float, float]:
    z = world_points(obj, t)[:, 2]
    return float(z.min()), float(z.max())


def tilt_deg(obj, t: int) -> float:
    """Angle between the object's own z axis now and at frame 0."""
    a = quat_to_matrix(obj.quaternion[0])[:, 2]
    b = quat_to_matrix(obj.quaternion[t])[:, 2]
    return float(np.degrees(np.arccos(np.clip(a @ b, -1.0, 1.0))))


# ----------------------------------------------------------------------------------------------- visibility


def _segment_hits_box(eye, pts, box, t, shrink: float = 0.0) -> np.ndarray:
    """For each point: does the segment eye -> point pass through `box` (an oriented box object, made `shrink`
    m smaller on every side) at frame t? (A point on the box's own face is not hidden by it: `end` just short of
    the point.)"""
    return segments_hit_box(
        eye,
        pts,
        box.position[t],
        quat_to_matrix(box.quaternion[t]),
        np.maximum(box.dimensions / 2.0 - shrink, 1e-4),
        end=1.0 - 1e-6,
    )


def visible_points(scene: Scene, name: str, t: int, blockers=(), local=None, margin: float = 0.0) -> np.ndarray:
    """World surface points of `name` at frame t that the camera sees: inside the 16:9 view, above the ground
    and not behind any of the `blockers` (box objects). If one is unblocked, the object shows some pixels
    (the first surface along that ray is the object itself). Self-occlusion needs no test for that reason.
    `margin` (radians): every blocker is shrunk on all sides by this angle as seen from the camera (at its
    centre's distance), so a point hidden with a margin stays hidden when rasterised (a pixel covers a finite
    angle, and an edge pixel shows whatever lies under part of it)."""
    obj = scene[name]
    if not obj.visible[t]:
        return np.zeros((0, 3))
    pts = world_points(obj, t, local)
    pts = pts[pts[:, 2] > -1e-3]
    eye = scene.cam.position[t]
    E = np.linalg.inv(scene.cam.cam_to_world(t))
    c = np.c_[pts, np.ones(len(pts))] @ E.T
    tx, ty = np.tan(np.radians(HFOV_DEG / 2)), np.tan(np.radians(VFOV_DEG / 2))
    keep = (c[:, 2] > 0.1) & (np.abs(c[:, 0]) < tx * c[:, 2]) & (np.abs(c[:, 1]) < ty * c[:, 2])
    pts = pts[keep]
    for b in blockers:
        if len(pts) == 0:
            break
        if scene[b].visible[t]:
            shrink = np.tan(margin) * float(np.linalg.norm(scene[b].position[t] - eye)) if margin > 0 else 0.0
            pts = pts[~_segment_hits_box(eye, pts, scene[b], t, shrink)]
    return pts


# The surprising twins (generator.edits.diverge_hidden / follow_twin) state their own hidden window, because
# what a viewer could catch differs: A (centre of mass moved) and D (masses changed) happen in the open, as in the
# original, so they claim nothing (hidden=False); C's change of course is one contact at the container's opening,
# so it tests the divergence and the frame before it behind the screen; E's object can stay inside the wall or
# stop at an invisible collider for several frames, so it tests every such event frame, with a pixel margin.
def hidden(scene: Scene, name: str, frames, blockers, margin: float = 0.0) -> bool:
    """Whether the object (grown by `margin` radians, see visible_points) shows no surface point in any of
    `frames`."""
    loc = local_points(scene[name])
    return all(len(visible_points(scene, name, int(t), blockers, loc, margin)) == 0 for t in frames)


def units(x_m: float) -> float:
    """Metres -> parameter units, rounded for labels."""
    return round(float(x_m) / UNIT, 4)
