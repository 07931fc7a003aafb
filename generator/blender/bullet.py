"""Rigid-body simulation of a Scene with Blender's Bullet world (no rendering involved).

Bodies (`SceneObject.body`):
- `passive`: static colliders at their frame-0 pose;
- `kinematic`: colliders that follow their scripted track (pins, moving planks), pushing what they touch;
- `active`: follow their scripted track until `release_frame`, then are released with `velocity` and from
  then on move by physics; their track from `release_frame` on is overwritten with the simulated poses.

The bake is deterministic: the same scene gives bit-identical poses in any process.
"""

from __future__ import annotations

import bpy
import numpy as np

from voebench.generator.blender import build as blender_build, quiet
from voebench.generator.scene import Scene, SceneObject

COLLISION_SHAPES = {
    "sphere": "SPHERE",
    "box": "BOX",
    "cylinder": "CYLINDER",
    "cone": "CONE",
    "torus": "MESH",
    "mesh": "MESH",
    "plane": "BOX",
}


def simulate(scene: Scene, substeps: int = 10, iterations: int = 20) -> None:
    bodies = {n: (o, o.body) for n, o in scene.objects.items() if o.body is not None}
    if not any(b.kind == "active" for _, b in bodies.values()):
        return
    blender_build.reset()
    sc = bpy.context.scene
    fps = int(round(scene.fps))
    sc.render.fps, sc.render.fps_base = fps, fps / scene.fps
    with bpy.context.temp_override(scene=sc):
        bpy.ops.rigidbody.world_add()
    world = sc.rigidbody_world
    world.substeps_per_frame, world.solver_iterations = substeps, iterations
    world.point_cache.frame_start, world.point_cache.frame_end = 1, scene.n_frames
    world.collection = bpy.data.collections.new("rigid_bodies")
    sc.gravity = tuple(scene.gravity)

    obs = {}
    for name, (obj, b) in bodies.items():
        ob = bpy.data.objects.new(name, blender_build._mesh_data(obj))
        sc.collection.objects.link(ob)
        world.collection.objects.link(ob)  # creates ob.rigid_body
        ob.rotation_mode = "QUATERNION"
        rb = ob.rigid_body
        rb.type = "ACTIVE" if b.kind == "active" else "PASSIVE"
        rb.collision_shape = b.collision_shape or COLLISION_SHAPES[obj.shape]
        if obj.shape == "torus" and b.kind == "active":
            rb.collision_shape = "CONVEX_HULL"
        rb.mass, rb.friction, rb.restitution = b.mass, b.friction, b.restitution
        rb.linear_damping, rb.angular_damping = b.linear_damping, b.angular_damping
        if rb.collision_shape in ("MESH", "CONVEX_HULL"):
            rb.use_margin, rb.collision_margin = True, 0.001
        if rb.collision_shape == "CONE":  # Bullet grows a cone by its margin (0.04 by default): it hovered 4 cm
            rb.use_margin, rb.collision_margin = True, 0.001
        if b.margin is not None:
            rb.use_margin, rb.collision_margin = True, b.margin
        blender_build.set_pose(ob, obj, 0)
        if b.kind == "kinematic" or (b.kind == "active" and b.release_frame > 0) or np.any(b.velocity):
            _keyframe_track(ob, obj, scene, b)
        obs[name] = ob

    with quiet(), bpy.context.temp_override(scene=sc):
        bpy.ops.ptcache.bake_all(bake=True)
    for t in range(scene.n_frames):
        sc.frame_set(t + 1)
        for name, ob in obs.items():
            obj, b = bodies[name]
            if b.kind != "active" or t < b.release_frame:
                continue
            m = ob.matrix_world
            obj.position[t] = tuple(m.to_translation())
            q = m.to_quaternion()
            obj.quaternion[t] = (q.w, q.x, q.y, q.z)
    _canonical_quaternions([obj for obj, _ in bodies.values()])


def _keyframe_track(ob, obj, scene, body):
    """Kinematic motion along the scripted track; for active bodies only up to the release, with the last
    pre-release keyframe placed so Bullet hands over exactly `body.velocity` (it derives a released body's
    velocity from its animated motion)."""
    rb = ob.rigid_body
    last = scene.n_frames - 1 if body.kind == "kinematic" else body.release_frame
    for t in range(last + 1):
        pos, quat = obj.position[t], obj.quaternion[t]
        ob.location = tuple(pos)
        ob.rotation_quaternion = tuple(quat)
        if body.kind == "active" and t == last - 1:
            ob.location = tuple(obj.position[last] - np.asarray(body.velocity) / scene.fps)
        ob.keyframe_insert("location", frame=t + 1)
        ob.keyframe_insert("rotation_quaternion", frame=t + 1)
    rb.kinematic = True
    rb.keyframe_insert("kinematic", frame=1)
    if body.kind == "active":
        rb.kinematic = False
        rb.keyframe_insert("kinematic", frame=last + 2)
        rb.kinematic = True
        rb.keyframe_insert("kinematic", frame=last + 1)
    for fc in _fcurves(ob):
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
    rb_fc = [fc for fc in _fcurves(ob) if fc.data_path.endswith("kinematic")]
    for fc in rb_fc:
        for kp in fc.keyframe_points:
            kp.interpolation = "CONSTANT"


def _fcurves(ob):
    ad = ob.animation_data
    if ad is None or ad.action is None:
        return []
    action = ad.action
    if hasattr(action, "fcurves") and len(getattr(action, "fcurves", [])):
        return list(action.fcurves)
    # Blender 4.4+ layered actions
    out = []
    for layer in getattr(action, "layers", []):
        for strip in layer.strips:
            for bag in strip.channelbags:
                out.extend(bag.fcurves)
    return out


def _canonical_quaternions(objects: list[SceneObject]) -> None:
    """Keep w >= 0 and the sign continuous, so equal rotations compare equal frame to frame."""
    for obj in objects:
        q = obj.quaternion
        flip = q[:, 0] < 0
        q[flip] *= -1
