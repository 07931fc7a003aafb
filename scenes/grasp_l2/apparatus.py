"""The front-view GRASP Level 2 apparatus: a plywood box with a dark back panel in front of the room's back
wall, covers/occluders that drop, rise or slide at constant speed, a side "start box" that hides where a
moving object enters, left/right mirroring, the back wall tinted by VISUAL `background`, the wood texture
from VISUAL `wood_seed`. Camera offsets (`common.camera_offsets`) and the ball (`common.add_ball`) are shared.

Coordinates: the shared world frame of `scenes/common.py` (metres, z up, x to the right as seen by the
camera, +y away from the camera toward the back wall), i.e. the Level-1 table-top centre is the origin:

    ours (x, y, z) = Unity (ux - 3.745, uz + 8.630, uy - 10.224)      -> `U(ux, uy, uz)`
    ours sizes (sx, sy, sz) = Unity localScale (sx, sz, sy)            -> `S(sx, sy, sz)`

so numbers from `docs/scene-facts.md` can be typed in as they are. The room floor is at
z = -2.4, the inner face of the back wall (Unity Wall3) at y = 9.0; Level 2 front-view apparatus floats in
front of it at about z = 0.5..3 (there is no table in these scenes).

A scene script builds its apparatus *unmirrored* (the moving object enters from the left), runs physics and
its edit, then calls `finish(scene, p, x0)` which mirrors everything but the room about x = x0 when
`p.mirror` is true. Mirroring is a reflection, so physics stays physics and both conditions are mirrored
alike.

API (additive changes only; other tests import it):
    U, S                              Unity -> ours coordinate / size conversion
    room(scene, p)                    floor, walls; the back wall tinted by p.background
    wood(scene, name, dims, center, p, ...)    a plywood part (texture from p.wood_seed), passive collider
    dark(scene, name, dims, center, ...)       a dark "Pole" panel (back panels), passive collider
    cover(scene, name, dims, center, ...)      a green rusty-metal cover/occluder (no collider by default)
    move_by(obj, delta, speed, start_frame, fps) -> arrival frame   constant-speed mechanism motion
    move_smooth(obj, delta, speed, accel, start_frame, fps) -> arrival frame   same, gentle start/stop
    smooth_profile(distance, speed, accel, n, start_frame, fps) -> (s (n,), arrival frame)
    look(scene, p, eye, target, fov)  the camera at eye + (p.camera.dx, dy, dz)
    finish(scene, p, x0)              mirror (if p.mirror) about x = x0, all but the room (ROOM_OBJECTS)
    hidden_frames(scene, obj, occluder, margin)   (T,) bool: obj cannot be seen, occluded by occluder
    must_hide(scene, occluder, margin, why, keys)  an edit's `hidden` test: hidden over its window, or infeasible
    constants: COVER_SPEED (0.5 m/s), COVER_TINT, FABRIC_TINT, WOOD_TINTS, ROOM_OBJECTS
"""

from __future__ import annotations

import numpy as np

from voebench.generator.geometry import fibonacci_sphere, segments_hit_box
from voebench.generator.kinematics import quat_to_matrix
from voebench.generator.scene import RigidBody, Scene, SceneObject
from voebench.scenes.common import POLE_GREY, TABLE_HEIGHT, room as _room, srgb_to_linear
from voebench.scenes.grasp_l2.timing import need

UNITY_ORIGIN = (3.745, 10.224, -8.630)  # Unity point that maps to our origin (x, y-up, z-depth)
COVER_SPEED = 0.5  # m/s: GRASP covers drop/rise/slide at a constant 0.5 units/s
WALL_BEIGE = (0.59, 0.55, 0.47)  # linear RGB of the beige wall texture before tinting
# Eight wood tints (linear RGB) standing in for GRASP's 8 wood materials (DarkWood, FineGrainedWood, Plywood,
# Wood02, Wood04, WoodPeelingPaint, WoodTableWorn, WoodWall); one per video, chosen by wood_seed.
WOOD_TINTS = (
    (0.20, 0.11, 0.05),
    (0.55, 0.38, 0.22),
    (0.72, 0.56, 0.36),
    (0.45, 0.28, 0.14),
    (0.62, 0.42, 0.25),
    (0.60, 0.58, 0.52),
    (0.35, 0.22, 0.12),
    (0.50, 0.36, 0.24),
)
COVER_TINT = (0.16, 0.26, 0.17)  # GreenMetalRust
FABRIC_TINT = (0.45, 0.40, 0.52)  # FabricPattern3 (Test 5 cube, Test 15 bottom block)


def U(ux: float, uy: float, uz: float) -> np.ndarray:
    """A Unity world point (y up) in our coordinates."""
    return np.array([ux - UNITY_ORIGIN[0], uz - UNITY_ORIGIN[2], uy - UNITY_ORIGIN[1]])


