"""Render a Scene's timeline with Blender: RGB, planar depth and exact instance segmentation.

Each *distinct* frame state is rendered once (`Scene.state_keys`); frames whose poses, colours, visibility
and camera equal an earlier frame's reuse its pixels, which is exact because rendering is a deterministic
function of that state. Pixels travel through uncompressed BMP/EXR files in a RAM-backed folder, the fastest
route out of Blender in background mode (bpy 5.0 has no in-memory render result; see docs/bpy-notes.md).

Four things keep a distinct frame cheap (docs/performance.md):
- Batched render calls: the distinct states still to render are laid on consecutive timeline frames and drawn
  by one `render(animation=True)` (the RGB pass) for up to `RenderSettings.batch`
  states. A `frame_change_pre` handler sets each frame's state with the same `apply` a single render uses, and
  checks that it ran once for every frame, so what is rendered is exactly what is written.
- Anti-aliasing outside Blender: Workbench renders aliased and `voebench.generator.antialias.fxaa` smooths the
  RGB frame in numpy (`RenderSettings.antialias="numpy"`). Depth and segmentation stay aliased and exact.
- Frames shared between the videos of a trial: `Renderer(scene, settings, cache=FrameCache())`, the same cache
  for every video of the trial in one process, takes states already rendered for another video from the cache
  (`voebench.generator.frame_cache`).
- Segmentation and depth drawn in memory with Blender's GPU module (`ground_truth.GroundTruthPass`), instead of a
  second, flat Workbench render and the compositor's depth file (`RenderSettings.ground_truth="gpu"`).
`RenderSettings(antialias="blender", batch=0, ground_truth="workbench")` is the previous path (Blender's FXAA, one
render() per state, Workbench segmentation and compositor depth), kept for the benchmark's comparison.
"""

from __future__ import annotations

import glob
import os
import struct
import tempfile
from dataclasses import dataclass

import bpy
import numpy as np

from voebench.generator.antialias import fxaa
from voebench.generator.blender import build as blender_build, dirty, quiet
from voebench.generator.blender.ground_truth import GroundTruthPass
from voebench.generator.frame_cache import FrameCache, scene_fingerprint
from voebench.generator.scene import Scene

ENGINES = ("workbench", "cycles", "eevee")
ANTIALIAS = ("numpy", "blender")
GROUND_TRUTH = ("gpu", "workbench")
RENDER_PATHS = ("full", "dirty")
# Most bytes one batch may leave in the temporary folder at once (a BMP per state; on the previous ground-truth path
# also its depth EXR, then the segmentation BMPs); never more than half of the folder's free space either (/dev/shm
# in a container is often 64 MB). At 960x540 a state's BMP takes about 2 MB (4 MB with the EXR), and each render
# call costs about 80 ms there: 128 MB is 64 states (31 on the previous path).
BATCH_BYTES = 128 << 20
DEPTH_COLOR_MODE, DEPTH_CHANNEL = "BW", "V"  # how the depth EXR is written and which channel holds depth


@dataclass
class RenderSettings:
    width: int = 320
    height: int = 240
    engine: str = "workbench"
    samples: int = 32  # cycles / eevee
    device: str = "cpu"  # cycles: cpu | cuda | optix | hip | metal
    texture_size: int = 256
    antialias: str = "numpy"  # workbench: "numpy" (aliased render + antialias.fxaa) | "blender" (its FXAA)
    batch: int = 64  # distinct states per render(animation=True) call; 0: one render() call per state
    # segmentation and depth: "gpu" (GroundTruthPass, in memory) | "workbench" (a flat Workbench render for the
    # ids and the compositor's EXR for depth, the previous path)
    ground_truth: str = "gpu"
    # RGB: "full" (every distinct state drawn whole) | "dirty" (a cached background of the static objects plus the
    # rectangle that can change, drawn through a narrowed camera: generator/blender/dirty.py, its tolerance there)
    render_path: str = "full"


