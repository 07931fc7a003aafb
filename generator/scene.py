"""The one data model: a Scene is objects + camera + lights + a frame-by-frame timeline.

Scene scripts build a Scene from sampled parameters and fill each object's per-frame arrays (directly, with
`kinematics`, or through `physics.simulate`). The renderer, the HDF5 writer and the audits all read the same
arrays, so what is written is exactly what is rendered.

Units: metres, seconds; world frame right-handed with z up. Quaternions are (w, x, y, z).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from voebench.generator.geometry import GRAVITY

SHAPES = ("sphere", "box", "cylinder", "cone", "torus", "plane", "mesh")


# --------------------------------------------------------------------------------------------------- objects


@dataclass
class RigidBody:
    """How Bullet treats an object. `kind`: `active` (moved by physics), `passive` (static collider) or
    `kinematic` (collider that follows its scripted track, e.g. a pin that pushes a cube).
    An active body follows its scripted track until `release_frame`, then starts with `velocity` (m/s)."""

    kind: str = "active"
    mass: float = 1.0
    friction: float = 0.5
    restitution: float = 0.0
    linear_damping: float = 0.04
    angular_damping: float = 0.1
    collision_shape: str | None = None  # default from the object's shape
    # Bullet's collision margin (m); None keeps Blender's default (0.04, rounding box and cylinder edges by that
    # radius, so a corner can sink ~16 mm into a face: the predict suite sets 1 mm)
    margin: float | None = None
    release_frame: int = 0
    velocity: tuple = (0.0, 0.0, 0.0)
    angular_velocity: tuple = (0.0, 0.0, 0.0)


@dataclass
class SceneObject:
    """One object and its track. `dimensions` are the bounding-box extents in the object's own frame;
    `position` is the bounding-box centre. Per-frame arrays are (T, ...) and start as the initial state."""

    name: str
    id: int
    role: str
    shape: str
    dimensions: np.ndarray
    position: np.ndarray  # (T,3)
    quaternion: np.ndarray  # (T,4) w x y z
    color: np.ndarray  # (T,3) linear RGB
    visible: np.ndarray  # (T,) bool
    texture: dict | None = None  # procedural texture spec, e.g. {"pattern": "wood", "seed": 3}
    body: RigidBody | None = None
    mesh: tuple | None = None  # (vertices (V,3), faces list of index tuples) for shape == "mesh"
    shape_params: dict = field(default_factory=dict)  # e.g. {"minor_radius": ...} for a torus
    fixture: bool = False  # scenery or a mechanism (floor, wall, occluder, pin): held or moved by the script, so
    # the audit exempts it from gravity/support/velocity checks (it is still an obstacle)

    @property
    def n_frames(self) -> int:
        return len(self.position)

    def hold(self, frame: int, until: int | None = None) -> None:
        """Keep the state of `frame` for all later frames (or up to `until`, exclusive)."""
        end = self.n_frames if until is None else until
        self.position[frame + 1 : end] = self.position[frame]
        self.quaternion[frame + 1 : end] = self.quaternion[frame]


@dataclass
class Camera:
    """A pinhole camera: per-frame position and look-at target, vertical field of view in degrees.
    `roll_deg` rotates the image about the viewing axis (top-down cameras need an explicit image-up)."""

    position: np.ndarray  # (T,3)
    look_at: np.ndarray  # (T,3)
    fov_deg: float = 70.0
    up: tuple = (0.0, 0.0, 1.0)

    def cam_to_world(self, t: int) -> np.ndarray:
        """4x4 camera-to-world in the OpenCV convention (x right, y down, z forward)."""
        return opencv_cam_to_world(self.position[t], self.look_at[t], np.asarray(self.up, float))

    def extrinsics(self) -> np.ndarray:
        """(T,4,4) world-to-camera matrices, OpenCV convention."""
        return np.stack([np.linalg.inv(self.cam_to_world(t)) for t in range(len(self.position))])

    def intrinsics(self, width: int, height: int) -> np.ndarray:
        fy = (height / 2.0) / np.tan(np.radians(self.fov_deg) / 2.0)
        return np.array([[fy, 0.0, width / 2.0], [0.0, fy, height / 2.0], [0.0, 0.0, 1.0]])


def opencv_cam_to_world(eye, target, up) -> np.ndarray:
    forward = np.asarray(target, float) - np.asarray(eye, float)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, up)
    if np.linalg.norm(right) < 1e-9:
        raise ValueError("camera up vector is parallel to the viewing direction")
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, down, forward, eye
    return m


def project(points: np.ndarray, intrinsics: np.ndarray, extrinsics: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World points (N,3) to pixel coordinates (N,2) and depth (N,) for one frame."""
    p = np.c_[points, np.ones(len(points))] @ extrinsics.T
    q = p[:, :3] @ intrinsics.T
    return q[:, :2] / q[:, 2:3], p[:, 2]


@dataclass
class Light:
    """A sun lamp for the path-tracing engines (Workbench uses studio lighting and ignores it)."""

    direction: tuple = (-0.4, 0.5, -0.75)
    strength: float = 3.0
    color: tuple = (1.0, 0.957, 0.839)


