"""Turn a `Scene` into Blender objects. Meshes carry their dimensions in their vertices (object scale 1),
so an object's `matrix_world` is exactly its pose from the timeline."""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from voebench.generator.geometry import MESH_SEGMENTS as SEGMENTS  # one count for Blender, Bullet and the audit
from voebench.generator.geometry import quat_to_matrix
from voebench.generator.scene import Scene, SceneObject
from voebench.generator.textures import make_texture


def reset() -> None:
    """Empty the Blender file and restore every default; cheap (~80 ms) and leak-free (see docs/bpy-notes.md)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _mesh_data(obj: SceneObject) -> bpy.types.Mesh:
    bm = bmesh.new()
    bm.loops.layers.uv.new()  # the create ops fill UVs only if a layer exists
    d = obj.dimensions
    scale: np.ndarray | tuple[float, float, float]
    if obj.shape == "box":
        bmesh.ops.create_cube(bm, size=1.0, calc_uvs=True)
        scale = d
    elif obj.shape == "sphere":
        bmesh.ops.create_uvsphere(bm, u_segments=SEGMENTS, v_segments=SEGMENTS // 2, radius=0.5, calc_uvs=True)
        scale = d
    elif obj.shape in ("cylinder", "cone"):
        top = 0.5 if obj.shape == "cylinder" else 0.0
        bmesh.ops.create_cone(bm, cap_ends=True, segments=SEGMENTS, radius1=0.5, radius2=top, depth=1.0, calc_uvs=True)
        scale = d
    elif obj.shape == "plane":
        bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=0.5, calc_uvs=True)
        scale = (d[0], d[1], 1.0)
    elif obj.shape == "torus":
        _torus(bm, obj)
        scale = (1.0, 1.0, 1.0)
    elif obj.shape == "mesh":
        if obj.mesh is None:
            raise ValueError(f"{obj.name}: a mesh object without its vertices and faces")
        verts, faces = obj.mesh
        vs = [bm.verts.new(v) for v in np.asarray(verts, float)]
        for f in faces:
            bm.faces.new([vs[i] for i in f])
        _planar_uvs(bm)
        scale = (1.0, 1.0, 1.0)
    else:
        raise ValueError(obj.shape)
    bmesh.ops.scale(bm, vec=tuple(float(s) for s in scale), verts=bm.verts)
    mesh = bpy.data.meshes.new(obj.name)
    bm.to_mesh(mesh)
    bm.free()
    for poly in mesh.polygons:
        poly.use_smooth = obj.shape in ("sphere", "torus", "cylinder", "cone")
    return mesh


def _torus(bm, obj):
    """A torus lying in the xy plane; dimensions = (2(R+r), 2(R+r), 2r)."""
    r = obj.dimensions[2] / 2.0
    R = obj.dimensions[0] / 2.0 - r
    n_major, n_minor = SEGMENTS, SEGMENTS // 2
    grid = []
    for i in range(n_major):
        u = 2 * np.pi * i / n_major
        row = []
        for j in range(n_minor):
            v = 2 * np.pi * j / n_minor
            row.append(bm.verts.new(((R + r * np.cos(v)) * np.cos(u), (R + r * np.cos(v)) * np.sin(u), r * np.sin(v))))
        grid.append(row)
    for i in range(n_major):
        for j in range(n_minor):
            bm.faces.new(
                [
                    grid[i][j],
                    grid[(i + 1) % n_major][j],
                    grid[(i + 1) % n_major][(j + 1) % n_minor],
                    grid[i][(j + 1) % n_minor],
                ]
            )
    _planar_uvs(bm)


def _planar_uvs(bm):
    uv = bm.loops.layers.uv.active
    co = np.array([v.co[:] for v in bm.verts]) if bm.verts else np.zeros((1, 3))
    lo, span = co.min(0), np.maximum(np.ptp(co, 0), 1e-9)
    for face in bm.faces:
        for loop in face.loops:
            p = (np.array(loop.vert.co[:]) - lo) / span
            loop[uv].uv = (p[0] + p[2], p[1] + p[2])


def _material(obj: SceneObject, texture_size: int) -> bpy.types.Material:
    mat = bpy.data.materials.new(obj.name)
    color = (*map(float, obj.color[0]), 1.0)
    mat.diffuse_color = color  # what Workbench shows
    mat.roughness = 0.4
    nt = mat.node_tree if mat.node_tree is not None else None
    if nt is None:
        mat.use_nodes = True  # deprecated in 5.0 but still needed on a fresh material in some builds
        nt = mat.node_tree
    bsdf = next(n for n in nt.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = color
    if obj.texture:
        img_arr = make_texture(obj.texture["pattern"], int(obj.texture.get("seed", 0)), obj.color[0], texture_size)
        img = bpy.data.images.new(f"{obj.name}_tex", texture_size, texture_size, float_buffer=True)
        img.colorspace_settings.name = "Linear Rec.709"
        rgba = np.concatenate([img_arr, np.ones(img_arr.shape[:2] + (1,), np.float32)], axis=-1)
        img.pixels.foreach_set(rgba.ravel())
        img.pack()
        tex = nt.nodes.new("ShaderNodeTexImage")
        tex.image = img
        tex.interpolation = "Closest"
        nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        nt.nodes.active = tex  # Workbench's TEXTURE colour mode shows the *active* image node
    return mat


def build(scene: Scene, texture_size: int = 256) -> dict[str, bpy.types.Object]:
    """Create every object (at its frame-0 state), the camera and the lights. Returns name -> bpy object."""
    bscene = bpy.context.scene
    made = {}
    for obj in scene.objects.values():
        ob = bpy.data.objects.new(obj.name, _mesh_data(obj))
        ob.data.materials.append(_material(obj, texture_size))
        bscene.collection.objects.link(ob)
        made[obj.name] = ob
        set_pose(ob, obj, 0)
    cam_data = bpy.data.cameras.new("camera")
    cam_data.sensor_fit = "VERTICAL"
    cam_data.angle_y = float(np.radians(scene.cam.fov_deg))
    cam_data.clip_start, cam_data.clip_end = 0.05, 1000.0
    cam = bpy.data.objects.new("camera", cam_data)
    bscene.collection.objects.link(cam)
    bscene.camera = cam
    set_camera(cam, scene, 0)
    for i, light in enumerate(scene.lights):
        data = bpy.data.lights.new(f"sun{i}", "SUN")
        data.energy = light.strength
        data.color = light.color
        lo = bpy.data.objects.new(f"sun{i}", data)
        d = -np.asarray(light.direction, float)
        lo.rotation_mode = "QUATERNION"
        lo.rotation_quaternion = _quat_z_to(d / np.linalg.norm(d))
        bscene.collection.objects.link(lo)
    world = bpy.data.worlds.new("world")
    world.color = scene.background
    bscene.world = world
    return made


def _quat_z_to(v):
    """Quaternion rotating +z onto unit vector v (a sun shines along its local -z)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, v)
    s = np.linalg.norm(axis)
    if s < 1e-9:
        return (1.0, 0.0, 0.0, 0.0) if v[2] > 0 else (0.0, 1.0, 0.0, 0.0)
    angle = np.arctan2(s, float(np.dot(z, v)))
    axis /= s
    return (float(np.cos(angle / 2)), *map(float, np.sin(angle / 2) * axis))


def set_pose(ob, obj: SceneObject, t: int) -> None:
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(obj.quaternion[t])
    m[:3, 3] = obj.position[t]
    ob.matrix_world = _to_matrix(m)


def _to_matrix(m):
    from mathutils import Matrix

    return Matrix([list(map(float, row)) for row in m])


def set_camera(cam, scene: Scene, t: int) -> None:
    cv = scene.cam.cam_to_world(t)
    # Blender cameras look down their local -z with +y up; OpenCV looks down +z with +y down.
    cam.matrix_world = _to_matrix(cv @ np.diag([1.0, -1.0, -1.0, 1.0]))