@dataclass
class Frame:
    """One output frame. When `rendered` is False it repeats distinct frame `unique`, rendered earlier, and
    `depth`/`segmentation` are None (the writer stores them once per distinct frame). `shared` is True when a
    new distinct frame's pixels came from the `FrameCache` (rendered for another video of the trial)."""

    index: int
    unique: int
    rgb: np.ndarray
    depth: np.ndarray | None
    segmentation: np.ndarray | None
    rendered: bool
    shared: bool = False


def read_bmp(path: str) -> np.ndarray:
    """Blender's BMP (BGR[A], bottom-up, rows padded to 4 bytes) as a top-down RGB[A] uint8 array."""
    with open(path, "rb") as f:
        b = f.read()
    off = int.from_bytes(b[10:14], "little")
    w = int.from_bytes(b[18:22], "little", signed=True)
    h = int.from_bytes(b[22:26], "little", signed=True)
    c = int.from_bytes(b[28:30], "little") // 8
    stride = (w * c + 3) & ~3
    a = np.frombuffer(b, np.uint8, count=stride * abs(h), offset=off).reshape(abs(h), stride)[:, : w * c]
    a = a.reshape(abs(h), w, c)[..., [2, 1, 0]]
    return a[::-1] if h > 0 else a


def read_exr_channel(path: str, channel: str = "R") -> np.ndarray:
    """One channel of an uncompressed, scanline, 32-bit float OpenEXR file (what the depth File Output node
    writes) as a top-down float32 array, parsed with numpy. Raises ValueError for any other layout."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"\x76\x2f\x31\x01":
        raise ValueError("not an OpenEXR file")
    pos, attrs = 8, {}
    while b[pos] != 0:  # header: name\0 type\0 size value ... \0
        end = b.index(b"\0", pos)
        name = b[pos:end]
        pos = b.index(b"\0", end + 1) + 1
        (n,) = struct.unpack_from("<i", b, pos)
        attrs[name] = b[pos + 4 : pos + 4 + n]
        pos += 4 + n
    pos += 1
    chans, cpos, cl = [], 0, attrs.get(b"channels", b"\0")
    while cl[cpos] != 0:  # chlist: name\0 pixel_type(i32) pLinear(u8)+3 reserved xSampling(i32) ySampling(i32)
        end = cl.index(b"\0", cpos)
        ptype, _, xs, ys = struct.unpack_from("<iIii", cl, end + 1)
        chans.append((cl[cpos:end].decode(), ptype, xs, ys))
        cpos = end + 17
    names = [c[0] for c in chans]
    if (
        attrs.get(b"compression") != b"\0"
        or b"tiles" in attrs
        or channel not in names
        or any(c[1:] != (2, 1, 1) for c in chans)
    ):
        raise ValueError("not an uncompressed float scanline EXR with that channel")
    x0, y0, x1, y1 = struct.unpack("<4i", attrs[b"dataWindow"])
    w, h = x1 - x0 + 1, y1 - y0 + 1
    offsets = np.frombuffer(b, "<u8", h, pos)
    row = np.dtype([("y", "<i4"), ("n", "<i4"), ("px", "<f4", (len(chans), w))])  # one scanline per chunk
    if not np.array_equal(offsets, offsets[0] + np.uint64(row.itemsize) * np.arange(h, dtype=np.uint64)):
        raise ValueError("unexpected EXR chunk layout")
    rows = np.frombuffer(b, row, h, int(offsets[0]))
    if not (rows["n"] == row.itemsize - 8).all():
        raise ValueError("unexpected EXR chunk size")
    img = rows["px"][:, names.index(channel), :]
    order = np.argsort(rows["y"], kind="stable")  # increasing y is top to bottom
    return np.ascontiguousarray(img[order])


def id_to_rgb(i: int) -> tuple[float, float, float]:
    """Segmentation colour of object id i under the 'Raw' view transform: the id's low and high byte."""
    return ((i & 255) / 255.0, ((i >> 8) & 255) / 255.0, 0.0)


