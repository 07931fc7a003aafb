"""Instance segmentation and planar depth drawn with Blender's GPU module, in memory, in one draw per object.

Workbench has no id pass, so segmentation used to take a second, flat Workbench render, and depth left
Blender only through the compositor's File Output node: together about 13 ms of a 320x240 frame's 33, almost
all of it fixed per-frame cost of the render pipeline (colour management, compositor, files), not drawing.
This pass draws the same meshes, with the same matrices and on the same rasterizer as Workbench, into an
offscreen float buffer and reads it straight into numpy (about 3 ms at 320x240, docs/performance.md):

- segmentation: each pixel holds the id of the surface nearest the camera at the pixel's centre, exactly as a
  flat render would; 0 where no object is;
- depth: planar camera depth (distance along the viewing axis) interpolated in float32 per pixel, inf where no
  object is. Workbench's depth came from its 24-bit depth buffer; this one does not go through the depth
  buffer, so it is exact to float32 rather than quantized (about 3e-5 m at 5 m from the camera before).

The vertex stage computes `winmat * (viewmat * (model * p))` in that order, as Workbench's does, so a pixel is
covered here exactly when Workbench covers it. The only pixels where the two passes can name different objects
are those where two surfaces are within the old depth buffer's precision of each other (objects resting on each
other), where both answers are true (tests/generator/test_ground_truth.py measures how rare they are).

`draw(rect)` draws and reads only the pixels of one rectangle (a scissor: the same projection and rasterizer, so
each pixel in it gets the value the whole-frame draw gives it) and `skip` leaves objects out: the dirty render
path (generator/blender/dirty.py) draws the static objects once and then, per state, only where the dynamic
objects can be, which at 640x480 costs a fraction of the whole frame (docs/performance.md, issue 29).

Blender allows GPU drawing in background mode only once its GPU is initialised; a render does that, so
`ensure_gpu` renders one tiny Workbench frame when needed.
"""

from __future__ import annotations

from collections.abc import Collection

import bpy
import gpu
import numpy as np
from gpu_extras.batch import batch_for_shader

from voebench.generator.dirty_regions import Rect

VERTEX = """
void main()
{
  vec3 world = (model * vec4(pos, 1.0)).xyz;
  vec4 view = vb.viewmat * vec4(world, 1.0);
  depth = -view.z;
  gl_Position = vb.winmat * view;
}
"""
FRAGMENT = """
void main()
{
  result = vec4(object_id, depth, 0.0, 1.0);
}
"""


def ensure_gpu() -> None:
    """Initialise Blender's GPU for drawing from Python (headless, it is initialised by the first render)."""
    try:
        gpu.types.GPUOffScreen(4, 4).free()
        return
    except SystemError:
        pass
    sc = bpy.context.scene
    r = sc.render
    saved = (r.engine, r.resolution_x, r.resolution_y, r.resolution_percentage, r.use_compositing, sc.camera)
    cam = None
    try:
        r.engine, r.resolution_x, r.resolution_y, r.resolution_percentage = "BLENDER_WORKBENCH", 4, 4, 100
        r.use_compositing = False
        if sc.camera is None:
            cam = bpy.data.objects.new("voebench_gpu_init", bpy.data.cameras.new("voebench_gpu_init"))
            sc.collection.objects.link(cam)
            sc.camera = cam
        from voebench.generator.blender import quiet

        with quiet():
            bpy.ops.render.render()
    finally:
        r.engine, r.resolution_x, r.resolution_y, r.resolution_percentage, r.use_compositing, sc.camera = saved
        if cam is not None:
            data = cam.data
            bpy.data.objects.remove(cam)
            bpy.data.cameras.remove(data)


def _shader() -> gpu.types.GPUShader:
    info = gpu.types.GPUShaderCreateInfo()
    # the view matrices in a uniform block: with the model matrix they would pass the 128 bytes of push
    # constants that every GPU backend guarantees
    info.typedef_source("struct VBView { mat4 viewmat; mat4 winmat; };")
    info.uniform_buf(0, "VBView", "vb")
    info.push_constant("MAT4", "model")
    info.push_constant("FLOAT", "object_id")
    info.vertex_in(0, "VEC3", "pos")
    iface = gpu.types.GPUStageInterfaceInfo("voebench_ground_truth")
    iface.smooth("FLOAT", "depth")  # perspective-correct: exact for a quantity linear in 3D
    info.vertex_out(iface)
    info.fragment_out(0, "VEC4", "result")
    info.vertex_source(VERTEX)
    info.fragment_source(FRAGMENT)
    return gpu.shader.create_from_info(info)


def _column_major(m) -> list[float]:
    return [float(m[r][c]) for c in range(4) for r in range(4)]