# --------------------------------------------------------------------------------------------------- scene


@dataclass
class Violation:
    """What the implausible/surprising version changes: the HDF5 `violation` record."""

    principles: list
    kind: str
    object: str
    first_frame: int
    last_frame: int
    hidden: bool = False
    #: a graded violation's size in its unit (`edits.grade`), how the audit measures it and its tolerance there;
    #: None for a violation with no size (the record then keeps its ungraded fields only)
    level: float | None = None
    unit: str = ""
    measure: str = ""
    tol: float = 0.0
    level_key: str = "violation"  # the Level leaf of the space it was graded by

    def as_dict(self) -> dict:
        d = {
            "principles": list(self.principles),
            "kind": self.kind,
            "object": self.object,
            "first_frame": int(self.first_frame),
            "last_frame": int(self.last_frame),
            "hidden": bool(self.hidden),
        }
        if self.level is not None:
            d.update(level=float(self.level), unit=self.unit, measure=self.measure, tol=float(self.tol))
        return d


class Scene:
    """Objects with tracks, a camera, lights and a background colour, over `n_frames` at `fps`."""

    def __init__(self, n_frames: int, fps: float, background=(0.05, 0.05, 0.05)):
        if n_frames < 1:
            raise ValueError("a scene needs at least one frame")
        self.n_frames = int(n_frames)
        self.fps = float(fps)
        self.dt = 1.0 / self.fps
        self.objects: dict[str, SceneObject] = {}
        self.camera: Camera | None = None
        self.lights: list[Light] = [Light()]
        self.background = tuple(background)
        self.violation: Violation | None = None
        self.gravity = GRAVITY.copy()  # (a scene may change its own)

    # ---------------------------------------------------------------------- building

    def add(
        self,
        name: str,
        shape: str,
        dimensions,
        position,
        *,
        role: str,
        color=(0.5, 0.5, 0.5),
        quaternion=(1.0, 0.0, 0.0, 0.0),
        texture: dict | None = None,
        body: RigidBody | None = None,
        mesh=None,
        visible: bool = True,
        fixture: bool = False,
        **shape_params,
    ) -> SceneObject:
        if name in self.objects:
            raise ValueError(f"duplicate object name {name!r}")
        if shape not in SHAPES:
            raise ValueError(f"unknown shape {shape!r}; one of {SHAPES}")
        T = self.n_frames
        obj = SceneObject(
            name=name,
            id=len(self.objects) + 1,
            role=role,
            shape=shape,
            dimensions=np.asarray(dimensions, float).reshape(3),
            position=np.tile(np.asarray(position, float), (T, 1)),
            quaternion=np.tile(np.asarray(quaternion, float), (T, 1)),
            color=np.tile(np.asarray(color, np.float32), (T, 1)),
            visible=np.full(T, bool(visible)),
            texture=texture,
            body=body,
            mesh=mesh,
            shape_params=shape_params,
            fixture=bool(fixture),
        )
        self.objects[name] = obj
        return obj

    def look(self, eye, target, fov_deg: float = 70.0, up=(0.0, 0.0, 1.0)) -> Camera:
        T = self.n_frames
        self.camera = Camera(
            np.tile(np.asarray(eye, float), (T, 1)), np.tile(np.asarray(target, float), (T, 1)), fov_deg, tuple(up)
        )
        return self.camera

    def __getitem__(self, name: str) -> SceneObject:
        return self.objects[name]

    @property
    def cam(self) -> Camera:
        """The camera, for code that reads a built scene: every build sets one (`look`), and
        `Suite.make_scene` refuses a build that did not."""
        if self.camera is None:
            raise RuntimeError("the scene has no camera (its build never called look)")
        return self.camera

    def frame(self, seconds: float) -> int:
        """The frame index showing time `seconds`, clipped to the video."""
        return int(np.clip(round(seconds * self.fps), 0, self.n_frames - 1))

    # ---------------------------------------------------------------------- reading

    def state_keys(self) -> list[bytes]:
        """One key per frame that is equal for two frames exactly when everything that can affect the image
        (poses, colours, visibility, camera) is equal. Used to render each distinct frame once."""
        parts = [self.cam.position, self.cam.look_at]
        for o in self.objects.values():
            parts += [o.position, o.quaternion, o.color.astype(np.float64), o.visible[:, None].astype(np.float64)]
        table = np.ascontiguousarray(
            np.concatenate([np.asarray(p, np.float64).reshape(self.n_frames, -1) for p in parts], axis=1)
        )
        return [row.tobytes() for row in table]

    def first_frames(self, keys: list[bytes] | None = None) -> list[int]:
        """The frame where each distinct state (`state_keys`, or `keys` already made from them) first appears, in
        order: the frames a renderer draws when it draws each distinct frame once."""
        firsts, seen = [], set()
        for t, k in enumerate(self.state_keys() if keys is None else keys):
            if k not in seen:
                seen.add(k)
                firsts.append(t)
        return firsts