class Renderer:
    """Build the scene once, then render frames of its timeline."""

    def __init__(
        self, scene: Scene, settings: RenderSettings, workdir: str | None = None, cache: FrameCache | None = None
    ):
        if settings.engine not in ENGINES:
            raise ValueError(f"unknown engine {settings.engine!r}; one of {ENGINES}")
        if settings.antialias not in ANTIALIAS:
            raise ValueError(f"unknown antialias {settings.antialias!r}; one of {ANTIALIAS}")
        if settings.ground_truth not in GROUND_TRUTH:
            raise ValueError(f"unknown ground_truth {settings.ground_truth!r}; one of {GROUND_TRUTH}")
        if settings.render_path not in RENDER_PATHS:
            raise ValueError(f"unknown render_path {settings.render_path!r}; one of {RENDER_PATHS}")
        if settings.render_path == "dirty":
            dirty.check_settings(settings)
        self.scene, self.settings, self.cache = scene, settings, cache
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self._tmp = tempfile.TemporaryDirectory(prefix="voebench-", dir=workdir or shm)
        self.tmp = self._tmp.name
        blender_build.reset()
        self.bscene = bpy.context.scene
        self.obs = blender_build.build(scene, settings.texture_size)
        self.cam = self.bscene.camera
        self._configure()
        self._state: dict[str, tuple] = {}  # what is currently set on each bpy object, to skip redundant updates
        self._truth: GroundTruthPass | None = None  # made on first use (it needs an initialised GPU)
        self.dirty: dirty.DirtyRGB | None = dirty.DirtyRGB(self) if settings.render_path == "dirty" else None
        self.dirty_truth: dirty.DirtyTruth | None = None  # made with the GPU pass on the dirty path

    def close(self):
        if self._truth is not None:
            self._truth.close()  # its GPU objects freed now, not by a later garbage collection
            self._truth, self.dirty_truth = None, None
        self._tmp.cleanup()

    @property
    def _workbench_truth(self) -> bool:
        return self.settings.ground_truth == "workbench"

    def _draw_truth(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(segmentation, depth) of state t, which must be the one applied, from the GPU pass (on the dirty path
        drawn only where dynamic objects can be, over the static objects' drawn once: dirty.DirtyTruth)."""
        if self._truth is None:
            s = self.settings
            ids = {name: self.scene.objects[name].id for name in self.obs}
            self._truth = GroundTruthPass(self.obs, ids, self.cam, s.width, s.height)
            if self.dirty is not None:
                self.dirty_truth = dirty.DirtyTruth(self._truth, self.dirty.regions)
        if self.dirty_truth is not None:
            return self.dirty_truth.draw(t)
        return self._truth.draw()

    # ------------------------------------------------------------------ setup

    def _configure(self):
        s, sc = self.settings, self.bscene
        r = sc.render
        r.resolution_x, r.resolution_y, r.resolution_percentage = s.width, s.height, 100
        r.pixel_aspect_x = r.pixel_aspect_y = 1.0
        r.dither_intensity = 0.0
        r.image_settings.media_type = "IMAGE"
        r.image_settings.file_format = "BMP"
        sc.view_settings.view_transform = "Standard"
        sc.view_settings.look = "None"
        if not self._workbench_truth:
            return self._configure_engine()
        # The segmentation pass is a second, flat Workbench render (exact ids: no AA, no shading).
        for ob in self.obs.values():
            ob.color = (*id_to_rgb(self.scene.objects[ob.name].id), 1.0)
        sh = sc.display.shading
        sh.show_object_outline = False
        sh.show_cavity = False
        # Depth leaves Blender only through the compositor's File Output node (an EXR per render).
        sc.view_layers[0].use_pass_z = True
        ng = bpy.data.node_groups.new("voebench_depth", "CompositorNodeTree")
        sc.compositing_node_group = ng
        rl = ng.nodes.new("CompositorNodeRLayers")
        fo = ng.nodes.new("CompositorNodeOutputFile")
        fo.file_output_items.new("FLOAT", "depth")
        fo.directory = self.tmp + "/"
        fo.file_name = "z_"
        fo.format.media_type = "IMAGE"
        fo.format.file_format = "OPEN_EXR"
        fo.format.color_depth = "32"
        fo.format.exr_codec = "NONE"
        # one channel ("V") instead of RGBA: a quarter of the bytes to write, read and hold in /dev/shm, and the
        # same floats (tests/generator/test_render_batch.py compares it with the R channel of an RGBA EXR)
        fo.format.color_mode = DEPTH_COLOR_MODE
        ng.links.new(rl.outputs["Depth"], fo.inputs["depth"])
        self._configure_engine()

    def _configure_engine(self):
        s, sc = self.settings, self.bscene
        if s.engine == "cycles":
            sc.cycles.samples = s.samples
            sc.cycles.seed = 0  # fixed noise pattern: the same state renders to the same pixels
            sc.cycles.use_denoising = False
            if s.device != "cpu":
                prefs = bpy.context.preferences.addons["cycles"].preferences
                prefs.compute_device_type = s.device.upper()
                prefs.get_devices()
                for d in prefs.devices:
                    d.use = d.type != "CPU"
                sc.cycles.device = "GPU"
        elif s.engine == "eevee":
            sc.eevee.taa_render_samples = s.samples

    def _rgb_mode(self):
        sc, s = self.bscene, self.settings
        sc.render.engine = {"workbench": "BLENDER_WORKBENCH", "cycles": "CYCLES", "eevee": "BLENDER_EEVEE"}[s.engine]
        sc.render.film_transparent = False
        sc.render.use_compositing = self._workbench_truth  # the compositor only writes the depth file
        sc.view_settings.view_transform = "Standard"
        sc.world.color = self.scene.background
        if s.engine == "workbench":
            sh = sc.display.shading
            sh.light, sh.color_type = "STUDIO", "TEXTURE"
            sh.show_shadows, sh.show_specular_highlight = True, True
            sc.display.render_aa = "FXAA" if s.antialias == "blender" else "OFF"

    def _seg_mode(self):
        sc = self.bscene
        sc.render.engine = "BLENDER_WORKBENCH"
        sc.render.use_compositing = False
        sc.view_settings.view_transform = "Raw"
        sc.world.color = (0.0, 0.0, 0.0)  # background decodes to id 0
        sh = sc.display.shading
        sh.light, sh.color_type = "FLAT", "OBJECT"
        sh.show_shadows, sh.show_specular_highlight = False, False
        sc.display.render_aa = "OFF"

    # ------------------------------------------------------------------ frames

    def apply(self, t: int) -> None:
        """Set every object, colour and the camera to the timeline's state at frame t."""
        for name, obj in self.scene.objects.items():
            ob = self.obs[name]
            pose = (obj.position[t].tobytes(), obj.quaternion[t].tobytes())
            last = self._state.get(name, (None, None, None))
            if pose != last[0]:
                blender_build.set_pose(ob, obj, t)
            color = obj.color[t].tobytes()
            if color != last[1]:
                c = (*map(float, obj.color[t]), 1.0)
                mat = ob.data.materials[0]
                mat.diffuse_color = c
                bsdf = mat.node_tree.nodes.get("Principled BSDF")
                if bsdf is not None and not obj.texture:
                    bsdf.inputs["Base Color"].default_value = c
            vis = bool(obj.visible[t])
            if vis != last[2]:
                ob.hide_render = not vis
            self._state[name] = (pose, color, vis)
        blender_build.set_camera(self.cam, self.scene, t)

    def render_state(self, t: int, passes=("rgb", "depth", "segmentation")):
        """Render frame t's state: (rgb uint8 HxWx3, depth float32 HxW or None, segmentation uint16 or None)."""
        self.apply(t)
        rgb = depth = seg = None
        workbench = self._workbench_truth
        if "rgb" in passes and self.dirty is not None:
            rgb = self.dirty.frame(t)
        elif "rgb" in passes or (workbench and "depth" in passes):  # the compositor writes depth beside the RGB
            for old in glob.glob(os.path.join(self.tmp, "z_*")) if workbench else ():
                os.remove(old)
            rgb = self._render_rgb(os.path.join(self.tmp, "rgb.bmp"))
            if workbench and "depth" in passes:
                (zpath,) = glob.glob(os.path.join(self.tmp, "z_*.exr"))
                depth = self._read_depth(zpath)
        if not workbench and ("depth" in passes or "segmentation" in passes):
            seg, depth = self._draw_truth(t)
        elif workbench and "segmentation" in passes:
            self._seg_mode()
            path = os.path.join(self.tmp, "seg.bmp")
            with quiet():
                bpy.ops.render.render()
                bpy.data.images["Render Result"].save_render(path)
            seg = _decode_segmentation(read_bmp(path))
        return (
            rgb if "rgb" in passes else None,
            depth if "depth" in passes else None,
            seg if "segmentation" in passes else None,
        )

    def _render_rgb(self, path: str) -> np.ndarray:
        self._rgb_mode()
        with quiet():
            bpy.ops.render.render()
            bpy.data.images["Render Result"].save_render(path)
        return self._finish_rgb(read_bmp(path))

    def _finish_rgb(self, px: np.ndarray) -> np.ndarray:
        rgb = px[..., :3]
        if self.settings.engine == "workbench" and self.settings.antialias == "numpy":
            return fxaa(np.ascontiguousarray(rgb))
        return rgb.copy()

    def render_batch(self, ts: list[int], passes=("rgb", "depth", "segmentation")) -> dict:
        """Render the states of frames `ts` (distinct ones, in any order): {t: (rgb, depth, segmentation)}.
        One render(animation=True) call per pass; with `settings.batch == 0`, one render() call per state."""
        if not self.settings.batch:
            return {t: self.render_state(t, passes) for t in ts}
        out: dict[int, list[np.ndarray | None]] = {t: [None, None, None] for t in ts}
        workbench = self._workbench_truth
        if "rgb" in passes and self.dirty is not None:  # narrowed renders of what changed (dirty.py)
            for t, rgb in self.dirty.frames(ts).items():
                out[t][0] = rgb
        elif "rgb" in passes or (workbench and "depth" in passes):  # the compositor writes depth beside the RGB
            self._rgb_mode()
            self._animate(ts, "rgb_")
            for i, t in enumerate(ts, 1):
                path = os.path.join(self.tmp, f"rgb_{i:04d}.bmp")
                out[t][0] = self._finish_rgb(read_bmp(path)) if "rgb" in passes else None
                os.remove(path)
                if workbench:
                    zpath = os.path.join(self.tmp, f"z_depth{i:04d}.exr")
                    if "depth" in passes:
                        out[t][1] = self._read_depth(zpath)
                    os.remove(zpath)
        if not workbench and ("depth" in passes or "segmentation" in passes):
            for t in ts:
                self.apply(t)
                seg, depth = self._draw_truth(t)
                out[t][1] = depth if "depth" in passes else None
                out[t][2] = seg if "segmentation" in passes else None
        elif workbench and "segmentation" in passes:
            self._seg_mode()
            self._animate(ts, "seg_")
            for i, t in enumerate(ts, 1):
                path = os.path.join(self.tmp, f"seg_{i:04d}.bmp")
                out[t][2] = _decode_segmentation(read_bmp(path))
                os.remove(path)
        return {t: tuple(v) for t, v in out.items()}

    def _batch_states(self) -> int:
        """States per render call: settings.batch, fewer where their files would take more than BATCH_BYTES
        (or half the free space) of the temporary folder."""
        s = self.settings
        exr = 4 if self._workbench_truth else 0  # the previous path's one-channel float depth EXR
        per_state = s.width * s.height * (4 + exr) + 4096  # 32-bit BMP (+ EXR), + headers
        st = os.statvfs(self.tmp)
        budget = min(BATCH_BYTES, st.f_bavail * st.f_frsize // 2)
        return max(1, min(s.batch, budget // per_state))

    def _animate(self, ts: list[int], prefix: str) -> None:
        """One render(animation=True) over timeline frames 1..len(ts), frame i showing the state of ts[i-1]."""
        sc = self.bscene
        for old in glob.glob(os.path.join(self.tmp, "z_*")):
            os.remove(old)
        sc.frame_start, sc.frame_end, sc.frame_step = 1, len(ts), 1
        sc.render.filepath = os.path.join(self.tmp, prefix)
        applied, errors = [], []

        def set_state(scene, *_):
            f = scene.frame_current
            if 1 <= f <= len(ts):
                try:
                    self.apply(ts[f - 1])
                    applied.append(f)
                except Exception as e:  # noqa: BLE001 (Blender would print it, render the stale state: re-raised below)
                    errors.append(e)

        handlers = bpy.app.handlers.frame_change_pre
        handlers.append(set_state)
        try:
            with quiet():
                bpy.ops.render.render(animation=True)
        finally:
            handlers.remove(set_state)
        if errors:
            raise errors[0]
        # the handler must have set every frame's state before that frame was drawn, each exactly once
        # (Blender may also call it when it restores the current frame afterwards)
        if applied[: len(ts)] != list(range(1, len(ts) + 1)):
            raise RuntimeError(f"frame handler ran for frames {applied}, expected 1..{len(ts)}")

    def _read_depth(self, path: str) -> np.ndarray:
        try:
            z = read_exr_channel(path, DEPTH_CHANNEL)  # ~0.5 ms; bpy's image loader takes 3.5-4.7 ms
        except ValueError:  # a layout the small reader does not handle: let Blender decode it
            img = bpy.data.images.load(path)
            try:
                a = np.empty(img.size[0] * img.size[1] * img.channels, np.float32)
                img.pixels.foreach_get(a)
            finally:
                bpy.data.images.remove(img)
            z = a.reshape(self.settings.height, self.settings.width, -1)[::-1, :, 0].copy()
        z[z >= 1e9] = np.inf  # Blender writes 1e10 for the background
        return z

    def frames(self, passes=("rgb", "depth", "segmentation"), reuse: bool = True):
        """Yield a `Frame` for every frame of the timeline in order, rendering each distinct state once (in
        batches of `settings.batch` states) and taking states that the cache already holds from it."""
        passes = tuple(passes)
        keys = self.scene.state_keys()
        n = self.scene.n_frames
        firsts = self.scene.first_frames(keys) if reuse else list(range(n))  # every frame without reuse
        cache = self.cache if reuse else None  # frames shared through the cache only where states are reused
        fingerprint = scene_fingerprint(self.scene, self.settings, passes) if cache is not None else None
        shared = {}
        if cache is not None and fingerprint is not None:
            for t in firsts:
                hit = cache.get(fingerprint, keys[t])
                if hit is not None:
                    shared[t] = hit
        todo = [t for t in firsts if t not in shared]
        step = self._batch_states()
        done: dict[int, tuple] = {}  # the current batch's frames, until yielded
        nxt = 0  # next index into todo
        seen: dict[bytes, tuple[int, np.ndarray]] = {}
        for t in range(n):
            hit = seen.get(keys[t]) if reuse else None
            if hit is not None:
                yield Frame(t, hit[0], hit[1], None, None, False)
                continue
            if t in shared:
                (rgb, depth, seg), from_cache = shared.pop(t), True
            else:
                if t not in done:
                    assert todo[nxt] == t  # distinct states are rendered in the order they first appear
                    done = self.render_batch(todo[nxt : nxt + step], passes)
                    nxt += step
                (rgb, depth, seg), from_cache = done.pop(t), False
                if cache is not None and fingerprint is not None:
                    cache.put(fingerprint, keys[t], rgb, depth, seg)
            unique = len(seen)
            if reuse:
                seen[keys[t]] = (unique, rgb)
            yield Frame(t, unique if reuse else t, rgb, depth, seg, True, from_cache)


def _decode_segmentation(px: np.ndarray) -> np.ndarray:
    """Object ids from the flat segmentation render: the id's low byte in red, its high byte in green."""
    px = px.astype(np.uint16)
    return px[..., 0] | (px[..., 1] << 8)