class GroundTruthPass:
    """Draw the ids and depth of `objects` (name -> bpy object, name -> id) as the scene camera sees them."""

    def __init__(self, objects: dict, ids: dict[str, int], camera, width: int, height: int):
        ensure_gpu()
        self.objects, self.camera, self.width, self.height = objects, camera, width, height
        self.ids = {name: float(ids[name]) for name in objects}
        if max(self.ids.values(), default=0) >= 1 << 16:
            raise ValueError("segmentation ids must fit in 16 bits")
        self.shader = _shader()
        self.batches = {name: self._batch(ob.data) for name, ob in objects.items()}
        self.offscreen = gpu.types.GPUOffScreen(width, height, format="RGBA32F")
        self.pixels = np.zeros(height * width * 2, np.float32)  # read back: id and depth only
        self._buffer = gpu.types.Buffer("FLOAT", self.pixels.size, self.pixels)  # reads land in self.pixels
        # the camera's intrinsics never change during a video (build.build sets them once), so its projection is
        # computed once, by Blender itself, as the renderer does
        self.winmat = camera.calc_matrix_camera(bpy.context.evaluated_depsgraph_get(), x=width, y=height)
        self.view = gpu.types.GPUUniformBuf(gpu.types.Buffer("FLOAT", 32, [0.0] * 32))  # viewmat, winmat

    def _batch(self, mesh):
        mesh.calc_loop_triangles()
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        tris = np.empty(len(mesh.loop_triangles) * 3, np.int32)
        mesh.loop_triangles.foreach_get("vertices", tris)
        return batch_for_shader(self.shader, "TRIS", {"pos": co.reshape(-1, 3)}, indices=tris.reshape(-1, 3))

    def draw(self, rect: Rect | None = None, skip: Collection[str] = ()) -> tuple[np.ndarray, np.ndarray]:
        """(segmentation uint16, depth float32) of the objects' current poses and visibility, leaving out the
        objects named in `skip`: the whole frame (H, W), or with `rect` only its pixels (h, w), each pixel equal to
        the whole frame's there."""
        rect = Rect(0, 0, self.width, self.height) if rect is None else rect
        x0, w, h = rect.x0, rect.x1 - rect.x0, rect.y1 - rect.y0
        if w <= 0 or h <= 0:
            raise ValueError(f"nothing to draw in {rect}")
        # Blender draws the evaluated objects: a matrix_world set from Python is stored as location, rotation and
        # scale, and evaluation composes them again, which can move the last bits. Evaluating here (cheap: only
        # transforms changed) draws exactly the matrices Workbench draws, before or after a render.
        dg = bpy.context.evaluated_depsgraph_get()
        # Blender's view matrix is the inverse of the camera's world matrix with its scale removed
        viewmat = self.camera.evaluated_get(dg).matrix_world.normalized().inverted()
        self.view.update(gpu.types.Buffer("FLOAT", 32, _column_major(viewmat) + _column_major(self.winmat)))
        y0 = self.height - rect.y1  # GL rows run bottom-up
        whole = w == self.width and h == self.height
        with self.offscreen.bind():
            fb = gpu.state.active_framebuffer_get()
            if not whole:  # the clear and the draw touch only the rectangle; the projection stays the frame's
                gpu.state.scissor_test_set(True)
                gpu.state.scissor_set(x0, y0, w, h)
            fb.clear(color=(0.0, float("inf"), 0.0, 0.0), depth=1.0)
            gpu.state.depth_test_set("LESS_EQUAL")
            gpu.state.depth_mask_set(True)
            gpu.state.face_culling_set("NONE")
            self.shader.bind()
            self.shader.uniform_block("vb", self.view)
            for name, ob in self.objects.items():
                if ob.hide_render or name in skip:
                    continue
                self.shader.uniform_float("model", ob.evaluated_get(dg).matrix_world)
                self.shader.uniform_float("object_id", self.ids[name])
                self.batches[name].draw(self.shader)
            n = w * h * 2
            buffer = self._buffer if whole else gpu.types.Buffer("FLOAT", n, self.pixels[:n])
            fb.read_color(x0, y0, w, h, 2, 0, "FLOAT", data=buffer)
            gpu.state.depth_test_set("NONE")
            gpu.state.depth_mask_set(False)
            if not whole:
                gpu.state.scissor_test_set(False)
        px = self.pixels[:n].reshape(h, w, 2)[::-1]
        return px[..., 0].astype(np.uint16), np.ascontiguousarray(px[..., 1])

    def close(self) -> None:
        """Free every GPU object of the pass now (offscreen, batches, uniform buffer, shader), while the context that
        made them is current, instead of whenever the garbage collector reaches a renderer caught in a reference
        cycle, which can be after the next video's factory reset. The pass draws nothing after it."""
        self.offscreen.free()
        del self.batches, self.view, self._buffer, self.shader