def S(sx: float, sy: float, sz: float) -> np.ndarray:
    """A Unity localScale (x, y-up, z-depth) as our dimensions (x, y-depth, z-up)."""
    return np.array([sx, sz, sy], float)


def background_color(p) -> tuple:
    """The back wall's colour: the beige wall texture tinted by VISUAL background (sRGB 0-1)."""
    b = p.background
    tint = srgb_to_linear([b.r, b.g, b.b])
    return tuple(float(v) for v in tint * np.asarray(WALL_BEIGE) / max(WALL_BEIGE))


def room(scene: Scene, p) -> None:
    """Parquet floor and plaster walls; the back wall (the background of every front view) tinted by
    p.background. The room is never mirrored."""
    _room(scene, floor_z=-TABLE_HEIGHT, walls=("left", "right", "front"), wall_texture_seed=int(p.wood_seed) % 97)
    scene.add(
        "wall_back",
        "box",
        (18.0, 1.0, 10.0),
        (0.0, 9.5, -TABLE_HEIGHT + 5.0),
        role="wall",
        fixture=True,
        color=background_color(p),
        texture={"pattern": "plaster", "seed": int(p.wood_seed) % 89},
    )


def wood_tint(p) -> tuple:
    return WOOD_TINTS[int(p.wood_seed) % len(WOOD_TINTS)]


def _panel(scene: Scene, name: str, dims, center, role: str, color, body, texture=None) -> SceneObject:
    """Every apparatus part is a box that the script moves, if at all, as a mechanism (a fixture)."""
    return scene.add(name, "box", dims, center, role=role, fixture=True, color=color, texture=texture, body=body)


def wood(
    scene: Scene, name: str, dims, center, p, role: str = "apparatus", collider: bool = True, friction: float = 0.5
) -> SceneObject:
    """A plywood part: a box with the video's wood texture (all wood parts share it, as in GRASP)."""
    body = RigidBody("passive", friction=friction) if collider else None
    return _panel(scene, name, dims, center, role, wood_tint(p), body, {"pattern": "wood", "seed": int(p.wood_seed)})


def dark(scene: Scene, name: str, dims, center, role: str = "apparatus", collider: bool = True) -> SceneObject:
    """A dark grey "Pole" panel (back panels, the black barrier)."""
    return _panel(scene, name, dims, center, role, POLE_GREY, RigidBody("passive") if collider else None)


def cover(
    scene: Scene, name: str, dims, center, role: str = "occluder", body: RigidBody | None = None, seed: int = 5
) -> SceneObject:
    """A green rusty-metal cover/occluder (GRASP's GreenMetalRust). No collider unless `body` is given
    (e.g. RigidBody("kinematic") for a cover that things rest on)."""
    return _panel(scene, name, dims, center, role, COVER_TINT, body, {"pattern": "rust", "seed": seed})


def move_by(obj: SceneObject, delta, speed: float, start_frame: int, fps: float) -> int:
    """Mechanism motion: from its pose at `start_frame`, move by `delta` (m) at constant `speed` (m/s), then
    hold. Frames before `start_frame` are kept, so moves chain (rise, then drop). Returns the arrival frame."""
    delta = np.asarray(delta, float)
    length = float(np.linalg.norm(delta))
    T = obj.n_frames
    start_frame = int(np.clip(start_frame, 0, T - 1))
    p0 = obj.position[start_frame].copy()
    t = (np.arange(start_frame, T) - start_frame) / fps
    frac = np.clip(t * speed / length, 0.0, 1.0) if length > 0 else np.ones(len(t))
    obj.position[start_frame:] = p0 + frac[:, None] * delta
    obj.quaternion[start_frame:] = obj.quaternion[start_frame]
    return int(start_frame + np.ceil(length / speed * fps - 1e-9)) if length > 0 else start_frame


def look(scene: Scene, p, eye, target, fov: float | None = None) -> None:
    """The camera at `eye` + (p.camera.dx, dy, dz), looking at `target` (our coordinates)."""
    c = p.camera
    offset = np.array([c.dx, c.dy, c.dz], float)
    scene.look(np.asarray(eye, float) + offset, np.asarray(target, float), fov_deg=float(c.fov if fov is None else fov))


ROOM_OBJECTS = ("floor", "wall_left", "wall_right", "wall_front", "wall_back")  # what room() adds


def finish(scene: Scene, p, x0: float) -> None:
    """Mirror everything except the room (the objects named in ROOM_OBJECTS) about the plane x = x0 when
    p.mirror is true. Call last in build(), after simulation and the violation edit."""
    if not p.mirror:
        return
    for name, o in scene.objects.items():
        if name in ROOM_OBJECTS:
            continue
        o.position[:, 0] = 2 * x0 - o.position[:, 0]
        # reflection M = diag(-1, 1, 1): M R M for rotation quaternion (w, x, y, z) is (w, x, -y, -z)
        o.quaternion[:, 2:] *= -1
    cam = scene.cam
    cam.position[:, 0] = 2 * x0 - cam.position[:, 0]
    cam.look_at[:, 0] = 2 * x0 - cam.look_at[:, 0]


_SPHERE_PTS = fibonacci_sphere(160)
# the convex hull of _SPHERE_PTS * R contains the sphere of radius R * _SPHERE_INRADIUS (checked numerically)
_SPHERE_INRADIUS = 0.97


def _hull_points(obj: SceneObject, t: int, margin: float) -> np.ndarray:
    """Points whose convex hull contains the object grown by `margin`: a circumscribed point sphere for
    spheres, the 8 bounding-box corners otherwise."""
    if obj.shape == "sphere" and np.allclose(obj.dimensions, obj.dimensions[0]):
        return obj.position[t] + _SPHERE_PTS * ((obj.dimensions[0] / 2 + margin) / _SPHERE_INRADIUS)
    half = obj.dimensions / 2 + margin
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return obj.position[t] + (signs * half) @ quat_to_matrix(obj.quaternion[t]).T


def _segments_hit_box(eye, points, box: SceneObject, t: int) -> bool:
    """Whether every segment eye->point (points (N,3)) passes through the oriented box `box` at frame t."""
    hits = segments_hit_box(eye, points, box.position[t], quat_to_matrix(box.quaternion[t]), box.dimensions / 2)
    return bool(hits.all())


def hidden_frames(scene: Scene, obj: str, occluder: str | list, margin: float = 0.02) -> np.ndarray:
    """(T,) bool: at frame t the object `obj` (grown by `margin` m) lies entirely in the shadow, seen from
    the camera, of one convex box `occluder` (or of any one box of a list), or does not exist (visible
    False). The shadow of a convex box is convex, so testing points whose convex hull contains the object
    suffices (bounding-box corners; a dense circumscribed point sphere for balls). Use it to place hidden
    edits inside the window where the object cannot be seen."""
    o = scene[obj]
    occs = [occluder] if isinstance(occluder, str) else list(occluder)
    out = np.zeros(scene.n_frames, bool)
    for t in range(scene.n_frames):
        if not o.visible[t]:
            out[t] = True
            continue
        eye = scene.cam.position[t]
        pts = _hull_points(o, t, margin)
        out[t] = any(scene[c].visible[t] and _segments_hit_box(eye, pts, scene[c], t) for c in occs)
    return out


def must_hide(scene: Scene, occluder: str, margin: float, why: str, keys, obj: str = "ball"):
    """A `hidden` test for `generator.edits`: `occluder` hides `obj` (by `margin`, see hidden_frames) over the
    edit's whole window, checked on the edited tracks. A Level 2 violation must not be seen happening, so a
    trial where it would be is infeasible: raises Infeasible(why, keys) (the keys that move the view or the
    object)."""

    def test(first: int, last: int) -> bool:
        need(bool(hidden_frames(scene, obj, occluder, margin=margin)[first : last + 1].all()), why, keys)
        return True

    return test


def smooth_profile(distance: float, speed: float, accel: float, n: int, start_frame: int, fps: float):
    """Distance covered per frame (n,) by a mechanism that starts at rest at `start_frame`, accelerates at
    `accel` (m/s^2) to `speed` (m/s), cruises and brakes at `accel` to stop after `distance` (m); and the
    arrival frame. A pin moved like this keeps a pushed object in contact while braking whenever `accel`
    is below the object's friction deceleration."""
    t_acc = speed / accel
    if speed * t_acc > distance:  # triangular profile: never reaches `speed`
        t_acc = np.sqrt(distance / accel)
        speed = accel * t_acc
    t_cruise = (distance - speed * t_acc) / speed
    total = 2 * t_acc + t_cruise
    t = np.clip((np.arange(n) - start_frame) / fps, 0.0, total)
    s = np.where(
        t < t_acc,
        0.5 * accel * t**2,
        np.where(
            t < t_acc + t_cruise,
            0.5 * speed * t_acc + speed * (t - t_acc),
            distance - 0.5 * accel * np.maximum(total - t, 0.0) ** 2,
        ),
    )
    return s, int(np.ceil(start_frame + total * fps - 1e-9))


def move_smooth(obj: SceneObject, delta, speed: float, accel: float, start_frame: int, fps: float) -> int:
    """Like move_by, with the smooth_profile (gentle start and stop). Returns the arrival frame."""
    delta = np.asarray(delta, float)
    length = float(np.linalg.norm(delta))
    start_frame = int(np.clip(start_frame, 0, obj.n_frames - 1))
    if length == 0:
        return start_frame
    s, arrive = smooth_profile(length, speed, accel, obj.n_frames, start_frame, fps)
    p0 = obj.position[start_frame].copy()
    obj.position[start_frame:] = p0 + (s[start_frame:] / length)[:, None] * delta
    obj.quaternion[start_frame:] = obj.quaternion[start_frame]
    return arrive
